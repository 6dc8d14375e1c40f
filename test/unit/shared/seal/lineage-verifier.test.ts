import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import { ResidualSealedDetailSchema } from '../../../../shared/pipeline/residual-sealed-detail';
import { residualSealedRuns } from '../../../../shared/pipeline/residual-sealed-runs';
import { sealedRunHead } from '../../../../shared/pipeline/sealed-run-head';
import type { MacAnchor } from '../../../../shared/ports/mac-anchor';
import { ChainVerificationSchema } from '../../../../shared/seal/chain-verification';
import { lineageHeadOf } from '../../../../shared/seal/lineage-head';
import { sealRecord } from '../../../../shared/seal/seal-record';
import type { SealedRecord } from '../../../../shared/seal/sealed-record';
import { VerificationVerdict as V } from '../../../../shared/seal/verification-verdict';
import { verifyChain } from '../../../../shared/seal/verify-chain';
import {
  at,
  buildChain,
  cloneRecord,
  forgerAnchor,
  resealRecord,
  sealInput,
  TEST_LINEAGE_ID,
  TEST_NOW_MS,
  testAnchor,
  testReceiptVariable,
  testVariable,
  verdictsOf,
  verifyTestChain,
} from '../../../helpers/seal-factories';

const verify = verifyTestChain;

const verdicts = verdictsOf;

describe('verifyChain: intact chains', () => {
  it('docs/sealing.md "Verification": a chain sealed in order verifies VERIFIED_INTACT record by record', async () => {
    const { records, head } = await buildChain(5);
    const result = await verify(records, { checkpoint: head as NonNullable<typeof head> });
    expect(ChainVerificationSchema.parse(result)).toEqual(result);
    expect(result.verdict).toBe(V.VERIFIED_INTACT);
    expect(result.firstFailure).toBeNull();
    expect(verdicts(result)).toEqual(Array(5).fill(V.VERIFIED_INTACT));
    expect(result.records.map((r) => [r.seq, r.residualId])).toEqual(records.map((_, i) => [i, `residual-${i}`]));
    expect(result.head).toEqual({ seq: 4, recordHash: at(records, 4).recordHash });
  });

  it('an empty chain without a checkpoint is intact with no head', async () => {
    expect(await verify([])).toEqual({
      verdict: V.VERIFIED_INTACT,
      records: [],
      firstFailure: null,
      head: null,
      linkedThrough: null,
    });
  });

  it('survives a store round trip (JSON) and records with supersedes and mixed authorities', async () => {
    const { records, head, anchor } = await buildChain(3, {
      inputs: (i) => ({ authority: i === 1 ? 'INFORMATIONAL_ONLY' : 'OPERATIONAL', generationEpoch: i + 1 }),
    });
    const target = { seq: 1, recordHash: at(records, 1).recordHash };
    const reseal = await sealRecord(
      sealInput(3, { supersedes: target, generationEpoch: 3 }),
      head,
      anchor,
      TEST_NOW_MS,
    );
    const result = await verify(cloneRecord([...records, reseal]));
    expect(result.verdict).toBe(V.VERIFIED_INTACT);
  });

  it('MAC verdicts do not depend on macConcurrency; the first failure is the earliest by position', async () => {
    const { records } = await buildChain(6);
    const forged = [...records];
    forged[2] = { ...at(records, 2), anchor: at(records, 3).anchor };
    forged[4] = { ...at(records, 4), anchor: at(records, 5).anchor };
    const local = testAnchor();
    // Answers arrive in reverse order of the requests.
    const slow: MacAnchor = {
      keyId: local.keyId,
      generateMac: (m) => local.generateMac(m),
      verifyMac: async (m, s) => {
        await new Promise((resolve) => setTimeout(resolve, 30 - 5 * records.findIndex((r) => r.anchor.mac === s.mac)));
        return local.verifyMac(m, s);
      },
    };
    for (const macConcurrency of [1, 3, 64]) {
      const result = await verify(forged, { anchor: slow, macConcurrency });
      expect(result.firstFailure).toEqual({
        seq: 2,
        verdict: V.HASH_MISMATCH,
        reason: 'anchor invalid: tampered or forged',
      });
      expect(verdicts(result)).toEqual([
        V.VERIFIED_INTACT,
        V.VERIFIED_INTACT,
        V.HASH_MISMATCH,
        V.UNVERIFIED_TAMPER_RISK,
        V.UNVERIFIED_TAMPER_RISK,
        V.UNVERIFIED_TAMPER_RISK,
      ]);
    }
  });
});

