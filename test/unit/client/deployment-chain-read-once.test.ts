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
    // The note is of the head's size: the head's own index root and frontier prove its last leaf.
    expect(leaves.reads).toBe(0);
  });
});

// docs/deployment-log.md, "Storage": a note of the head's size has its last leaf in the head item
// (its index root and frontier); a head whose fields do not lead to the note's root has the leaf
// and nodes read as stored, so an edited field costs reads, never a refusal.
describe("the last leaf from the deployment head's own fields", () => {
  it('an honest head: no leaf item and no node read, the record PROVEN', async () => {
    const s = await countedStack(false);
    let leafReads = 0;
    let nodeReads = 0;
    const { readLeafIndexRoot, readNodes } = s.deployment;
    s.deployment.readLeafIndexRoot = (index: number) => {
      leafReads += 1;
      return readLeafIndexRoot.call(s.deployment, index);
    };
    s.deployment.readNodes = (refs) => {
      nodeReads += 1;
      return readNodes.call(s.deployment, refs);
    };
    const recall = await s.recall({ latest: true });
    expect(recall.freshness?.state, recall.reason).toBe('PROVEN');
    expect([leafReads, nodeReads]).toEqual([0, 0]);
  });

  for (const edit of ['frontier', 'indexRoot'] as const) {
    it(`a head whose ${edit} was edited: the leaf item and nodes are read, and the record is PROVEN as before`, async () => {
      const s = await countedStack(false);
      await s.send({ lineageId: LINEAGE, residualId: 'r-3' });
      await s.integrate();
      const head = s.deployment.head;
      if (!head || head.frontier.length === 0) throw new Error('no head with a frontier');
      const other = 'ab'.repeat(32);
      s.deployment.head =
        edit === 'frontier' ? { ...head, frontier: [other, ...head.frontier.slice(1)] } : { ...head, indexRoot: other };
      let leafReads = 0;
      const { readLeafIndexRoot } = s.deployment;
      s.deployment.readLeafIndexRoot = (index: number) => {
        leafReads += 1;
        return readLeafIndexRoot.call(s.deployment, index);
      };
      const recall = await s.recall({ latest: true });
      expect(recall.freshness?.state, recall.reason).toBe('PROVEN');
      expect(leafReads).toBe(1);
    });
  }
});

// docs/deployment-log.md, "Clients": a recall reads the deployment head eventually consistent; a
// copy older than the kept deployment checkpoint is read again strongly, never refused as a rollback.
describe('a recall reads the deployment head eventually consistent', () => {
  it('the copy serves when it stands: no strongly consistent head read', async () => {
    const s = await countedStack(false);
    let strong = 0;
    const { readHead } = s.deployment;
    s.deployment.peekHead = () => readHead.call(s.deployment);
    s.deployment.readHead = () => {
      strong += 1;
      return readHead.call(s.deployment);
    };
    const recall = await s.recall({ latest: true });
    expect(recall.freshness?.state, recall.reason).toBe('PROVEN');
    expect(strong).toBe(0);
  });

  it('a stale copy older than the kept checkpoint: read again strongly, PROVEN, no DEPLOYMENT_ROLLBACK', async () => {
    const s = await countedStack(false);
    const store = new MemoryCheckpointStore();
    const eventBridge = inProcessTriageBus(s.store, () => s.clock.now);
    const kept = s.clientWith({ deps: { eventBridge, checkpointStore: store } });
    const stale = structuredClone(s.deployment.head);
    await s.send({ lineageId: LINEAGE, residualId: 'r-3' });
    await s.integrate();
    const recall = () => kept.recall({ lineageId: LINEAGE, target: { latest: true }, currentEnv: ENV });
    expect((await recall()).freshness?.state).toBe('PROVEN'); // keeps the newer deployment checkpoint
    s.deployment.peekHead = async () => structuredClone(stale);
    const again = await recall();
    expect(again.freshness?.state, again.reason).toBe('PROVEN');
    expect(again.record?.header.residualId).toBe('r-3');
  });
});
