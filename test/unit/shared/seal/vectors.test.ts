import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../shared/canonical/canonical-json';
import { genesisParentHash } from '../../../../shared/seal/genesis-parent-hash';
import { type LineageHead, lineageHeadOf } from '../../../../shared/seal/lineage-head';
import { LocalHmacAnchor } from '../../../../shared/seal/local-hmac-anchor';
import { payloadHash } from '../../../../shared/seal/payload-hash';
import { recordHashOf } from '../../../../shared/seal/record-header';
import { sealRecord } from '../../../../shared/seal/seal-record';
import { type SealedRecord, SealedRecordSchema } from '../../../../shared/seal/sealed-record';
import { variablesDigest } from '../../../../shared/seal/variables-digest';
import { VerificationVerdict } from '../../../../shared/seal/verification-verdict';
import { verifyChain } from '../../../../shared/seal/verify-chain';
import vectors from '../../../vectors/seal.json';

const key = Buffer.from(vectors.keyHex, 'hex');
const anchor = new LocalHmacAnchor({ keyId: vectors.keyId, key });
const records = vectors.records.map((v) => SealedRecordSchema.parse(v.record));
const at = (i: number) => records[i] as SealedRecord;

/** SHA-256(ASCII(tag) || 0x00 || UTF-8(text)) with plain node:crypto, independent of shared/canonical. */
const domainHash = (tag: string, text: string) =>
  createHash('sha256')
    .update(Buffer.from(tag, 'ascii'))
    .update(Buffer.from([0]))
    .update(Buffer.from(text, 'utf8'))
    .digest('hex');

describe('seal test vectors (test/vectors/seal.json, key 0x00..0x1f, keyId "test-key-1")', () => {
  it('the fixed test key is the 32 bytes 0x00..0x1f', () => {
    expect([...key]).toEqual(Array.from({ length: 32 }, (_, i) => i));
  });

  it('genesis parent hash matches the vector and an independent SHA-256', () => {
    expect(genesisParentHash(vectors.lineageId)).toBe(vectors.genesisParentHash);
    const text = JSON.stringify({ lineageId: vectors.lineageId, v: 1 });
    expect(domainHash('reseal/v1/genesis', text)).toBe(vectors.genesisParentHash);
  });

  it('canonical header text, payload hash and record hash match the vectors (library and plain node:crypto)', () => {
    vectors.records.forEach((vector, i) => {
      const record = at(i);
      expect(canonicalJson(record.header)).toBe(vector.canonicalHeader);
      expect(canonicalJson(record.payload)).toBe(vector.canonicalPayload);
      expect(payloadHash(record.payload)).toBe(vector.payloadHash);
      expect(domainHash('reseal/v1/payload', vector.canonicalPayload)).toBe(vector.payloadHash);
      expect(record.header.payloadHash).toBe(vector.payloadHash);
      expect(recordHashOf(record.header)).toBe(vector.recordHash);
      expect(domainHash('reseal/v1/record-header', vector.canonicalHeader)).toBe(vector.recordHash);
    });
  });

  it('variablesDigest matches the vector and an independent SHA-256 over the canonical variables; the header names it', () => {
    expect(vectors.records.some((v) => v.canonicalVariables.includes('"receipt"'))).toBe(true);
    vectors.records.forEach((vector, i) => {
      const record = at(i);
      expect(canonicalJson({ v: 1, variablesUsed: record.variablesUsed })).toBe(vector.canonicalVariables);
      expect(variablesDigest(record.variablesUsed)).toBe(vector.variablesDigest);
      expect(domainHash('reseal/v1/variables', vector.canonicalVariables)).toBe(vector.variablesDigest);
      expect(record.header.variablesDigest).toBe(vector.variablesDigest);
      expect(JSON.parse(vector.canonicalHeader).sealedAtMs).toBe(record.sealedAtMs);
    });
  });

  it('the MAC matches the vector, recomputed independently with node:crypto HMAC-SHA-256 over the header text', async () => {
    for (const vector of vectors.records) {
      const independent = createHmac('sha256', key)
        .update(Buffer.from(vector.canonicalHeader, 'utf8'))
        .digest('base64');
      expect(independent).toBe(vector.mac);
      expect(vector.record.anchor).toEqual({ keyId: vectors.keyId, algorithm: 'HMAC_SHA_256', mac: vector.mac });
      expect((await anchor.generateMac(new TextEncoder().encode(vector.canonicalHeader))).mac).toBe(vector.mac);
    }
  });

  it('sealing the same inputs again reproduces each record exactly (stable across runs)', async () => {
    let head: LineageHead | null = null;
    for (const record of records) {
      const { header } = record;
      const input = {
        lineageId: header.lineageId,
        residualId: header.residualId,
        sessionId: header.sessionId,
        payload: record.payload,
        generationEpoch: header.generationEpoch,
        authority: header.authority,
        manifest: record.manifest,
        verdictDigest: header.verdictDigest,
        variablesUsed: record.variablesUsed,
        ...(header.supersedes ? { supersedes: header.supersedes } : {}),
      };
      const again = await sealRecord(input, head, anchor, record.sealedAtMs);
      expect(again).toEqual(record);
      head = lineageHeadOf(again);
    }
  });

  it('the vector chain verifies VERIFIED_INTACT against its own head', async () => {
    const checkpoint = { seq: 1, recordHash: at(1).recordHash };
    const result = await verifyChain(records, { lineageId: vectors.lineageId, anchor, checkpoint });
    expect(result.verdict).toBe(VerificationVerdict.VERIFIED_INTACT);
  });
});
