import { describe, expect, it } from 'vitest';
import * as core from '../../../../shared/index';
import { Authority } from '../../../../shared/schemas/authority';
import { VerificationVerdict as V } from '../../../../shared/seal/verification-verdict';
import { verifyChain } from '../../../../shared/seal/verify-chain';
import { buildChain, TEST_LINEAGE_ID, testAnchor } from '../../../helpers/seal-factories';

// docs/sealing.md, "Authority: why no record is read unverified".
describe('no authority skips verification', () => {
  it('with the key disabled, every record is UNVERIFIED_TAMPER_RISK whatever its authority, INFORMATIONAL_ONLY included', async () => {
    const authorities = Object.values(Authority);
    const { records } = await buildChain(authorities.length, { inputs: (i) => ({ authority: authorities[i] }) });
    const result = await verifyChain(records, { lineageId: TEST_LINEAGE_ID, anchor: testAnchor({ disabled: true }) });
    expect(records.map((r) => r.header.authority)).toEqual(authorities);
    expect(result.records.map((r) => r.verdict)).toEqual(authorities.map(() => V.UNVERIFIED_TAMPER_RISK));
  });

  it('the core offers no function that rates an unverified record readable by its authority', () => {
    expect(Object.keys(core)).not.toContain('assessAuthority');
  });
});
