import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../cli/exit-codes';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import { ResealClient, type ResealClientDeps } from '../../../client/reseal-client';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { integratedStack } from '../../helpers/integrated-stack';
import { appendSealed, TEST_CLIENT_KEYS } from '../../helpers/pipeline-keys';
import { buildChain, TEST_LINEAGE_ID, testAnchor } from '../../helpers/seal-factories';
import { testLineageId } from '../../helpers/writer-factories';
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

describe('verify --lineage ties the MAC walk to the signed log (review)', () => {
  async function sealed() {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(3);
    await appendSealed(store, records.slice(0, 2));
    const older = store.headSnapshot(TEST_LINEAGE_ID);
    await appendSealed(store, records.slice(2));
    return { store, older };
  }

  it('an intact lineage: exit 0, and the note says the walk is the signed log', async () => {
    const { store } = await sealed();
    const result = await runCli(['verify', '--lineage', TEST_LINEAGE_ID], withStore(store));
    expect(result.exitCode).toBe(ExitCode.OK);
    expect(result.stdout).toContain("the walk is the signed log's 3 records");
  });

  it('an edited frontier (every later append would be refused) is exit 20, not intact', async () => {
    const { store } = await sealed();
    store.setLogHead(TEST_LINEAGE_ID, (log) => ({ ...log, frontier: ['0'.repeat(64)] }));
    const result = await runCli(['verify', '--lineage', TEST_LINEAGE_ID], withStore(store));
    expect(result.exitCode).toBe(ExitCode.TAMPER);
    expect(result.stdout).toContain('does not authenticate');
  });

  it('another lineage’s checkpoint swapped into the head item is exit 20', async () => {
    const { store } = await sealed();
    const other = new InMemoryLineageStore();
    const { records } = await buildChain(3, { lineageId: 'lineage-other' });
    const note = await appendSealed(other, records);
    store.setLogHead(TEST_LINEAGE_ID, (log) => ({ ...log, checkpoint: note }));
    const result = await runCli(['verify', '--lineage', TEST_LINEAGE_ID], withStore(store));
    expect(result.exitCode).toBe(ExitCode.TAMPER);
  });

  it('a rolled-back head item with its records (a consistent older state) is exit 20 against a kept checkpoint', async () => {
    const { store, older } = await sealed();
    const kept = new MemoryCheckpointStore();
    const connect = async () =>
      new ResealClient(OUTPUTS, { ...TEST_CLIENT_KEYS, store, anchor: testAnchor(), checkpointStore: kept });
    expect((await runCli(['verify', '--lineage', TEST_LINEAGE_ID], { cwd: tmpdir(), connect })).exitCode).toBe(0);
    if (!older) throw new Error('no head');
    store.restoreHead(TEST_LINEAGE_ID, older);
    store.deleteRecord(TEST_LINEAGE_ID, 2);
    const result = await runCli(['verify', '--lineage', TEST_LINEAGE_ID], { cwd: tmpdir(), connect });
    expect(result.exitCode).toBe(ExitCode.TAMPER);
    expect(result.stdout).toContain('TRUNCATION_DETECTED');
    // The failure cites the kept checkpoint: so does the checkpoint line, never "(none …)".
    expect(result.stdout).toMatch(
      /^checkpoint: +\(none given; checked against the kept signed checkpoint of 3 records/m,
    );
    const json = await runCli(['verify', '--lineage', TEST_LINEAGE_ID, '--json'], { cwd: tmpdir(), connect });
    expect(JSON.parse(json.stdout)).toMatchObject({ checkpoint: null, keptCheckpoint: { size: 3 } });
  });
});

describe('inspect --lineage says whether truncation was checked', () => {
  it('without a kept checkpoint or --checkpoint: "truncation: NOT checked" (text) and truncationChecked false (--json)', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(2);
    await appendSealed(store, records);
    const text = await runCli(['inspect', '--lineage', TEST_LINEAGE_ID], withStore(store));
    expect(text.exitCode).toBe(ExitCode.OK);
    expect(text.stdout).toMatch(
      /^truncation: +NOT checked: no trusted checkpoint \(pass --checkpoint-store to keep one, or --checkpoint\)$/m,
    );
    const json = await runCli(['inspect', '--lineage', TEST_LINEAGE_ID, '--json'], withStore(store));
    expect(JSON.parse(json.stdout)).toMatchObject({ truncationChecked: false });
  });

  it('with a kept checkpoint or --checkpoint: checked, and against what', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(2);
    await appendSealed(store, records);
    const kept = new MemoryCheckpointStore();
    const connect = async () =>
      new ResealClient(OUTPUTS, { ...TEST_CLIENT_KEYS, store, anchor: testAnchor(), checkpointStore: kept });
    await runCli(['inspect', '--lineage', TEST_LINEAGE_ID], { cwd: tmpdir(), connect }); // keeps the checkpoint
    const again = await runCli(['inspect', '--lineage', TEST_LINEAGE_ID, '--json'], { cwd: tmpdir(), connect });
    expect(JSON.parse(again.stdout)).toMatchObject({ truncationChecked: true });
    const text = await runCli(['inspect', '--lineage', TEST_LINEAGE_ID], { cwd: tmpdir(), connect });
    expect(text.stdout).toMatch(/^truncation: +checked against the kept checkpoint \(2 records\)$/m);
    const head = `1:${(records[1] as { recordHash: string }).recordHash}`;
    const given = await runCli(['inspect', '--lineage', TEST_LINEAGE_ID, '--checkpoint', head], withStore(store));
    expect(given.stdout).toMatch(/^truncation: +checked against --checkpoint \(seq 1\)$/m);
  });
});

