import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import type { ResealClientDeps } from '../../../client/reseal-client';
import { integratedStack } from '../../helpers/integrated-stack';
import { testLineageId } from '../../helpers/writer-factories';
import { runCli } from './run-cli';

const LINEAGE = testLineageId('lin-verify-truncation');

/** `reseal verify --lineage` on a default stack (lineage checkpoints unsigned), by a client with `deps`. */
async function verifyOnDefaultStack(deps: ResealClientDeps = {}) {
  const s = integratedStack({ signLineageCheckpoints: false });
  for (let i = 0; i < 2; i++) await s.send({ lineageId: LINEAGE, residualId: `r-${i}` });
  await s.integrate();
  const client = s.client({ deps });
  return runCli(['verify', '--lineage', LINEAGE], { cwd: tmpdir(), connect: async () => client });
}

describe('reseal verify --lineage says what truncation was checked against, as recall does', () => {
  it('with a checkpoint store: the deployment checkpoint kept in it, never "no kept checkpoint"', async () => {
    const result = await verifyOnDefaultStack({ checkpointStore: new MemoryCheckpointStore() });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /the walk is the index's tree head of 2 records; truncation checked against the deployment checkpoint kept in the checkpoint store \(no lineage checkpoint kept; this one, of \d+ leaves, is no older\)/,
    );
    expect(result.stdout).not.toContain('no kept checkpoint');
  });

  it('without one: NOT checked, and the store suggested for the deployment checkpoint', async () => {
    const result = await verifyOnDefaultStack();
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'truncation NOT checked: nothing kept (the head item carries no signed lineage checkpoint; pass --checkpoint-store to keep the deployment checkpoint, which catches a rollback, or --checkpoint)',
    );
  });
});
