import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckpointStore } from '../../../client/checkpoint-store';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import type { RecallTarget } from '../../../shared/pipeline/recall-target';
import { inProcessTriageBus } from '../../helpers/factories';
import { integratedStack } from '../../helpers/integrated-stack';
import { testLineageId } from '../../helpers/writer-factories';
import { runCli } from './run-cli';

const LINEAGE = testLineageId('lin-deleted-head-kept');
const ENV = { ARCH: 'arm64', HOSTNAME: 'runner-17', REGION: 'eu-west-1', TOOL_VERSION: '1.2.3' };

/**
 * Two writes sealed by a sealer that still signs lineage checkpoints (compatible heads), not
 * integrated; a client with `kept` walks the lineage and keeps its signed checkpoint (2 records);
 * then the table writer deletes the head item, leaving the records.
 */
async function deletedHead(kept: CheckpointStore) {
  const s = integratedStack({ signLineageCheckpoints: true });
  for (let i = 0; i < 2; i++) await s.send({ lineageId: LINEAGE, residualId: `r-${i}` });
  const clientWith = (store: CheckpointStore | null) =>
    s.client({
      deps: {
        eventBridge: inProcessTriageBus(s.store, () => s.clock.now),
        ...(store ? { checkpointStore: store } : {}),
      },
    });
  expect((await clientWith(kept).verifyStoredLineage(LINEAGE)).verification.verdict).toBe('VERIFIED_INTACT');
  expect((await clientWith(kept).keptCheckpoint(LINEAGE))?.size).toBe(2);
  s.store.deleteHead(LINEAGE);
  const cli = (store: CheckpointStore | null, args: string[]) =>
    runCli(args, { cwd: mkdtempSync(join(tmpdir(), 'reseal-deleted-head-')), connect: async () => clientWith(store) });
  return { ...s, clientWith, cli };
}

// docs/verifiable-log.md, "Verifying a whole lineage": records with no head item read as a first
// append in flight (awaiting integration) only where nothing this reader kept saw the head.
describe('a deleted head item after the client kept a checkpoint of the lineage (records left, not integrated)', () => {
  it('the walks and recalls of the client that kept it report TRUNCATION_DETECTED; a client without it reads awaiting integration', async () => {
    const kept = new MemoryCheckpointStore();
    const s = await deletedHead(kept);
    const cold = await s.clientWith(null).verifyStoredLineage(LINEAGE);
    expect(cold.indexed?.state).toBe('SEALED_AWAITING_INTEGRATION');
    const client = s.clientWith(kept);
    for (const walked of [
      await client.verifyStoredLineage(LINEAGE),
      (await client.readVerifiedLineage(LINEAGE)).walked,
    ]) {
      expect(walked.verification.verdict, walked.verification.firstFailure?.reason).toBe('TRUNCATION_DETECTED');
      expect(walked.verification.firstFailure?.reason).toMatch(
        /^log: truncated: records up to seq 1 are stored without a head item, but the kept checkpoint saw its head \(2 records\): head deleted/,
      );
    }
    for (const target of [{ latest: true }, { seq: 1 }, { residualId: 'r-1' }] as RecallTarget[]) {
      const recall = await client.recall({ lineageId: LINEAGE, target, currentEnv: ENV });
      expect(recall.verdict, JSON.stringify(target)).toBe('TRUNCATION_DETECTED');
    }
  });

  it('reseal verify / inspect --lineage with the store exit 20 TRUNCATION_DETECTED; without it, exit 3 (awaiting integration)', async () => {
    const kept = new MemoryCheckpointStore();
    const s = await deletedHead(kept);
    for (const command of ['verify', 'inspect']) {
      const cold = await s.cli(null, [command, '--lineage', LINEAGE, '--json']);
      expect(cold.exitCode, cold.stderr).toBe(3);
      const run = await s.cli(kept, [command, '--lineage', LINEAGE, '--json']);
      expect(run.exitCode, run.stderr).toBe(20);
      expect(JSON.parse(run.stdout)).toMatchObject({ verdict: 'TRUNCATION_DETECTED' });
    }
  });
});
