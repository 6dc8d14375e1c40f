import { describe, expect, it } from 'vitest';
import {
  AnchorKeyMismatchError,
  AnchorUnavailableError,
  HeaderTooLargeError,
  InvalidInputError,
  StaleEpochError,
} from '../../../../shared/errors';
import type { MacAnchor } from '../../../../shared/ports/mac-anchor';
import { genesisParentHash } from '../../../../shared/seal/genesis-parent-hash';
import { lineageHeadOf } from '../../../../shared/seal/lineage-head';
import { payloadHash } from '../../../../shared/seal/payload-hash';
import { headerBytes, recordHashOf } from '../../../../shared/seal/record-header';
import { sealRecord } from '../../../../shared/seal/seal-record';
import { SealedRecordSchema } from '../../../../shared/seal/sealed-record';
import { manifestDigest } from '../../../../shared/triage/manifest-digest';
import {
  buildChain,
  sealInput,
  TEST_KEY_ID,
  TEST_LINEAGE_ID,
  TEST_NOW_MS,
  testAnchor,
} from '../../../helpers/seal-factories';

describe('sealRecord', () => {
  it('docs/sealing.md "Record layout": a residual for a mutable store gets payloadHash, parentRecordHash, seq and an external anchor', async () => {
    const anchor = testAnchor();
    const record = await sealRecord(sealInput(0), null, anchor, TEST_NOW_MS);
    const input = sealInput(0);
    expect(SealedRecordSchema.parse(record)).toEqual(record);
    expect(record.header).toMatchObject({
      formatVersion: 1,
      lineageId: TEST_LINEAGE_ID,
      monotonicSequenceNumber: 0,
      residualId: 'residual-0',
      sessionId: 'session-0',
      payloadHash: payloadHash(input.payload),
      parentRecordHash: genesisParentHash(TEST_LINEAGE_ID),
      manifestDigest: manifestDigest(input.manifest),
      verdictDigest: input.verdictDigest,
      keyId: TEST_KEY_ID,
      supersedes: null,
    });
    expect(record.recordHash).toBe(recordHashOf(record.header));
    expect(record.anchor.keyId).toBe(TEST_KEY_ID);
    expect(await anchor.verifyMac(headerBytes(record.header), record.anchor)).toBe(true);
    expect(record.sealedAtMs).toBe(TEST_NOW_MS);
  });

  it('docs/sealing.md "Record layout" (seq, parentRecordHash): the next record takes seq head + 1 and names the head as parent', async () => {
    const { records } = await buildChain(3);
    records.forEach((record, i) => {
      expect(record.header.monotonicSequenceNumber).toBe(i);
      if (i > 0) expect(record.header.parentRecordHash).toBe(records[i - 1]?.recordHash);
    });
    expect(lineageHeadOf(records[2] as (typeof records)[number])).toEqual({
      lineageId: TEST_LINEAGE_ID,
      seq: 2,
      recordHash: records[2]?.recordHash,
      generationEpoch: 1,
      mac: records[2]?.anchor.mac,
      keyId: TEST_KEY_ID,
    });
  });

  it('sealing hardening (fencing token): an epoch older than the head is refused with StaleEpochError', async () => {
    const { head, anchor } = await buildChain(2, { inputs: () => ({ generationEpoch: 5 }) });
    const stale = sealRecord(sealInput(2, { generationEpoch: 4 }), head, anchor, TEST_NOW_MS);
    await expect(stale).rejects.toBeInstanceOf(StaleEpochError);
    await expect(stale).rejects.toMatchObject({ headEpoch: 5, requestEpoch: 4, lineageId: TEST_LINEAGE_ID });
    await expect(sealRecord(sealInput(2, { generationEpoch: 5 }), head, anchor, TEST_NOW_MS)).resolves.toBeDefined();
    await expect(sealRecord(sealInput(2, { generationEpoch: 6 }), head, anchor, TEST_NOW_MS)).resolves.toBeDefined();
  });

  it('docs/sealing.md "Sealing" (seal time): a sealer clock behind the parent\'s seals at the parent\'s sealedAtMs, never earlier', async () => {
    const anchor = testAnchor();
    const parent = await sealRecord(sealInput(0), null, anchor, TEST_NOW_MS);
    const tip = { ...lineageHeadOf(parent), sealedAtMs: parent.header.sealedAtMs };
    const behind = await sealRecord(sealInput(1), tip, anchor, TEST_NOW_MS - 60_000);
    expect(behind.header.sealedAtMs).toBe(TEST_NOW_MS);
    expect(behind.sealedAtMs).toBe(TEST_NOW_MS);
    // A clock ahead of the parent's is taken as is; a tip that does not carry the parent's time changes nothing.
    const ahead = await sealRecord(sealInput(1), tip, anchor, TEST_NOW_MS + 1);
    expect(ahead.sealedAtMs).toBe(TEST_NOW_MS + 1);
    const untimed = await sealRecord(sealInput(1), lineageHeadOf(parent), anchor, TEST_NOW_MS - 60_000);
    expect(untimed.sealedAtMs).toBe(TEST_NOW_MS - 60_000);
  });

  it('docs/sealing.md "Sealing" (two seals from one head): two seals from the same head give two records with the same seq', async () => {
    const { head, anchor } = await buildChain(1);
    const first = await sealRecord(sealInput(1), head, anchor, TEST_NOW_MS);
    const second = await sealRecord(sealInput(2), head, anchor, TEST_NOW_MS);
    expect(first.header.monotonicSequenceNumber).toBe(1);
    expect(second.header.monotonicSequenceNumber).toBe(1);
    expect(first.recordHash).not.toBe(second.recordHash);
  });

  it('refuses a head of another lineage', async () => {
    const { head, anchor } = await buildChain(1, { lineageId: 'other-lineage' });
    await expect(sealRecord(sealInput(1), head, anchor, TEST_NOW_MS)).rejects.toThrow(/lineageId/);
  });

  it('seals supersedes into the header and refuses one the head cannot have', async () => {
    const { records, head, anchor } = await buildChain(2);
    const target = { seq: 0, recordHash: records[0]?.recordHash as string };
    const reseal = await sealRecord(sealInput(2, { supersedes: target }), head, anchor, TEST_NOW_MS);
    expect(reseal.header.supersedes).toEqual(target);
    const input = sealInput(2, { supersedes: target });
    await expect(sealRecord(input, null, anchor, TEST_NOW_MS)).rejects.toThrow(/supersede/);
    const past = sealInput(2, { supersedes: { seq: 2, recordHash: target.recordHash } });
    await expect(sealRecord(past, head, anchor, TEST_NOW_MS)).rejects.toThrow(/supersedes\.seq/);
    const wrong = sealInput(2, { supersedes: { seq: 1, recordHash: target.recordHash } });
    await expect(sealRecord(wrong, head, anchor, TEST_NOW_MS)).rejects.toThrow(/supersedes\.recordHash/);
  });

  it('refuses to go past seq 2^53 − 1', async () => {
    const { head, anchor } = await buildChain(1);
    const last = { ...(head as NonNullable<typeof head>), seq: Number.MAX_SAFE_INTEGER };
    await expect(sealRecord(sealInput(1), last, anchor, TEST_NOW_MS)).rejects.toThrow(/exhausted/);
  });

  it('refuses malformed input, head and clock with InvalidInputError naming the field', async () => {
    const anchor = testAnchor();
    const extra = { ...sealInput(0), extra: true } as ReturnType<typeof sealInput>;
    await expect(sealRecord(extra, null, anchor, TEST_NOW_MS)).rejects.toBeInstanceOf(InvalidInputError);
    const proto = sealInput(0, { payload: JSON.parse('{"__proto__":{"x":1}}') });
    await expect(sealRecord(proto, null, anchor, TEST_NOW_MS)).rejects.toThrow(/payload/);
    const badHead = { lineageId: TEST_LINEAGE_ID } as never;
    await expect(sealRecord(sealInput(0), badHead, anchor, TEST_NOW_MS)).rejects.toThrow(/lineage head/);
    await expect(sealRecord(sealInput(0), null, anchor, -1)).rejects.toThrow(/seal time/);
  });

  it('docs/sealing.md "Sealing" (a key that cannot be used seals nothing): a disabled key cannot seal (the error propagates, nothing is sealed)', async () => {
    await expect(sealRecord(sealInput(0), null, testAnchor({ disabled: true }), TEST_NOW_MS)).rejects.toBeInstanceOf(
      AnchorUnavailableError,
    );
  });

  it('sealing hardening (records name their key): refuses an anchor that signs under another key or algorithm', async () => {
    const local = testAnchor();
    const renamed: MacAnchor = {
      keyId: TEST_KEY_ID,
      generateMac: async (m) => ({ ...(await local.generateMac(m)), keyId: 'arn:aws:kms:other' }),
      verifyMac: (m, s) => local.verifyMac(m, s),
    };
    await expect(sealRecord(sealInput(0), null, renamed, TEST_NOW_MS)).rejects.toBeInstanceOf(AnchorKeyMismatchError);
    const otherAlgorithm: MacAnchor = {
      ...renamed,
      generateMac: async (m) => ({ ...(await local.generateMac(m)), algorithm: 'HMAC_SHA_512' as 'HMAC_SHA_256' }),
    };
    await expect(sealRecord(sealInput(0), null, otherAlgorithm, TEST_NOW_MS)).rejects.toThrow(/algorithm/);
  });

  it('byte layouts (MAC message ≤ 4096 bytes): a header too large for KMS throws HeaderTooLargeError before signing', async () => {
    const anchor = testAnchor({ keyId: 'é'.repeat(2000) });
    await expect(sealRecord(sealInput(0), null, anchor, TEST_NOW_MS)).rejects.toBeInstanceOf(HeaderTooLargeError);
  });
});
