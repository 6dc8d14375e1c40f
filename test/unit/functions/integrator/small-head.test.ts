import { describe, expect, it } from 'vitest';
import { readHeldLineages } from '../../../../shared/integrator/read-held-lineages';
import { claimedLogState, headStateOf } from '../../../../shared/log/log-state';
import { inProcessIntegration } from '../../../helpers/in-process-integration';
import { shrinkHead } from '../../../helpers/small-head';
import { testLineageId } from '../../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-small-head');

/** The real sealer (heads MAC'd, no signed checkpoint) and integrator, in process, over one table. */
function stack() {
  const table = inProcessIntegration({ sealer: { signLineageCheckpoints: false } });
  const integrator = table.integrator();
  const integrate = () => integrator.integrate(table.notices.splice(0));
  const held = async (lineageId: string) => {
    const root = Buffer.from(table.deployment.head?.indexRoot ?? '', 'hex');
    return (await readHeldLineages(table.index, root, [lineageId])).get(lineageId) ?? null;
  };
  return { ...table, integrate, held };
}

describe('the integrator reads a small head by the attributes its MAC covers (docs/sealing.md, "The append\'s layout", "What each reader changes")', () => {
  it("a small head the sealer MAC'd is integrated: the index holds its tree, head record, epoch and policy digest", async () => {
    const s = stack();
    for (const residualId of ['r-0', 'r-1', 'r-2']) await s.write(LINEAGE, residualId);
    const small = await shrinkHead(s.store, LINEAGE, s.sealerDeps.anchor);
    const report = await s.integrate();
    expect(report.evidence).toEqual([]);
    expect(report.integrated).toEqual([LINEAGE]);
    const head = headStateOf(claimedLogState(small, LINEAGE));
    expect(await s.held(LINEAGE)).toEqual({
      treeSize: 3,
      rootHash: head?.rootHash,
      headRecordHash: small.head.recordHash,
      generationEpoch: small.head.generationEpoch,
      writerPolicyDigest: head?.writerPolicyDigest,
    });
    expect(head?.writerPolicyDigest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a small head with an attribute edited is not integrated: its head-state MAC does not verify', async () => {
    const s = stack();
    for (const residualId of ['r-0', 'r-1']) await s.write(LINEAGE, residualId);
    await shrinkHead(s.store, LINEAGE, s.sealerDeps.anchor);
    const head = s.store.heads.get(LINEAGE);
    if (!head) throw new Error('no head');
    s.store.setHead({ ...head, generationEpoch: head.generationEpoch + 1 });
    const report = await s.integrate();
    expect(report.integrated).toEqual([]);
    expect(report.evidence.map((e) => e.kind)).toContain('HEAD_UNAUTHENTICATED');
    expect(s.deployment.head).toBeNull(); // nothing integrated, nothing signed
  });
});
