import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckpointStore } from '../../../client/checkpoint-store';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import type { integratedStack } from '../../helpers/integrated-stack';
import { rolledBackTable } from '../../helpers/rolled-back-table';
import { testLineageId } from '../../helpers/writer-factories';
import { runCli } from './run-cli';

const LINEAGE = testLineageId('lin-cli-kept-deploy');

/** `reseal <args>` against `s`'s client, keeping checkpoints in `kept` (as `--checkpoint-store` would). */
function cliOn(s: ReturnType<typeof integratedStack>, kept: CheckpointStore | null, args: string[]) {
  const cwd = mkdtempSync(join(tmpdir(), 'reseal-kept-deploy-'));
  return runCli(args, { cwd, connect: async () => s.client(kept ? { deps: { checkpointStore: kept } } : {}) });
}

// With heads MAC'd there is no signed lineage checkpoint to keep: the store keeps the deployment
// checkpoint (docs/verifiable-log.md, "Checkpoints the client keeps"), so a table put back whole
// (lineage, deployment head and index together) behind what the client saw is exit 20.
describe('reseal verify / inspect --lineage with a store that kept a newer deployment checkpoint', () => {
  const rolledBackWhole = (kept: CheckpointStore) =>
    rolledBackTable(LINEAGE, async (s) => {
      const seen = await cliOn(s, kept, ['verify', '--lineage', LINEAGE, '--json']);
      expect(seen.exitCode, seen.stderr).toBe(0);
    });

  it('exit 20, the chain refused DEPLOYMENT_ROLLBACK naming both sizes; without the store, exit 0 (the rollback unseen)', async () => {
    const kept = new MemoryCheckpointStore();
    const s = await rolledBackWhole(kept);
    for (const command of ['verify', 'inspect']) {
      const cold = await cliOn(s, null, [command, '--lineage', LINEAGE, '--json']);
      expect(cold.exitCode, cold.stderr).toBe(0);
      const json = await cliOn(s, kept, [command, '--lineage', LINEAGE, '--json']);
      expect(json.exitCode, json.stderr).toBe(20);
      expect(JSON.parse(json.stdout)).toMatchObject({
        verdict: 'UNVERIFIED_TAMPER_RISK',
        freshness: { state: 'REFUSED' },
      });
      const text = await cliOn(s, kept, [command, '--lineage', LINEAGE]);
      expect(text.exitCode, text.stderr).toBe(20);
      expect(text.stdout).toMatch(/DEPLOYMENT_ROLLBACK.*current checkpoint of 1 is older than the kept one of 2/);
    }
  });
});