describe('verifyChain: docs/sealing.md "Threat model"', () => {
  it('docs/sealing.md verification steps 3 and 15 (hash-with-payload forgery): payload and its hashes recomputed without the key → HASH_MISMATCH', async () => {
    const { records } = await buildChain(4);
    const forged = [...records];
    forged[1] = await resealRecord(at(records, 1), { payload: { conclusion: 'nothing failed' } }, forgerAnchor());
    const result = await verify(forged);
    expect(result.verdict).toBe(V.HASH_MISMATCH);
    expect(result.firstFailure).toEqual({
      seq: 1,
      verdict: V.HASH_MISMATCH,
      reason: 'anchor invalid: tampered or forged',
    });
    expect(verdicts(result)).toEqual([
      V.VERIFIED_INTACT,
      V.HASH_MISMATCH,
      V.UNVERIFIED_TAMPER_RISK,
      V.UNVERIFIED_TAMPER_RISK,
    ]);
    expect(result.records[2]?.reason).toMatch(/follows the failure at seq 1/);
    expect(result.head).toEqual({ seq: 0, recordHash: at(records, 0).recordHash });
  });

  it('docs/sealing.md verification step 3: a payload changed while the stored hashes are kept → HASH_MISMATCH on payloadHash', async () => {
    const { records } = await buildChain(2);
    const tampered = cloneRecord(records);
    (at(tampered, 1).payload as { conclusion: string }).conclusion = 'rewritten';
    const result = await verify(tampered);
    expect(result.firstFailure).toEqual({
      seq: 1,
      verdict: V.HASH_MISMATCH,
      reason: expect.stringMatching(/payloadHash/),
    });
  });

  it('docs/sealing.md "Verification", truncation: the last three records deleted → TRUNCATION_DETECTED against the checkpoint', async () => {
    const { records, head } = await buildChain(6);
    const result = await verify(records.slice(0, 3), { checkpoint: head as NonNullable<typeof head> });
    expect(result.verdict).toBe(V.TRUNCATION_DETECTED);
    expect(result.firstFailure).toEqual({
      seq: 3,
      verdict: V.TRUNCATION_DETECTED,
      reason: expect.stringMatching(/seq 5/),
    });
    expect(verdicts(result)).toEqual(Array(3).fill(V.VERIFIED_INTACT));
    expect(result.head).toEqual({ seq: 2, recordHash: at(records, 2).recordHash });
  });

  it('sealing.md checkpoints: without a checkpoint the table alone cannot prove its tail (a cut tail still verifies)', async () => {
    const { records } = await buildChain(6);
    expect((await verify(records.slice(0, 3))).verdict).toBe(V.VERIFIED_INTACT);
  });

  it('docs/sealing.md "Verification", truncation: an empty chain against a checkpoint (everything deleted) → TRUNCATION_DETECTED', async () => {
    const result = await verify([], { checkpoint: { seq: 0, recordHash: 'a'.repeat(64) } });
    expect(result).toMatchObject({ verdict: V.TRUNCATION_DETECTED, firstFailure: { seq: 0 }, head: null });
  });

  it('docs/sealing.md verification step 7 (concurrent overwrite): a chain holding two records sealed from the same head → SEQUENCE_REPLAYED', async () => {
    const { records, head, anchor } = await buildChain(2);
    const a = await sealRecord(sealInput(2), head, anchor, TEST_NOW_MS);
    const b = await sealRecord(sealInput(3), head, anchor, TEST_NOW_MS);
    const result = await verify([...records, a, b]);
    expect(result.firstFailure).toEqual({
      seq: 2,
      verdict: V.SEQUENCE_REPLAYED,
      reason: expect.stringMatching(/repeated/),
    });
    expect(verdicts(result)).toEqual([V.VERIFIED_INTACT, V.VERIFIED_INTACT, V.VERIFIED_INTACT, V.SEQUENCE_REPLAYED]);
  });
});