describe('inspect --lineage on a default stack (lineage checkpoints unsigned) words truncation as recall does', () => {
  const LINEAGE = testLineageId('lin-inspect-truncation');

  async function inspectOnDefaultStack(deps: ResealClientDeps = {}, json = false) {
    const s = integratedStack({ signLineageCheckpoints: false });
    for (let i = 0; i < 2; i++) await s.send({ lineageId: LINEAGE, residualId: `r-${i}` });
    await s.integrate();
    const client = s.client({ deps });
    const args = ['inspect', '--lineage', LINEAGE, ...(json ? ['--json'] : [])];
    return runCli(args, { cwd: tmpdir(), connect: async () => client });
  }

  it('with a checkpoint store: checked against the deployment checkpoint kept in it, never "no kept checkpoint"', async () => {
    const result = await inspectOnDefaultStack({ checkpointStore: new MemoryCheckpointStore() });
    expect(result.exitCode, result.stderr).toBe(ExitCode.OK);
    expect(result.stdout).toMatch(
      /^truncation: +checked against the deployment checkpoint kept in the checkpoint store \(no lineage checkpoint kept; this one, of \d+ leaves, is no older\)$/m,
    );
    expect(result.stdout).not.toContain('no kept checkpoint');
    // --json: truncationChecked still counts lineage checkpoints only; rollbackChecked says what the line says.
    const json = await inspectOnDefaultStack({ checkpointStore: new MemoryCheckpointStore() }, true);
    expect(JSON.parse(json.stdout)).toMatchObject({
      truncationChecked: false,
      rollbackChecked: true,
      rollbackCheckedAgainstDeployment: { kept: true, witnessed: false, windowSeconds: null },
    });
  });

  it('without one: NOT checked, and the store suggested for the deployment checkpoint it would keep', async () => {
    const result = await inspectOnDefaultStack();
    expect(result.exitCode, result.stderr).toBe(ExitCode.OK);
    expect(result.stdout).toMatch(
      /^truncation: +NOT checked: nothing kept \(the head item carries no signed lineage checkpoint; pass --checkpoint-store to keep the deployment checkpoint, which catches a rollback, or --checkpoint\)$/m,
    );
    const json = await inspectOnDefaultStack({}, true);
    expect(JSON.parse(json.stdout)).toMatchObject({
      truncationChecked: false,
      rollbackChecked: false,
      rollbackCheckedAgainstDeployment: null,
    });
  });
});
