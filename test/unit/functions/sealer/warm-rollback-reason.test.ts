import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../../cli/exit-codes';
import { integratedStack } from '../../../helpers/integrated-stack';
import { testLineageId } from '../../../helpers/writer-factories';
import { runCli } from '../../cli/run-cli';

const LINEAGE = testLineageId('lin-warm-rollback');

// docs/sealing.md, "Rolled back behind a warm sealer": a sealer that signs no lineage checkpoint,
// one write integrated, two more sealed (answered sealed, awaiting integration), then the table
// rolled back to the integrated head (head item put back, the later records and markers deleted).
async function rolledBackBehindWarmSealer() {
  const s = integratedStack({ signLineageCheckpoints: false });
  expect((await s.send({ lineageId: LINEAGE, residualId: 'r-0' })).kind).toBe('SEALED');
  await s.integrate();
  const integrated = s.store.headSnapshot(LINEAGE);
  if (!integrated) throw new Error('no head');
  for (const id of ['r-1', 'r-2']) expect((await s.send({ lineageId: LINEAGE, residualId: id })).kind).toBe('SEALED');
  s.store.restoreHead(LINEAGE, integrated);
  for (const seq of [1, 2]) s.store.deleteRecord(LINEAGE, seq);
  for (const id of ['r-1', 'r-2']) s.store.markers.delete(JSON.stringify([LINEAGE, id]));
  return s;
}

describe('the warm sealer’s rollback conflict and verify --lineage do not contradict each other', () => {
  it('the signed reason says the head went back behind what it sealed, that verify may pass, and what to do', async () => {
    const s = await rolledBackBehindWarmSealer();
    const outcome = await s.send({ lineageId: LINEAGE, residualId: 'r-3' });
    expect(outcome).toEqual({ kind: 'CONFLICT', reason: 'LINEAGE_INCONSISTENT' });
    const reason = s.store.conflicts.at(-1)?.detail ?? '';
    expect(reason).toContain('the stored head went back: it holds 1 records, behind the 3 this sealer sealed');
    expect(reason).toContain('records sealed after seq 0 were removed, or the table was restored to an earlier state');
    expect(reason).toContain('records removed before they were integrated are not there to check');
    expect(reason).toContain('it may say VERIFIED_INTACT');
    expect(reason).toContain("restore the lineage's items to the head of 3 records");
    expect(reason).not.toMatch(/retrying cannot help|run reseal verify --lineage/);
    // What verify --lineage then says, as the reason told: the integrated prefix is intact.
    const verify = await runCli(['verify', '--lineage', LINEAGE], { cwd: tmpdir(), connect: async () => s.client() });
    expect(verify.exitCode, verify.stdout + verify.stderr).toBe(ExitCode.OK);
    expect(verify.stdout).toMatch(/verdict: +VERIFIED_INTACT/);
  }, 120_000);
});
