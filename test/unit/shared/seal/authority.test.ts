import { describe, expect, it } from 'vitest';
import { Authority } from '../../../../shared/schemas/primitives';
import { assessAuthority } from '../../../../shared/seal/authority';
import { verifyChain } from '../../../../shared/seal/lineage-verifier';
import { VerificationVerdict as V } from '../../../../shared/seal/verification-verdict';
import { buildChain, TEST_LINEAGE_ID, testAnchor } from '../../../helpers/seal-factories';

const of = (authority: Authority) => ({ header: { authority } });
const tamperEvidence = [V.HASH_MISMATCH, V.LINEAGE_BROKEN, V.SEQUENCE_REPLAYED, V.TRUNCATION_DETECTED];

describe('assessAuthority', () => {
  it('docs/sealing.md "Authority": only an OPERATIONAL record VERIFIED_INTACT may be acted on operationally', () => {
    for (const authority of Object.values(Authority)) {
      for (const verdict of Object.values(V)) {
        const expected = authority === Authority.OPERATIONAL && verdict === V.VERIFIED_INTACT;
        expect(assessAuthority(of(authority), verdict).operational, `${authority} ${verdict}`).toBe(expected);
      }
    }
  });

  it('docs/sealing.md "Authority": an INFORMATIONAL_ONLY record may be read unverified (UNVERIFIED_TAMPER_RISK), never operationally', () => {
    expect(assessAuthority(of(Authority.INFORMATIONAL_ONLY), V.UNVERIFIED_TAMPER_RISK)).toEqual({
      operational: false,
      informational: true,
      reason: expect.stringMatching(/Decision Boundary 4/),
    });
    expect(assessAuthority(of(Authority.INFORMATIONAL_ONLY), V.VERIFIED_INTACT)).toMatchObject({
      operational: false,
      informational: true,
    });
  });

  it('docs/sealing.md "Authority": OPERATIONAL and HISTORICAL_ATTRIBUTION records that cannot be verified are neither acted on nor read', () => {
    for (const authority of [Authority.OPERATIONAL, Authority.HISTORICAL_ATTRIBUTION]) {
      expect(assessAuthority(of(authority), V.UNVERIFIED_TAMPER_RISK)).toMatchObject({
        operational: false,
        informational: false,
      });
    }
  });

  it('docs/guard.md V6: HISTORICAL_ATTRIBUTION never carries operational authority, even verified', () => {
    expect(assessAuthority(of(Authority.HISTORICAL_ATTRIBUTION), V.VERIFIED_INTACT)).toMatchObject({
      operational: false,
      informational: true,
    });
  });

  it('evidence of tampering denies reading for every authority (docs/sealing.md "Authority": a reader may skip verification, not ignore its failure)', () => {
    for (const authority of Object.values(Authority)) {
      for (const verdict of tamperEvidence) {
        expect(assessAuthority(of(authority), verdict)).toMatchObject({ operational: false, informational: false });
      }
    }
  });

  it('docs/sealing.md "Authority", end to end: with the key disabled, only the INFORMATIONAL_ONLY record stays readable', async () => {
    const authorities = [Authority.OPERATIONAL, Authority.INFORMATIONAL_ONLY, Authority.HISTORICAL_ATTRIBUTION];
    const { records } = await buildChain(3, { inputs: (i) => ({ authority: authorities[i] }) });
    const result = await verifyChain(records, { lineageId: TEST_LINEAGE_ID, anchor: testAnchor({ disabled: true }) });
    const readable = records.map((r, i) => assessAuthority(r, result.records[i]?.verdict ?? V.HASH_MISMATCH));
    expect(readable.map((a) => [a.operational, a.informational])).toEqual([
      [false, false],
      [false, true],
      [false, false],
    ]);
  });
});
