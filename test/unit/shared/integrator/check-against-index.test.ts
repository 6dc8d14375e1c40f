import { describe, expect, it } from 'vitest';
import { checkAgainstIndex } from '../../../../shared/integrator/check-against-index';
import { proveConsistency } from '../../../../shared/log/consistency-proof';
import { hexOf } from '../../../helpers/index-factories';
import { FakeLineage } from '../../../helpers/integrator-factories';

const LINEAGE = 'lin-floor';

/** The consistency proof (hex) of `lineage`'s tree from `from` to its size. */
async function consistencyOf(lineage: FakeLineage, from: number): Promise<string[]> {
  return (await proveConsistency(from, lineage.records.length, lineage.tree.nodes)).map(hexOf);
}

describe('checkAgainstIndex: the sealer never extends a head behind the deployment index (docs/sealing.md)', () => {
  const honest = () => new FakeLineage(LINEAGE).seal('r-0', 'r-1', 'r-2', 'r-3');

  it('a lineage the index does not hold has no floor, whatever its head', () => {
    expect(checkAgainstIndex(LINEAGE, honest().head(), null)).toEqual([]);
    expect(checkAgainstIndex(LINEAGE, null, null)).toEqual([]);
  });

  it('the indexed head itself, and a head that extends it with a valid proof, may be extended', async () => {
    const lineage = honest();
    expect(checkAgainstIndex(LINEAGE, lineage.head(), lineage.head())).toEqual([]);
    expect(checkAgainstIndex(LINEAGE, lineage.head(4), lineage.head(2), await consistencyOf(lineage, 2))).toEqual([]);
  });

  it('a smaller head (a rollback from a snapshot) is LINEAGE_ROLLBACK, naming both sizes', () => {
    const lineage = honest();
    const findings = checkAgainstIndex(LINEAGE, lineage.head(2), lineage.head(4));
    expect(findings.map((f) => f.kind)).toEqual(['LINEAGE_ROLLBACK']);
    expect(findings[0]?.reason).toContain('size 2');
    expect(findings[0]?.reason).toContain('size 4');
  });

  it('no head at all under an indexed lineage (head item deleted) is LINEAGE_ROLLBACK', () => {
    expect(checkAgainstIndex(LINEAGE, null, honest().head()).map((f) => f.kind)).toEqual(['LINEAGE_ROLLBACK']);
  });

  it('an older generation epoch at a larger size is LINEAGE_ROLLBACK', async () => {
    const lineage = honest();
    const indexed = { ...lineage.head(2), generationEpoch: 3 };
    expect(
      checkAgainstIndex(LINEAGE, lineage.head(4), indexed, await consistencyOf(lineage, 2)).map((f) => f.kind),
    ).toEqual(['LINEAGE_ROLLBACK']);
  });

  it('the indexed size with another root or head record (a second history) is LINEAGE_FORK', () => {
    const lineage = honest();
    const fork = lineage.forkAt(2, 'b').seal('x-2', 'x-3');
    expect(checkAgainstIndex(LINEAGE, fork.head(), lineage.head()).map((f) => f.kind)).toEqual(['LINEAGE_FORK']);
    const otherRecord = { ...lineage.head(), headRecordHash: fork.head().headRecordHash };
    expect(checkAgainstIndex(LINEAGE, otherRecord, lineage.head()).map((f) => f.kind)).toEqual(['LINEAGE_FORK']);
  });

  it('a larger head of another history, or with no or a wrong proof, is HEAD_INCONSISTENT', async () => {
    const lineage = honest();
    const fork = lineage.forkAt(1, 'b').seal('x-1', 'x-2', 'x-3', 'x-4');
    const forged = await consistencyOf(fork, 2);
    expect(checkAgainstIndex(LINEAGE, fork.head(), lineage.head(2), forged).map((f) => f.kind)).toEqual([
      'HEAD_INCONSISTENT',
    ]);
    expect(checkAgainstIndex(LINEAGE, lineage.head(4), lineage.head(2), []).map((f) => f.kind)).toEqual([
      'HEAD_INCONSISTENT',
    ]);
  });
});
