import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inProcessRecallClient } from '../../helpers/factories';
import { expectGuarantee } from '../../helpers/guarantees';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { runCli } from './run-cli';

const FIXTURES = join(import.meta.dirname, 'fixtures');

/**
 * A current environment that repeats a key is refused where the CLI reads its text (the
 * `--env` file of `recall` and `triage`), before anything is asked of the stack.
 */
describe('a current environment file that repeats a key', () => {
  it('reseal recall --env: exit 2 naming the key; no RecallRequested is put', async (context) => {
    const store = new InMemoryLineageStore();
    let connected = 0;
    const result = await runCli(['recall', '--lineage', 'lineage-recall-1', '--env', 'env-duplicate-key.txt'], {
      cwd: FIXTURES,
      connect: async () => {
        connected++;
        return inProcessRecallClient(store);
      },
    });
    const named = /NODE_VERSION: duplicate key "NODE_VERSION"/.test(result.stderr);
    expectGuarantee(
      context,
      {
        section: 'faults',
        target: 'recall --env file',
        attack: 'currentEnv repeats a key (the file the CLI reads)',
        reader: 'recall',
        expected: 'exit 2 naming the key; no recall requested',
      },
      `exit ${result.exitCode}${named ? ' naming the key' : ''}; ${store.triageReports.size === 0 ? 'no recall requested' : 'recalled'}`,
    );
    expect(connected).toBe(0);
  });

  it('reseal triage --env (offline): exit 2 naming the key', async (context) => {
    const result = await runCli(['triage', '--manifest', 'manifest.json', '--env', 'env-duplicate-key.txt'], {
      cwd: FIXTURES,
    });
    expectGuarantee(
      context,
      {
        section: 'faults',
        target: 'triage --env file',
        attack: 'currentEnv repeats a key (the file the CLI reads)',
        reader: 'triage (offline)',
        expected: 'exit 2 naming the key',
      },
      `exit ${result.exitCode}${/NODE_VERSION: duplicate key "NODE_VERSION"/.test(result.stderr) ? ' naming the key' : ''}`,
    );
  });
});
