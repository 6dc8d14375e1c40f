import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { integratedStack } from '../../helpers/integrated-stack';
import { rolledBackLineage } from '../../helpers/rolled-back-lineage';
import { testLineageId } from '../../helpers/writer-factories';
import { runCli } from './run-cli';

const LINEAGE = testLineageId('lin-cli-walk-fresh');

/** `reseal <args>` against `s`'s client. */
function cliOn(s: ReturnType<typeof integratedStack>, args: string[]) {
  const cwd = mkdtempSync(join(tmpdir(), 'reseal-walk-fresh-'));
  return runCli(args, { cwd, connect: async () => s.client() });
}

// `verify --lineage` and `inspect --lineage` place the verified head against the deployment log
// (docs/cli.md, "Freshness"), as `recall` does: a rolled-back lineage is exit 20, never intact.
describe('reseal verify --lineage / inspect --lineage: freshness of the verified head', () => {
  it('a lineage rolled back behind the index: UNVERIFIED_TAMPER_RISK, freshness NOT_NEWEST, exit 20 (text and --json)', async () => {
    const s = await rolledBackLineage(LINEAGE);
    for (const command of ['verify', 'inspect']) {
      const json = await cliOn(s, [command, '--lineage', LINEAGE, '--json']);
      expect(json.exitCode, json.stderr).toBe(20);
      expect(JSON.parse(json.stdout)).toMatchObject({
        verdict: 'UNVERIFIED_TAMPER_RISK',
        freshness: { format: 'reseal.freshness/1', state: 'NOT_NEWEST', checkpointSize: 1, witnessing: 'UNWITNESSED' },
      });
      const text = await cliOn(s, [command, '--lineage', LINEAGE]);
      expect(text.exitCode, text.stderr).toBe(20);
      expect(text.stdout).toMatch(/freshness:\s+NOT_NEWEST as of deployment checkpoint 1 .*not the newest/);
    }
  });

  it('an intact lineage the index covers: VERIFIED_INTACT, freshness PROVEN, exit 0', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.integrate();
    for (const command of ['verify', 'inspect']) {
      const json = await cliOn(s, [command, '--lineage', LINEAGE, '--json']);
      expect(json.exitCode, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ verdict: 'VERIFIED_INTACT', freshness: { state: 'PROVEN' } });
    }
  });
});
