import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckpointStore } from '../../../client/checkpoint-store';
import { DeploymentChainReader } from '../../../client/deployment-chain-reader';
import { FileCheckpointStore } from '../../../client/file-checkpoint-store';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import { parseCheckpointBody } from '../../../shared/log/checkpoint';
import { parseSignedNote } from '../../../shared/log/signed-note';
import { buildManifest } from '../../../shared/triage/build-manifest';
import { inProcessRecallClient } from '../../helpers/factories';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { integratedStack, unwitnessedTestPolicy } from '../../helpers/integrated-stack';
import { appendSealed, TEST_LOG_NAME } from '../../helpers/pipeline-keys';
import { buildChain } from '../../helpers/seal-factories';

const sizeOf = (note: string | null) => (note === null ? null : parseCheckpointBody(parseSignedNote(note).text).size);

// docs/verifiable-log.md, "Checkpoints the client keeps" (concurrency): saves of one store run one
// at a time on a fresh read, each through a temporary file of its own, and a save decided on an
// older read never moves a key back.
describe('FileCheckpointStore concurrent saves', () => {
  let directory: string | null = null;
  afterEach(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
    directory = null;
  });

  it('keeps valid JSON with every key after 50 rounds of two concurrent saves', async () => {
    directory = await mkdtemp(join(tmpdir(), 'reseal-kept-'));
    const path = join(directory, 'checkpoints.json');
    const store = new FileCheckpointStore(path);
    for (let round = 0; round < 50; round += 1) {
      await Promise.all([
        store.save('reseal/s', `deployment-${round}`),
        store.save(`reseal/s/lin-${round}`, 'lineage'),
      ]);
      const file = JSON.parse(await readFile(path, 'utf8'));
      expect(file.checkpoints['reseal/s']).toBe(`deployment-${round}`);
      for (let earlier = 0; earlier <= round; earlier += 1)
        expect(file.checkpoints[`reseal/s/lin-${earlier}`]).toBe('lineage');
    }
    expect(await readdir(directory)).toEqual(['checkpoints.json']);
  });

  it('keeps the note in the file when `replaces` refuses it, read right before the write', async () => {
    directory = await mkdtemp(join(tmpdir(), 'reseal-kept-'));
    const store = new FileCheckpointStore(join(directory, 'checkpoints.json'));
    await Promise.all([
      store.save('reseal/s', 'newer'),
      store.save('reseal/s', 'older', (current) => current === null),
    ]);
    expect(await store.load('reseal/s')).toBe('newer');
  });

  it('a save that fails does not stop the saves queued after it', async () => {
    directory = await mkdtemp(join(tmpdir(), 'reseal-kept-'));
    const store = new FileCheckpointStore(join(directory, 'checkpoints.json'));
    const failing = store.save('reseal/s', 'x', () => {
      throw new Error('refused');
    });
    const next = store.save('reseal/s', 'kept');
    await expect(failing).rejects.toThrow('refused');
    await next;
    expect(await store.load('reseal/s')).toBe('kept');
  });
});

describe('DeploymentChainReader saving a deployment checkpoint concurrently with a newer one', () => {
  it('does not replace a newer kept checkpoint saved after its own read', async () => {
    const stack = integratedStack({ signLineageCheckpoints: false });
    const heads = [];
    for (const residualId of ['r-1', 'r-2', 'r-3']) {
      await stack.send({ residualId });
      await stack.integrate();
      heads.push(stack.deployment.head);
    }
    const policy = await unwitnessedTestPolicy();
    const reader = (kept: CheckpointStore) =>
      new DeploymentChainReader({
        log: stack.deployment,
        index: stack.index,
        policy: async () => policy,
        nowMs: () => stack.clock.now,
        kept,
      });
    const lineageId = stack.request({}).lineageId;
    const store = new MemoryCheckpointStore();
    // Another reader keeps the size-3 checkpoint between this reader's load (it saw nothing) and its save.
    await reader(store).read({ lineageId });
    expect(sizeOf(await store.load(TEST_LOG_NAME))).toBe(3);
    const staleLoad: CheckpointStore = {
      load: async () => null,
      save: (key, note, replaces) => store.save(key, note, replaces),
    };
    stack.deployment.head = heads[1] ?? null;
    await reader(staleLoad).read({ lineageId });
    expect(sizeOf(await store.load(TEST_LOG_NAME))).toBe(3);
  });
});

describe('ResealClient keeping a lineage checkpoint concurrently with a newer one', () => {
  it('does not replace a newer kept checkpoint saved after its own read', async () => {
    const lineageId = 'lineage-concurrent-keep';
    const manifest = buildManifest({ env: { ARCH: 'arm64' }, structuralKeys: ['ARCH'], claimDependencyMap: {} });
    const table = new InMemoryLineageStore();
    const { records } = await buildChain(3, { lineageId, inputs: () => ({ manifest }) });
    await appendSealed(table, records.slice(0, 2));
    const older = table.headSnapshot(lineageId);
    await appendSealed(table, records.slice(2));
    const store = new MemoryCheckpointStore();
    const recall = (checkpointStore: CheckpointStore) =>
      inProcessRecallClient(table, { checkpointStore }).recall({
        lineageId,
        target: { latest: true },
        currentEnv: { ARCH: 'arm64' },
      });
    await recall(store);
    const keptNewer = await store.load(`${TEST_LOG_NAME}/${lineageId}`);
    expect(keptNewer).not.toBeNull();
    if (!older) throw new Error('no head');
    table.restoreHead(lineageId, older);
    table.deleteRecord(lineageId, 2);
    // This client's read saw nothing kept; the newer checkpoint was kept before its save.
    const staleLoad: CheckpointStore = {
      load: async () => null,
      save: (key, note, replaces) => store.save(key, note, replaces),
    };
    await recall(staleLoad);
    expect(await store.load(`${TEST_LOG_NAME}/${lineageId}`)).toBe(keptNewer);
  });
});