describe('verifyChain: docs/sealing.md "Verification"', () => {
  it('docs/sealing.md verification steps 6–8: parent hash and seq bind position: a genuine record replayed at the end → SEQUENCE_REPLAYED', async () => {
    const { records } = await buildChain(3);
    const result = await verify([...records, at(records, 1)]);
    expect(result.firstFailure).toMatchObject({ seq: 1, verdict: V.SEQUENCE_REPLAYED });
    expect(verdicts(result).at(-1)).toBe(V.SEQUENCE_REPLAYED);
  });

  it('docs/sealing.md verification steps 6–8: a middle record deleted → LINEAGE_BROKEN (records missing)', async () => {
    const { records } = await buildChain(4);
    const result = await verify([at(records, 0), at(records, 1), at(records, 3)]);
    expect(result.firstFailure).toEqual({
      seq: 3,
      verdict: V.LINEAGE_BROKEN,
      reason: expect.stringMatching(/missing/),
    });
  });

  it('docs/sealing.md verification steps 6–8: records reordered (never sorted by the verifier) → SEQUENCE_REPLAYED', async () => {
    const { records } = await buildChain(4);
    const result = await verify([at(records, 0), at(records, 2), at(records, 1), at(records, 3)]);
    expect(result.firstFailure).toEqual({
      seq: 2,
      verdict: V.SEQUENCE_REPLAYED,
      reason: expect.stringMatching(/out of order/),
    });
    expect((await verify([...records].reverse())).verdict).not.toBe(V.VERIFIED_INTACT);
  });

  it('docs/sealing.md verification steps 6–8: a chain that does not start at seq 0 from genesis → LINEAGE_BROKEN', async () => {
    const { records } = await buildChain(3);
    expect((await verify(records.slice(1))).firstFailure).toMatchObject({ seq: 1, verdict: V.LINEAGE_BROKEN });
  });

  it('docs/sealing.md verification steps 6–8: a record of another lineage spliced in → LINEAGE_BROKEN', async () => {
    const { records } = await buildChain(2);
    const other = await buildChain(3, { lineageId: 'lineage-other' });
    const result = await verify([...records, at(other.records, 2)]);
    expect(result.firstFailure).toEqual({
      seq: 2,
      verdict: V.LINEAGE_BROKEN,
      reason: expect.stringMatching(/lineage-other/),
    });
  });

  it('docs/sealing.md verification steps 6–8: genesis is per lineage: a validly signed seq 0 naming another genesis → LINEAGE_BROKEN', async () => {
    const { records, anchor } = await buildChain(1);
    const other = await buildChain(1, { lineageId: 'lineage-other' });
    const moved = await resealRecord(
      at(records, 0),
      { header: { parentRecordHash: at(other.records, 0).header.parentRecordHash } },
      anchor,
    );
    expect((await verify([moved])).firstFailure).toMatchObject({ seq: 0, verdict: V.LINEAGE_BROKEN });
  });

  it('docs/sealing.md verification step 15′ (fail closed): the key is disabled → UNVERIFIED_TAMPER_RISK for every record (fail closed)', async () => {
    const { records } = await buildChain(3);
    const result = await verify(records, { anchor: testAnchor({ disabled: true }) });
    expect(result.verdict).toBe(V.UNVERIFIED_TAMPER_RISK);
    expect(result.firstFailure).toEqual({
      seq: 0,
      verdict: V.UNVERIFIED_TAMPER_RISK,
      reason: expect.stringMatching(/disabled.*fail closed/),
    });
    expect(verdicts(result)).toEqual(Array(3).fill(V.UNVERIFIED_TAMPER_RISK));
    expect(result.head).toBeNull();
  });

  it('docs/sealing.md verification step 14: records sealed under a key the verifier does not hold → UNVERIFIED_TAMPER_RISK', async () => {
    const { records } = await buildChain(2);
    const result = await verify(records, { anchor: testAnchor({ keyId: 'arn:aws:kms:eu-west-1:1:key/other' }) });
    expect(result.firstFailure).toEqual({
      seq: 0,
      verdict: V.UNVERIFIED_TAMPER_RISK,
      reason: expect.stringMatching(/cannot be checked/),
    });
  });

  it('docs/sealing.md verification step 15′ (fail closed): an anchor that throws or gives no boolean → UNVERIFIED_TAMPER_RISK', async () => {
    const { records } = await buildChain(1);
    const local = testAnchor();
    const generateMac = (m: Uint8Array) => local.generateMac(m);
    const throwing: MacAnchor = { keyId: local.keyId, generateMac, verifyMac: () => Promise.reject('KMS unreachable') };
    const vague: MacAnchor = { keyId: local.keyId, generateMac, verifyMac: async () => 'yes' as unknown as boolean };
    expect((await verify(records, { anchor: throwing })).firstFailure?.reason).toMatch(/KMS unreachable/);
    expect((await verify(records, { anchor: vague })).firstFailure).toMatchObject({
      verdict: V.UNVERIFIED_TAMPER_RISK,
    });
  });

  it('docs/sealing.md verification step 1: a record of an unknown format version cannot be verified → UNVERIFIED_TAMPER_RISK', async () => {
    const { records } = await buildChain(1);
    const future = cloneRecord(records);
    (at(future, 0).header as { formatVersion: number }).formatVersion = 3;
    expect((await verify(future)).firstFailure).toMatchObject({ seq: 0, verdict: V.UNVERIFIED_TAMPER_RISK });
  });
});

