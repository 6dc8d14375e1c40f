import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../shared/canonical/canonical-json';
import { HeaderTooLargeError, InvalidInputError } from '../../../../shared/errors';
import {
  genesisParentHash,
  headerBytes,
  MAX_HEADER_BYTES,
  payloadHash,
  type RecordHeader,
  recordHashOf,
} from '../../../../shared/seal/record-header';
import { buildChain } from '../../../helpers/seal-factories';

const sha256 = (tag: string, text: string) =>
  createHash('sha256')
    .update(tag)
    .update(Buffer.from([0]))
    .update(text, 'utf8')
    .digest('hex');

async function sampleHeader(): Promise<RecordHeader> {
  const { records } = await buildChain(1);
  return (records[0] as { header: RecordHeader }).header;
}

describe('genesisParentHash', () => {
  it('DESIGN "Hashing and canonical form": genesis is SHA-256 over the GENESIS domain of { v: 1, lineageId }, never ""', () => {
    const expected = sha256('reseal/v1/genesis', '{"lineageId":"lin-1","v":1}');
    expect(genesisParentHash('lin-1')).toBe(expected);
    expect(genesisParentHash('lin-1')).not.toBe('');
  });

  it('DESIGN "Hashing and canonical form": each lineage has its own genesis, so a first record cannot move lineage', () => {
    expect(genesisParentHash('lin-1')).not.toBe(genesisParentHash('lin-2'));
  });

  it('refuses a lineage id that is not an identifier', () => {
    expect(() => genesisParentHash('')).toThrow(InvalidInputError);
    expect(() => genesisParentHash('bad id')).toThrow(InvalidInputError);
  });
});

describe('payloadHash', () => {
  it('seed 003 Recorded Elements (1): payloadHash is SHA-256 over the PAYLOAD domain of the RFC 8785 bytes', () => {
    expect(payloadHash({ b: 1, a: [true, null] })).toBe(sha256('reseal/v1/payload', '{"a":[true,null],"b":1}'));
  });

  it('does not depend on key order', () => {
    expect(payloadHash({ a: 1, b: { c: 2, d: 3 } })).toBe(payloadHash({ b: { d: 3, c: 2 }, a: 1 }));
  });

  it('is domain separated: the payload hash of a header is not its record hash', async () => {
    const header = await sampleHeader();
    expect(payloadHash(header)).not.toBe(recordHashOf(header));
  });
});

describe('headerBytes and recordHashOf', () => {
  it('DESIGN "Hashing and canonical form": the MAC message is the RFC 8785 text of the header', async () => {
    const header = await sampleHeader();
    expect(new TextDecoder().decode(headerBytes(header))).toBe(canonicalJson(header));
  });

  it('seed 003 Recorded Elements (2): recordHash is SHA-256 over the RECORD_HEADER domain of the header bytes', async () => {
    const header = await sampleHeader();
    expect(recordHashOf(header)).toBe(sha256('reseal/v1/record-header', canonicalJson(header)));
  });

  it('does not depend on key order of the header object', async () => {
    const header = await sampleHeader();
    const reversed = Object.fromEntries(Object.entries(header).reverse()) as RecordHeader;
    expect(recordHashOf(reversed)).toBe(recordHashOf(header));
  });

  it('DESIGN "Facts from the field": a header above 4096 canonical bytes (KMS GenerateMac limit) throws HeaderTooLargeError', async () => {
    const header = await sampleHeader();
    const base = headerBytes(header).byteLength;
    // 'é' is two UTF-8 bytes: a key id of ≤ 2048 characters can fill the header to the limit.
    const keyIdBytes = header.keyId.length + MAX_HEADER_BYTES - base;
    const keyIdOf = (bytes: number) => 'é'.repeat(Math.floor(bytes / 2)) + 'k'.repeat(bytes % 2);
    const fits = { ...header, keyId: keyIdOf(keyIdBytes) };
    expect(headerBytes(fits).byteLength).toBe(MAX_HEADER_BYTES);
    const tooLarge = { ...header, keyId: keyIdOf(keyIdBytes + 1) };
    expect(() => headerBytes(tooLarge)).toThrow(HeaderTooLargeError);
    expect(() => recordHashOf(tooLarge)).toThrow(HeaderTooLargeError);
  });

  it('refuses a malformed header (unknown field, wrong version, bad digest) with InvalidInputError', async () => {
    const header = await sampleHeader();
    expect(() => headerBytes({ ...header, extra: 1 } as RecordHeader)).toThrow(InvalidInputError);
    expect(() => headerBytes({ ...header, formatVersion: 2 } as unknown as RecordHeader)).toThrow(InvalidInputError);
    expect(() => recordHashOf({ ...header, payloadHash: 'ABC' })).toThrow(/payloadHash/);
  });
});
