import { describe, expect, it } from 'vitest';
import type { RecallTarget } from '../../../shared/pipeline/recall-target';
import { inProcessTriageBus } from '../../helpers/factories';
import { integratedStack } from '../../helpers/integrated-stack';
import { shrinkHead } from '../../helpers/small-head';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-small-head');
const ENV = { ARCH: 'arm64', HOSTNAME: 'runner-17', REGION: 'eu-west-1', TOOL_VERSION: '1.2.3' };

/**
 * Three writes sealed by the real sealer (heads MAC'd, no signed checkpoint) and integrated, then
 * a fourth sealed past the index; triage in process and a client reading the deployment log.
 * `between` puts the head item back as it was before the fourth write's head move and makes it a
 * small head: the state every append shows between its two writes (docs/sealing.md, "The
 * append's layout"), and the one a crash between them leaves.
 */
async function stack() {
  const s = integratedStack({ signLineageCheckpoints: false });
  for (let i = 0; i < 3; i++) await s.send({ lineageId: LINEAGE, residualId: `r-${i}` });
  await s.integrate();
  const integrated = s.store.headSnapshot(LINEAGE);
  await s.send({ lineageId: LINEAGE, residualId: 'r-3' });
  const client = s.client({ deps: { eventBridge: inProcessTriageBus(s.store, () => s.clock.now) } });
  const recall = (target: RecallTarget) => client.recall({ lineageId: LINEAGE, target, currentEnv: ENV });
  const between = async () => {
    if (integrated === null) throw new Error('no head');
    s.store.restoreHead(LINEAGE, integrated);
    await shrinkHead(s.store, LINEAGE);
  };
  return { ...s, recall, between };
}

describe('recall between an append\'s two writes (docs/sealing.md, "The append\'s layout", "What each reader changes")', () => {
  it("a record stored past the small head is no finding: the latest is the head's last leaf, proven by the index", async () => {
    const s = await stack();
    await s.between();
    const latest = await s.recall({ latest: true });
    expect(latest.end, latest.reason).toBe('TRIAGED');
    expect(latest.verdict).toBe('VERIFIED_INTACT');
    expect(latest.freshness?.state).toBe('PROVEN');
    expect(latest.record?.header.monotonicSequenceNumber).toBe(2);
    const older = await s.recall({ seq: 1 });
    expect(older.end, older.reason).toBe('TRIAGED');
  });

  it('records with no head item in a lineage the index holds: tampering (UNVERIFIED_TAMPER_RISK), for every target', async () => {
    const s = await stack();
    s.store.deleteHead(LINEAGE);
    for (const target of [{ latest: true } as const, { seq: 3 }, { residualId: 'r-3' }, { residualId: 'r-9' }]) {
      const recall = await s.recall(target);
      expect(recall.verdict, JSON.stringify(target)).toBe('UNVERIFIED_TAMPER_RISK');
      expect(recall.end).toBe('NOT_INTACT');
      expect(recall.record).toBeNull();
    }
    expect((await s.recall({ residualId: 'r-9' })).reason).toMatch(/no head item .* the index holds 3 records/);
  });

  it('records with no head item in a lineage the index does not hold (a first append in flight): no such lineage, never tampering', async () => {
    const s = integratedStack({ signLineageCheckpoints: false });
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    s.store.deleteHead(LINEAGE);
    const client = s.client({ deps: { eventBridge: inProcessTriageBus(s.store, () => s.clock.now) } });
    const recall = await client.recall({ lineageId: LINEAGE, target: { latest: true }, currentEnv: ENV });
    expect(recall.verdict, recall.reason).toBeNull();
    expect(recall.end).toBe('NOT_FOUND');
  });
});