describe('verifyChain: sealing hardening (docs/sealing.md)', () => {
  it('sealing hardening: every link is checked, not only the ends: a forked middle record → LINEAGE_BROKEN at its successor', async () => {
    const { records, anchor } = await buildChain(5);
    // A genuine seal from the head at seq 1: valid on its own, but seq 3 does not name it.
    const fork = await sealRecord(sealInput(9), lineageHeadOf(at(records, 1)), anchor, TEST_NOW_MS);
    const result = await verify([at(records, 0), at(records, 1), fork, at(records, 3), at(records, 4)]);
    expect(result.firstFailure).toEqual({
      seq: 3,
      verdict: V.LINEAGE_BROKEN,
      reason: expect.stringMatching(/parentRecordHash/),
    });
    expect(verdicts(result)).toEqual([
      V.VERIFIED_INTACT,
      V.VERIFIED_INTACT,
      V.VERIFIED_INTACT,
      V.LINEAGE_BROKEN,
      V.UNVERIFIED_TAMPER_RISK,
    ]);
  });

  it('sealing hardening: a rewritten history that is consistent in itself differs from the trusted checkpoint → LINEAGE_BROKEN (fork)', async () => {
    const { records, head, anchor } = await buildChain(4);
    let rewritten: SealedRecord[] = records.slice(0, 2);
    for (let i = 2; i < 4; i++) {
      const record = await sealRecord(sealInput(10 + i), lineageHeadOf(at(rewritten, i - 1)), anchor, TEST_NOW_MS);
      rewritten = [...rewritten, record];
    }
    expect((await verify(rewritten)).verdict).toBe(V.VERIFIED_INTACT);
    const result = await verify(rewritten, { checkpoint: head as NonNullable<typeof head> });
    expect(result.firstFailure).toEqual({ seq: 3, verdict: V.LINEAGE_BROKEN, reason: expect.stringMatching(/fork/) });
    const midway = await verify(rewritten, { checkpoint: { seq: 2, recordHash: at(records, 2).recordHash } });
    expect(midway.firstFailure).toMatchObject({ seq: 2, verdict: V.LINEAGE_BROKEN });
  });

  it('sealing hardening: the head carried by a ResidualSealed event works as a checkpoint; another lineage head is refused', async () => {
    const { records, head } = await buildChain(3);
    // The event carries the head as its run's head fields: one run's head taken out of it.
    const announced = { head: head as NonNullable<typeof head>, residualId: 'residual-2', sealedAtMs: 0 };
    const detail = ResidualSealedDetailSchema.parse({
      v: 2,
      runs: residualSealedRuns([{ ...announced, sealedTreeHead: null, checkpoint: null }]),
    });
    const carried = sealedRunHead(detail, announced.head.lineageId);
    expect(carried).toEqual(head);
    const result = await verify(records.slice(0, 2), { checkpoint: carried as NonNullable<typeof carried> });
    expect(result.verdict).toBe(V.TRUNCATION_DETECTED);
    const other = { ...(carried as NonNullable<typeof carried>), lineageId: 'lineage-other' };
    await expect(verify(records, { checkpoint: other })).rejects.toThrow(/checkpoint\.lineageId|lineage-other/);
  });

  it('sealing hardening (fencing token): a generation epoch that goes back → SEQUENCE_REPLAYED', async () => {
    const { records, anchor } = await buildChain(2, { inputs: () => ({ generationEpoch: 4 }) });
    const zombie = await resealRecord(at(records, 1), { header: { generationEpoch: 3 } }, anchor);
    const result = await verify([at(records, 0), zombie]);
    expect(result.firstFailure).toEqual({
      seq: 1,
      verdict: V.SEQUENCE_REPLAYED,
      reason: expect.stringMatching(/epoch went back/),
    });
  });

  it('record layout (idempotent by residual id): a residual id sealed twice → SEQUENCE_REPLAYED', async () => {
    const { records, anchor } = await buildChain(2);
    const again = await resealRecord(at(records, 1), { header: { residualId: 'residual-0' } }, anchor);
    const result = await verify([at(records, 0), again]);
    expect(result.firstFailure).toEqual({
      seq: 1,
      verdict: V.SEQUENCE_REPLAYED,
      reason: expect.stringMatching(/already sealed at seq 0/),
    });
  });

  it('sealing hardening (re-seal): supersedes must name an earlier record by its real hash → else LINEAGE_BROKEN', async () => {
    const { records, anchor } = await buildChain(3);
    const forward = await resealRecord(
      at(records, 2),
      { header: { supersedes: { seq: 2, recordHash: at(records, 1).recordHash } } },
      anchor,
    );
    expect((await verify([at(records, 0), at(records, 1), forward])).firstFailure).toMatchObject({
      seq: 2,
      verdict: V.LINEAGE_BROKEN,
      reason: expect.stringMatching(/not earlier/),
    });
    const wrongHash = await resealRecord(
      at(records, 2),
      { header: { supersedes: { seq: 0, recordHash: at(records, 1).recordHash } } },
      anchor,
    );
    expect((await verify([at(records, 0), at(records, 1), wrongHash])).firstFailure).toMatchObject({
      seq: 2,
      verdict: V.LINEAGE_BROKEN,
      reason: expect.stringMatching(/not that record/),
    });
  });

  it('record layout: a changed manifest or stored recordHash → HASH_MISMATCH naming what differs', async () => {
    const { records } = await buildChain(2);
    const manifest = cloneRecord(records);
    at(manifest, 1).manifest.structuralKeys = [];
    expect((await verify(manifest)).firstFailure).toMatchObject({
      seq: 1,
      reason: expect.stringMatching(/manifestDigest/),
    });
    const hash = cloneRecord(records);
    at(hash, 1).recordHash = 'f'.repeat(64);
    expect((await verify(hash)).firstFailure).toMatchObject({ seq: 1, reason: expect.stringMatching(/recordHash/) });
  });

  it('record layout (guard receipts are record fields): edited variablesUsed or sealedAtMs → HASH_MISMATCH naming what differs', async () => {
    const { records } = await buildChain(3, {
      inputs: (i) => ({ variablesUsed: [testVariable(), testReceiptVariable('TARGET', `i-${i}`, `session-${i}`)] }),
    });
    const receipt = cloneRecord(records);
    const variable = at(at(receipt, 1).variablesUsed, 1);
    if (!variable.receipt) throw new Error('no receipt');
    variable.receipt.probedAtMs += 60_000;
    expect((await verify(receipt)).firstFailure).toEqual({
      seq: 1,
      verdict: V.HASH_MISMATCH,
      reason: 'variablesUsed does not match the sealed variablesDigest',
    });
    const dropped = cloneRecord(records);
    at(dropped, 2).variablesUsed = [];
    expect((await verify(dropped)).firstFailure).toMatchObject({
      seq: 2,
      reason: expect.stringMatching(/variablesDigest/),
    });
    const backdated = cloneRecord(records);
    at(backdated, 1).sealedAtMs -= 86_400_000;
    expect((await verify(backdated)).firstFailure).toMatchObject({
      seq: 1,
      verdict: V.HASH_MISMATCH,
      reason: expect.stringMatching(/sealedAtMs/),
    });
    // Both edited consistently: the header no longer hashes to recordHash.
    const both = cloneRecord(records);
    at(both, 1).sealedAtMs -= 1;
    at(both, 1).header.sealedAtMs -= 1;
    expect((await verify(both)).firstFailure).toMatchObject({ seq: 1, reason: expect.stringMatching(/recordHash/) });
  });

  it('sealing hardening (records name their key): anchor key id differing from the header → HASH_MISMATCH', async () => {
    const { records } = await buildChain(1);
    const renamed = cloneRecord(records);
    at(renamed, 0).anchor.keyId = 'another-key';
    expect((await verify(renamed)).firstFailure).toMatchObject({
      verdict: V.HASH_MISMATCH,
      reason: expect.stringMatching(/another-key/),
    });
  });

  it('KMS MAC limit: a stored header above 4096 bytes cannot have been signed → HASH_MISMATCH', async () => {
    const { records } = await buildChain(1);
    const big = cloneRecord(records);
    at(big, 0).header.keyId = 'é'.repeat(2000);
    expect((await verify(big)).firstFailure).toMatchObject({
      verdict: V.HASH_MISMATCH,
      reason: expect.stringMatching(/4096/),
    });
  });

  it('a malformed record → HASH_MISMATCH naming the field; seq is null when it carries none', async () => {
    const { records } = await buildChain(2);
    const result = await verify([at(records, 0), { header: { residualId: 7 } }]);
    expect(result.firstFailure).toMatchObject({
      seq: null,
      verdict: V.HASH_MISMATCH,
      reason: expect.stringMatching(/malformed/),
    });
    expect(result.records[1]).toMatchObject({ seq: null, residualId: null });
    const extra = { ...cloneRecord(at(records, 1)), note: 'unsealed field' };
    expect((await verify([at(records, 0), extra])).firstFailure).toMatchObject({ seq: 1, verdict: V.HASH_MISMATCH });
    const nulls = await verify([null, at(records, 0)]);
    expect(nulls.records.map((r) => r.reason)).toEqual([
      expect.stringMatching(/malformed record at <root>/),
      'not verified: follows the failure at position 0 (HASH_MISMATCH)',
    ]);
  });

  it('refuses malformed options and non-array records with InvalidInputError', async () => {
    await expect(verify([], { lineageId: 'bad id' })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(verify([], { anchor: {} as MacAnchor })).rejects.toThrow(/anchor/);
    await expect(verify([], { macConcurrency: 0 })).rejects.toThrow(/macConcurrency/);
    await expect(verify('nope' as unknown as unknown[])).rejects.toThrow(/records/);
  });
});

describe('verifyChain: suffix from a trusted start', () => {
  it('verifies records after a trusted { afterSeq, afterRecordHash } without walking from genesis', async () => {
    const { records, head } = await buildChain(6, { inputs: (i) => ({ generationEpoch: i }) });
    const trustedStart = { afterSeq: 2, afterRecordHash: at(records, 2).recordHash, generationEpoch: 2 };
    const suffix = records.slice(3);
    const result = await verify(suffix, { trustedStart, checkpoint: head as NonNullable<typeof head> });
    expect(result.verdict).toBe(V.VERIFIED_INTACT);
    expect(result.head).toEqual({ seq: 5, recordHash: at(records, 5).recordHash });
    expect(await verify([], { trustedStart })).toMatchObject({ verdict: V.VERIFIED_INTACT, head: { seq: 2 } });
  });

  it('a suffix that does not follow the trusted start → LINEAGE_BROKEN; one that starts too late → LINEAGE_BROKEN', async () => {
    const { records } = await buildChain(5);
    const wrong = { afterSeq: 2, afterRecordHash: at(records, 1).recordHash };
    expect((await verify(records.slice(3), { trustedStart: wrong })).firstFailure).toMatchObject({
      seq: 3,
      verdict: V.LINEAGE_BROKEN,
    });
    const start = { afterSeq: 2, afterRecordHash: at(records, 2).recordHash };
    expect((await verify(records.slice(4), { trustedStart: start })).firstFailure).toMatchObject({ seq: 4 });
  });

  it('sealing hardening (fencing): a suffix below the trusted start epoch → SEQUENCE_REPLAYED', async () => {
    const { records } = await buildChain(3, { inputs: () => ({ generationEpoch: 1 }) });
    const trustedStart = { afterSeq: 1, afterRecordHash: at(records, 1).recordHash, generationEpoch: 2 };
    expect((await verify(records.slice(2), { trustedStart })).firstFailure).toMatchObject({
      verdict: V.SEQUENCE_REPLAYED,
    });
  });

  it('checkpoint and trusted start: same seq with different hashes → LINEAGE_BROKEN for all; an older checkpoint is covered; truncation still shows', async () => {
    const { records, head } = await buildChain(4);
    const trustedStart = { afterSeq: 1, afterRecordHash: at(records, 1).recordHash };
    const conflict = await verify(records.slice(2), {
      trustedStart,
      checkpoint: { seq: 1, recordHash: 'b'.repeat(64) },
    });
    expect(conflict.firstFailure).toMatchObject({
      seq: 1,
      verdict: V.LINEAGE_BROKEN,
      reason: expect.stringMatching(/fork/),
    });
    expect(verdicts(conflict)).toEqual([V.UNVERIFIED_TAMPER_RISK, V.UNVERIFIED_TAMPER_RISK]);
    expect(conflict.head).toEqual({ seq: 1, recordHash: at(records, 1).recordHash });
    const older = { seq: 0, recordHash: at(records, 0).recordHash };
    expect((await verify(records.slice(2), { trustedStart, checkpoint: older })).verdict).toBe(V.VERIFIED_INTACT);
    const cut = await verify(records.slice(2, 3), { trustedStart, checkpoint: head as NonNullable<typeof head> });
    expect(cut.firstFailure).toMatchObject({ seq: 3, verdict: V.TRUNCATION_DETECTED });
  });
});

describe('verifyChain linkedThrough (paging)', () => {
  it('names the last linked record when the key-free walk reached the end, even with no usable key', async () => {
    const { records } = await buildChain(3);
    const anchor = testAnchor();
    anchor.disable();
    const result = await verifyChain(records, { lineageId: TEST_LINEAGE_ID, anchor });
    expect(result.verdict).toBe(V.UNVERIFIED_TAMPER_RISK);
    const last = records[2] as SealedRecord;
    expect(result.linkedThrough).toEqual({
      afterSeq: 2,
      afterRecordHash: last.recordHash,
      generationEpoch: last.header.generationEpoch,
    });
  });

  it('is null when the walk stopped at a definite failure', async () => {
    const { records } = await buildChain(3);
    const broken = records.map((r) => cloneRecord(r));
    (broken[1] as SealedRecord).payload = { edited: true };
    const result = await verifyChain(broken, { lineageId: TEST_LINEAGE_ID, anchor: testAnchor() });
    expect(result.verdict).toBe(V.HASH_MISMATCH);
    expect(result.linkedThrough).toBeNull();
  });
});
