import { describe, expect, it } from 'vitest';
import type { MacAnchor } from '../../../../shared/ports/mac-anchor';
import type { SealedRecord } from '../../../../shared/seal/sealed-record';
import { VerificationVerdict as V } from '../../../../shared/seal/verification-verdict';
import {
  at,
  buildChain,
  cloneRecord,
  forgerAnchor,
  resealRecord,
  testAnchor,
  verdictsOf,
  verifyTestChain,
} from '../../../helpers/seal-factories';

const verify = verifyTestChain;

const verdicts = verdictsOf;

/** An anchor whose MAC checks reject (KMS unreachable) for the MACs in `unreachableFor`, else answer truly. */
function flakyAnchor(unreachableFor: (mac: string) => boolean): MacAnchor {
  const local = testAnchor();
  return {
    keyId: local.keyId,
    generateMac: (m) => local.generateMac(m),
    verifyMac: async (m, s) => {
      if (unreachableFor(s.mac)) throw new Error('KMS unreachable');
      return local.verifyMac(m, s);
    },
  };
}

describe('verifyChain verdict precedence: a MAC that cannot be checked never hides a definite break', () => {
  it('docs/sealing.md "Verdict precedence": key disabled, payload edited at seq 3 → HASH_MISMATCH at seq 3; earlier records stay UNVERIFIED_TAMPER_RISK', async () => {
    const { records } = await buildChain(5);
    const tampered = cloneRecord(records);
    (at(tampered, 3).payload as { conclusion: string }).conclusion = 'nothing failed';
    const result = await verify(tampered, { anchor: testAnchor({ disabled: true }) });
    expect(result.verdict).toBe(V.HASH_MISMATCH);
    expect(result.firstFailure).toEqual({
      seq: 3,
      verdict: V.HASH_MISMATCH,
      reason: 'payload does not match the sealed payloadHash',
    });
    expect(verdicts(result)).toEqual([
      V.UNVERIFIED_TAMPER_RISK,
      V.UNVERIFIED_TAMPER_RISK,
      V.UNVERIFIED_TAMPER_RISK,
      V.HASH_MISMATCH,
      V.UNVERIFIED_TAMPER_RISK,
    ]);
    expect(at(result.records, 0).reason).toMatch(/could not be verified.*fail closed/);
    expect(at(result.records, 4).reason).toBe('not verified: follows the failure at seq 3 (HASH_MISMATCH)');
    expect(result.head).toBeNull();
  });

  it('docs/sealing.md verification step 15′ (fail closed): KMS unreachable for seq 0 only, parent hash broken at seq 3 → LINEAGE_BROKEN; seq 1–2 verified on their own MACs', async () => {
    const { records } = await buildChain(5);
    const tampered = cloneRecord(records);
    at(tampered, 3).header.parentRecordHash = 'e'.repeat(64);
    // The edit breaks the stored recordHash first; re-hash it so only the link is wrong.
    const relinked = [...tampered];
    relinked[3] = await resealRecord(at(tampered, 3), {}, testAnchor());
    const mac0 = at(records, 0).anchor.mac;
    const result = await verify(relinked, { anchor: flakyAnchor((mac) => mac === mac0) });
    expect(result.firstFailure).toMatchObject({ seq: 3, verdict: V.LINEAGE_BROKEN });
    expect(verdicts(result)).toEqual([
      V.UNVERIFIED_TAMPER_RISK,
      V.VERIFIED_INTACT,
      V.VERIFIED_INTACT,
      V.LINEAGE_BROKEN,
      V.UNVERIFIED_TAMPER_RISK,
    ]);
    expect(result.head).toBeNull();
  });

  it('docs/sealing.md verification step 15: a forged MAC at seq 3 (definite, found in the MAC phase) wins over an unreachable MAC at seq 0', async () => {
    const { records } = await buildChain(4);
    const forged: SealedRecord[] = [...records];
    forged[3] = await resealRecord(at(records, 3), { payload: { conclusion: 'all good' } }, forgerAnchor());
    const mac0 = at(records, 0).anchor.mac;
    for (const macConcurrency of [1, 4]) {
      const result = await verify(forged, { anchor: flakyAnchor((mac) => mac === mac0), macConcurrency });
      expect(result.firstFailure).toEqual({
        seq: 3,
        verdict: V.HASH_MISMATCH,
        reason: 'anchor invalid: tampered or forged',
      });
      expect(verdicts(result)).toEqual([
        V.UNVERIFIED_TAMPER_RISK,
        V.VERIFIED_INTACT,
        V.VERIFIED_INTACT,
        V.HASH_MISMATCH,
      ]);
    }
  });

  it('docs/sealing.md verification step 7 and truncation: with the key disabled, a reordered chain is SEQUENCE_REPLAYED and a cut tail TRUNCATION_DETECTED', async () => {
    const { records, head } = await buildChain(5);
    const disabled = testAnchor({ disabled: true });
    const swapped = [at(records, 0), at(records, 2), at(records, 1), at(records, 3)];
    expect((await verify(swapped, { anchor: disabled })).firstFailure).toMatchObject({
      seq: 2,
      verdict: V.SEQUENCE_REPLAYED,
    });
    const cut = await verify(records.slice(0, 3), { anchor: disabled, checkpoint: head as NonNullable<typeof head> });
    expect(cut.verdict).toBe(V.TRUNCATION_DETECTED);
    expect(cut.firstFailure).toMatchObject({ seq: 3, verdict: V.TRUNCATION_DETECTED });
    expect(verdicts(cut)).toEqual(Array(3).fill(V.UNVERIFIED_TAMPER_RISK));
  });

  it('docs/sealing.md verification step 14: records sealed under a key the verifier does not hold still have their links checked (a deleted record → LINEAGE_BROKEN)', async () => {
    const { records } = await buildChain(4);
    const other = testAnchor({ keyId: 'arn:aws:kms:eu-west-1:1:key/other' });
    const gap = [at(records, 0), at(records, 1), at(records, 3)];
    const result = await verify(gap, { anchor: other });
    expect(result.firstFailure).toMatchObject({ seq: 3, verdict: V.LINEAGE_BROKEN });
    expect(verdicts(result)).toEqual([V.UNVERIFIED_TAMPER_RISK, V.UNVERIFIED_TAMPER_RISK, V.LINEAGE_BROKEN]);
    // Without a break the verdict stays UNVERIFIED_TAMPER_RISK, reported at the earliest record.
    expect((await verify(records, { anchor: other })).firstFailure).toMatchObject({
      seq: 0,
      verdict: V.UNVERIFIED_TAMPER_RISK,
      reason: expect.stringMatching(/cannot be checked/),
    });
  });

  it('docs/sealing.md verification step 15′ (fail closed): an intact chain with every MAC unreachable stays UNVERIFIED_TAMPER_RISK (fail closed), each record saying why', async () => {
    const { records, head } = await buildChain(3);
    const result = await verify(records, {
      anchor: testAnchor({ disabled: true }),
      checkpoint: head as NonNullable<typeof head>,
    });
    expect(result.verdict).toBe(V.UNVERIFIED_TAMPER_RISK);
    expect(result.firstFailure?.seq).toBe(0);
    for (const record of result.records) expect(record.reason).toMatch(/could not be verified/);
  });
});
