import { describe, expect, it } from 'vitest';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import type { RecallTarget } from '../../../shared/pipeline/recall-target';
import { inProcessTriageBus } from '../../helpers/factories';
import { integratedStack } from '../../helpers/integrated-stack';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-chain-once');
const ENV = { ARCH: 'arm64', HOSTNAME: 'runner-17', REGION: 'eu-west-1', TOOL_VERSION: '1.2.3' };

/**
 * An integrated lineage of three records, triage in process, a client reading the deployment log,
 * and the deployment head reads the client makes, counted through the table fake.
 */
async function countedStack(signLineageCheckpoints: boolean) {
  const s = integratedStack({ signLineageCheckpoints });
  for (let i = 0; i < 3; i++) await s.send({ lineageId: LINEAGE, residualId: `r-${i}` });
  await s.integrate();
  const eventBridge = inProcessTriageBus(s.store, () => s.clock.now);
  const client = s.client({ deps: { eventBridge } });
  const reads = { heads: 0 };
  const readHead = s.deployment.readHead.bind(s.deployment);
  s.deployment.readHead = () => {
    reads.heads += 1;
    return readHead();
  };
  const recall = (target: RecallTarget) => client.recall({ lineageId: LINEAGE, target, currentEnv: ENV });
  return { ...s, client, clientWith: s.client, reads, recall };
}

// docs/deployment-log.md, "Clients": a recall reads the deployment chain before it asks, and checks
// the proven record's residual id under that same deployment checkpoint (item 3), never a second one.
describe('a recall reads the deployment head once, whatever its target', () => {
  for (const signLineageCheckpoints of [true, false]) {
    const heads = signLineageCheckpoints ? 'signed lineage checkpoints' : "heads the sealer MAC'd";
    for (const target of [{ latest: true }, { seq: 1 }, { residualId: 'r-0' }] as const) {
      it(`${JSON.stringify(target)}, ${heads}: one read of the deployment head, and the record PROVEN`, async () => {
        const s = await countedStack(signLineageCheckpoints);
        const recall = await s.recall(target);
        expect(recall.end, recall.reason).toBe('TRIAGED');
        expect(recall.freshness?.state).toBe('PROVEN');
        expect(s.reads.heads).toBe(1);
      });
    }
  }

  for (const signLineageCheckpoints of [true, false]) {
    it(`a walk of the lineage (verify) reads it once too, its head record checked by residual id (${signLineageCheckpoints ? 'signed' : "MAC'd"} heads)`, async () => {
      const s = await countedStack(signLineageCheckpoints);
      const walked = await s.client.verifyLineage(LINEAGE);
      expect(walked.freshness?.state).toBe('PROVEN');
      expect(s.reads.heads).toBe(1);
    });
  }
});

// docs/verifiable-log.md, "Checkpoints the client keeps": the note a chain is answered from is
// compared with the kept one as read; its last leaf (index root and inclusion proof) is read once
// per open, whether or not a checkpoint is kept.
describe('a chain read with a kept deployment checkpoint reads the last leaf once', () => {
  it('an older kept checkpoint, then the chain: one last-leaf read and one head read per recall', async () => {
    const s = await countedStack(false);
    const store = new MemoryCheckpointStore();
    const eventBridge = inProcessTriageBus(s.store, () => s.clock.now);
    const kept = s.clientWith({ deps: { eventBridge, checkpointStore: store } });
    const recall = (target: RecallTarget) => kept.recall({ lineageId: LINEAGE, target, currentEnv: ENV });
    expect((await recall({ latest: true })).freshness?.state).toBe('PROVEN');
    await s.send({ lineageId: LINEAGE, residualId: 'r-3' });
    await s.integrate();
    const leaves = { reads: 0 };
    const readLeafIndexRoot = s.deployment.readLeafIndexRoot.bind(s.deployment);
    s.deployment.readLeafIndexRoot = (index: number) => {
      leaves.reads += 1;
      return readLeafIndexRoot(index);
    };
    s.reads.heads = 0;
    const again = await recall({ latest: true });
    expect(again.freshness?.state, again.reason).toBe('PROVEN');
    expect(s.reads.heads).toBe(1);
    expect(leaves.reads).toBe(1);
  });
});
