import { describe, expect, it } from 'vitest';
import { freshnessVectors } from '../../../helpers/freshness-vectors';
import vectors from '../../../vectors/freshness.json';

describe('freshness vectors (test/vectors/freshness.json)', () => {
  it('are what verifyDeploymentChain, decideRecordFreshness and decideAbsence decide today, each refusal among them', async () => {
    const built = JSON.parse(JSON.stringify(await freshnessVectors()));
    expect(built).toEqual(vectors);
    const refusals = new Set(vectors.chains.map((c) => (c.finding as { refusal?: string }).refusal).filter(Boolean));
    expect([...refusals].sort()).toEqual([
      'COSIGNATURES_TOO_OLD',
      'INDEX_PROOF_INVALID',
      'LEAF_NOT_LAST',
      'POLICY_NOT_MET',
    ]);
    const states = new Set([...vectors.records, ...vectors.absences].map((c) => c.freshness?.state));
    expect([...states].sort()).toEqual(
      ['ABSENT', 'INCONSISTENT', 'NOT_NEWEST', 'PROVEN', 'REFUSED', 'SEALED_AWAITING_INTEGRATION', undefined].sort(),
    );
  });
});
