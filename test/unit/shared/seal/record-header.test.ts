import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_LINEAGE_LABEL_LENGTH } from '../../../../shared/authorship/lineage-policy';
import { canonicalJson } from '../../../../shared/canonical/canonical-json';
import { HeaderTooLargeError, InvalidInputError } from '../../../../shared/errors';
import { markValidated } from '../../../../shared/schemas/validated';
import { genesisParentHash } from '../../../../shared/seal/genesis-parent-hash';
import { payloadHash } from '../../../../shared/seal/payload-hash';
import { headerBytes, MAX_HEADER_BYTES, type RecordHeader, recordHashOf } from '../../../../shared/seal/record-header';
import { sealInputOfWrite } from '../../../../shared/seal/seal-input';
import { sealValidated } from '../../../../shared/seal/seal-record';
import type { SealedRecord } from '../../../../shared/seal/sealed-record';
import { variablesDigest } from '../../../../shared/seal/variables-digest';
import { manifestDigest } from '../../../../shared/triage/manifest-digest';
import { FACTORY_NOW_MS, validWriteRequest } from '../../../helpers/guard-factories';
import { buildChain, testAnchor, testReceiptVariable, testVariable } from '../../../helpers/seal-factories';
import { signWriteSync, testLineageId, testWriter } from '../../../helpers/writer-factories';

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
  it('byte layouts (docs/sealing.md): genesis is SHA-256 over the GENESIS domain of { v: 1, lineageId }, never ""', () => {
    const expected = sha256('reseal/v1/genesis', '{"lineageId":"lin-1","v":1}');
    expect(genesisParentHash('lin-1')).toBe(expected);
    expect(genesisParentHash('lin-1')).not.toBe('');
  });

  it('byte layouts (docs/sealing.md): each lineage has its own genesis, so a first record cannot move lineage', () => {
    expect(genesisParentHash('lin-1')).not.toBe(genesisParentHash('lin-2'));
  });

  it('refuses a lineage id that is not an identifier', () => {
    expect(() => genesisParentHash('')).toThrow(InvalidInputError);
    expect(() => genesisParentHash('bad id')).toThrow(InvalidInputError);
  });
});

