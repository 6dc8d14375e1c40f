import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../cli/exit-codes';
import { ResealClient } from '../../../client/reseal-client';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { appendSealed, TEST_CLIENT_KEYS } from '../../helpers/pipeline-keys';
import { buildChain, TEST_LINEAGE_ID, testAnchor } from '../../helpers/seal-factories';
import { runCli } from './run-cli';

const OUTPUTS = TEST_CLIENT_OUTPUTS;

function withStore(store: InMemoryLineageStore) {
  return {
    cwd: tmpdir(),
    connect: async () => new ResealClient(OUTPUTS, { ...TEST_CLIENT_KEYS, store, anchor: testAnchor() }),
  };
}

describe('online commands on a lineage with neither records nor head', () => {
  it.each([['verify'], ['inspect'], ['export']])(
    '%s --lineage never-existed: "not found", exit 2 (not VERIFIED_INTACT)',
    async (command) => {
      const result = await runCli([command, '--lineage', 'never-existed'], withStore(new InMemoryLineageStore()));
      expect(result.exitCode).toBe(ExitCode.BAD_INPUT);
      expect(result.stderr).toContain('error: lineage never-existed not found: no records and no head');
      expect(result.stdout).not.toContain('VERIFIED_INTACT');
    },
  );

  it('verify --lineage with the HEAD deleted: records without a head are tamper (exit 20)', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(3);
    await appendSealed(store, records);
    store.deleteHead(TEST_LINEAGE_ID);
    const result = await runCli(['verify', '--lineage', TEST_LINEAGE_ID], withStore(store));
    expect(result.exitCode).toBe(ExitCode.TAMPER);
    expect(result.stdout).toContain('LINEAGE_BROKEN');
  });

  it('inspect --lineage --checkpoint on a wiped lineage is TRUNCATION_DETECTED (exit 20), as verify and recall say', async () => {
    const result = await runCli(
      ['inspect', '--lineage', 'wiped', '--checkpoint', `3:${'a'.repeat(64)}`],
      withStore(new InMemoryLineageStore()),
    );
    expect(result.exitCode).toBe(ExitCode.TAMPER);
    expect(result.stderr).toContain('TRUNCATION_DETECTED');
  });
});
