import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalBytes, canonicalJson } from '../../../../shared/canonical/canonical-json';
import { HEX_DIGEST_PATTERN } from '../../../../shared/canonical/digest';
import { hashBytes } from '../../../../shared/canonical/hash-bytes';
import { hashCanonical, hashCanonicalText } from '../../../../shared/canonical/hash-canonical';
import { FORMAT_VERSION, HashDomain, type HashDomainTag } from '../../../../shared/canonical/hash-domain';
import { CanonicalizationError } from '../../../../shared/errors';

const tags = Object.values(HashDomain);

describe('domain-separated SHA-256', () => {
  it('layout: SHA-256(ASCII(tag) || 0x00 || message), 64 lowercase hex', () => {
    const message = new TextEncoder().encode('{"a":1}');
    const manual = createHash('sha256')
      .update(Buffer.concat([Buffer.from(HashDomain.PAYLOAD, 'ascii'), Buffer.from([0]), Buffer.from(message)]))
      .digest('hex');
    expect(hashBytes(HashDomain.PAYLOAD, message)).toBe(manual);
    expect(manual).toMatch(HEX_DIGEST_PATTERN);
  });

  it('layout holds for every tag on both sides of the one-shot size limit (0 B to 70 kB messages)', () => {
    for (const size of [0, 1, 1_023, 1_024, 1_025, 4_096, 70_000]) {
      const message = Uint8Array.from({ length: size }, (_, i) => (i * 31) & 0xff);
      for (const tag of tags) {
        const manual = createHash('sha256')
          .update(Buffer.concat([Buffer.from(tag, 'ascii'), Buffer.from([0]), message]))
          .digest('hex');
        expect(hashBytes(tag, message)).toBe(manual);
      }
    }
  });

  it('hashCanonical hashes the UTF-8 of the canonical text, also for non-ASCII and astral text', () => {
    const value = { '\u00e9': 'caf\u00e9 \ud83d\ude00', a: ['\u20ac', '\n', -0, 0.5] };
    const manual = createHash('sha256')
      .update(Buffer.concat([Buffer.from(HashDomain.PAYLOAD, 'ascii'), Buffer.from([0]), canonicalBytes(value)]))
      .digest('hex');
    expect(hashCanonical(HashDomain.PAYLOAD, value)).toBe(manual);
  });

  it('hashCanonical hashes the RFC 8785 bytes', () => {
    expect(hashCanonical(HashDomain.VALUE, { b: 2, a: 1 })).toBe(
      hashBytes(HashDomain.VALUE, canonicalBytes({ a: 1, b: 2 })),
    );
  });

  it('domain separation: the same bytes under two tags hash differently (every pair of tags)', () => {
    const bytes = canonicalBytes({ v: 1, key: 'ARCH', value: 'arm64' });
    const digests = tags.map((tag) => hashBytes(tag, bytes));
    expect(new Set(digests).size).toBe(tags.length);
  });

  it('the 0x00 separator prevents tag/message boundary shifts', () => {
    // "reseal/v1/value" + "x..." must not equal "reseal/v1/valu" + "ex..." under any framing.
    const a = createHash('sha256')
      .update('reseal/v1/value')
      .update(Buffer.from([0]))
      .update('x')
      .digest('hex');
    expect(hashBytes(HashDomain.VALUE, new TextEncoder().encode('x'))).toBe(a);
    const noSeparator = createHash('sha256').update('reseal/v1/valuex').digest('hex');
    expect(a).not.toBe(noSeparator);
  });

  it('tags are unique, ASCII, versioned, and contain no 0x00', () => {
    expect(new Set(tags).size).toBe(tags.length);
    for (const tag of tags) {
      expect(tag).toMatch(/^reseal\/v1\/[a-z-]+$/);
    }
    expect(FORMAT_VERSION).toBe(1);
  });

  it('a tag outside HashDomain (a later format version, say) follows the same layout', () => {
    const tag = 'reseal/v2/payload' as HashDomainTag;
    const manual = createHash('sha256').update('reseal/v2/payload\u0000x').digest('hex');
    expect(hashBytes(tag, new TextEncoder().encode('x'))).toBe(manual);
  });

  it('hashCanonicalText gives hashCanonical of the value the text came from, and refuses a lone surrogate', () => {
    const value = { b: ['\u00e9', 1.5], a: '\ud83d\ude00' };
    expect(hashCanonicalText(HashDomain.PAYLOAD, canonicalJson(value))).toBe(hashCanonical(HashDomain.PAYLOAD, value));
    expect(() => hashCanonicalText(HashDomain.PAYLOAD, '"\ud800"')).toThrow(CanonicalizationError);
  });

  it('hashCanonical refuses what canonical JSON refuses', () => {
    expect(() => hashCanonical(HashDomain.PAYLOAD, { n: Number.NaN })).toThrow(CanonicalizationError);
  });
});