describe('payloadHash', () => {
  it('docs/sealing.md "Byte layouts" (payloadHash): payloadHash is SHA-256 over the PAYLOAD domain of the RFC 8785 bytes', () => {
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

describe('variablesDigest', () => {
  it('record layout / docs/guard.md: variablesDigest is SHA-256 over the VARIABLES domain of the RFC 8785 bytes of { v: 1, variablesUsed }', () => {
    const variables = [testVariable(), testReceiptVariable()];
    const text = canonicalJson({ v: 1, variablesUsed: variables });
    expect(variablesDigest(variables)).toBe(sha256('reseal/v1/variables', text));
    expect(variablesDigest([])).toBe(sha256('reseal/v1/variables', '{"v":1,"variablesUsed":[]}'));
  });

  it('changes with any receipt field and with the order of the variables; is not the payload hash of the same array', () => {
    const variables = [testVariable(), testReceiptVariable()];
    const base = variablesDigest(variables);
    const receipt = variables[1]?.receipt;
    if (!receipt) throw new Error('no receipt');
    expect(
      variablesDigest([variables[0] as never, { ...variables[1], receipt: { ...receipt, probedAtMs: 1 } } as never]),
    ).not.toBe(base);
    expect(variablesDigest([...variables].reverse())).not.toBe(base);
    expect(payloadHash({ v: 1, variablesUsed: variables })).not.toBe(base);
  });
});

describe('headerBytes and recordHashOf', () => {
  it('headerBytes is a fresh array of exactly the header bytes (never a view into a shared pool)', async () => {
    const header = await sampleHeader();
    const bytes = headerBytes(header);
    expect(bytes.byteOffset).toBe(0);
    expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
    expect(new TextDecoder().decode(new Uint8Array(bytes.buffer))).toBe(canonicalJson(header));
  });

  it('record layout: the header binds variablesUsed (variablesDigest) and sealedAtMs of its record', async () => {
    const { records } = await buildChain(1);
    const record = records[0] as SealedRecord;
    expect(record.header.variablesDigest).toBe(variablesDigest(record.variablesUsed));
    expect(record.header.sealedAtMs).toBe(record.sealedAtMs);
    expect(recordHashOf({ ...record.header, sealedAtMs: record.sealedAtMs + 1 })).not.toBe(recordHashOf(record.header));
  });

  it('byte layouts (docs/sealing.md): a header with every field at its maximum fits the 4,096-byte KMS MAC limit', async () => {
    const header = await sampleHeader();
    const id = (c: string) => c + 'x'.repeat(199); // Identifier: at most 200 characters
    const maximal: RecordHeader = {
      ...header,
      lineageId: id('L'),
      residualId: id('R'),
      sessionId: id('S'),
      monotonicSequenceNumber: Number.MAX_SAFE_INTEGER,
      generationEpoch: Number.MAX_SAFE_INTEGER,
      sealedAtMs: Number.MAX_SAFE_INTEGER,
      authority: 'HISTORICAL_ATTRIBUTION',
      // KMS KeyId (key id, ARN, alias name or alias ARN) is at most 2,048 characters, all ASCII.
      keyId: `arn:aws:kms:eu-west-1:123456789012:alias/${'a'.repeat(2048 - 41)}`,
      supersedes: { seq: Number.MAX_SAFE_INTEGER - 1, recordHash: 'f'.repeat(64) },
    };
    expect(maximal.keyId).toHaveLength(2048);
    const bytes = headerBytes(maximal).byteLength;
    expect(bytes).toBeLessThanOrEqual(MAX_HEADER_BYTES);
    // Room left for a future field or two; a failing bound here means the layout grew too much.
    expect(MAX_HEADER_BYTES - bytes).toBeGreaterThan(256);
  });

  it('docs/authorship.md "Record format 2": a maximal format-2 header, from a writer whose key id is a 2,048-character KMS ARN, is 3,654 bytes of the 4,096-byte MAC budget', async () => {
    // Real seal of a signed write: every identifier at its longest, the writer's and the MAC's key
    // ids 2,048-character KMS ARNs (KMS KeyId is at most 2,048 ASCII characters).
    const kmsArn = (prefix: string) => `arn:aws:kms:eu-west-1:123456789012:key/${prefix}`.padEnd(2048, 'k');
    const writer = testWriter(kmsArn('writer-'), 0x40);
    const policy = { v: 1 as const, writers: [{ keyId: writer.keyId, publicKey: writer.publicKey }], recoveryKeys: [] };
    const id = (c: string) => c + 'x'.repeat(199); // Identifier: at most 200 characters
    const lineageId = testLineageId('L'.repeat(MAX_LINEAGE_LABEL_LENGTH), policy);
    const request = signWriteSync(
      {
        ...validWriteRequest({ residualId: id('R'), lineageId, sessionId: id('S'), policy }),
        generationEpoch: Number.MAX_SAFE_INTEGER,
        authority: 'HISTORICAL_ATTRIBUTION',
      },
      writer,
      FACTORY_NOW_MS,
    );
    const digests = { payloadHash: payloadHash(request.payload), manifestDigest: manifestDigest(request.manifest) };
    const sealInput = sealInputOfWrite(markValidated(request), 'a'.repeat(64), digests, 'x'.repeat(512));
    const record = await sealValidated(sealInput, null, testAnchor({ keyId: kmsArn('mac-') }), FACTORY_NOW_MS);
    // Numbers at 2^53 − 1 and a supersedes: fields a later record of the same writer may hold.
    const maximal: RecordHeader = {
      ...record.header,
      monotonicSequenceNumber: Number.MAX_SAFE_INTEGER,
      sealedAtMs: Number.MAX_SAFE_INTEGER,
      supersedes: { seq: Number.MAX_SAFE_INTEGER - 1, recordHash: 'f'.repeat(64) },
    };
    expect(maximal.formatVersion).toBe(2);
    expect([maximal.lineageId, maximal.residualId, maximal.sessionId].map((s) => s.length)).toEqual([200, 200, 200]);
    expect([record.writer?.keyId.length, maximal.keyId.length]).toEqual([2048, 2048]);
    const text = new TextDecoder().decode(headerBytes(maximal));
    // The writer (its 2,048-character key id, key, signature, sender id) is bound by digest, not inlined.
    expect(text).not.toContain(writer.keyId);
    expect(text).not.toContain(writer.publicKey);
    const bytes = headerBytes(maximal).byteLength;
    expect(bytes).toBe(3654); // the figure docs/authorship.md states
    expect(MAX_HEADER_BYTES - bytes).toBeGreaterThanOrEqual(256);
  });

  it('byte layouts (docs/sealing.md): the MAC message is the RFC 8785 text of the header', async () => {
    const header = await sampleHeader();
    expect(new TextDecoder().decode(headerBytes(header))).toBe(canonicalJson(header));
  });

  it('docs/sealing.md "Byte layouts" (recordHash): recordHash is SHA-256 over the RECORD_HEADER domain of the header bytes', async () => {
    const header = await sampleHeader();
    expect(recordHashOf(header)).toBe(sha256('reseal/v1/record-header', canonicalJson(header)));
  });

  it('does not depend on key order of the header object', async () => {
    const header = await sampleHeader();
    const reversed = Object.fromEntries(Object.entries(header).reverse()) as RecordHeader;
    expect(recordHashOf(reversed)).toBe(recordHashOf(header));
  });

  it('KMS MAC limit: a header above 4096 canonical bytes (KMS GenerateMac limit) throws HeaderTooLargeError', async () => {
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
