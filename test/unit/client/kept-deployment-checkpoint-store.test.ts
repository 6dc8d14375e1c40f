import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckpointStore } from '../../../client/checkpoint-store';
import { DeploymentChainReader } from '../../../client/deployment-chain-reader';
import { CheckpointFileError } from '../../../client/errors';
import { FileCheckpointStore } from '../../../client/file-checkpoint-store';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import { parseCheckpointBody } from '../../../shared/log/checkpoint';
import { signCheckpoint } from '../../../shared/log/sign-checkpoint';
import { parseSignedNote } from '../../../shared/log/signed-note';
import { integratedStack, unwitnessedTestPolicy } from '../../helpers/integrated-stack';
import { TEST_LOG_NAME, testLogSigner } from '../../helpers/pipeline-keys';

const sizeOf = (note: string | null) => (note === null ? null : parseCheckpointBody(parseSignedNote(note).text).size);

// The checkpoint store keeps the newest deployment checkpoint the client authenticated, and every
// chain is compared with it first (docs/verifiable-log.md, "Checkpoints the client keeps"): a
// table writer who puts an older state back (the heads MAC'd, no signed lineage checkpoint to keep)
// is refused, never answered PROVEN.
describe('DeploymentChainReader with a checkpoint store (kept deployment checkpoints)', () => {
  async function stackAfter(residualIds: readonly string[]) {
    const stack = integratedStack({ signLineageCheckpoints: false });
    const heads = [];
    for (const residualId of residualIds) {
      await stack.send({ residualId });
      await stack.integrate();
      heads.push(stack.deployment.head);
    }
    const policy = await unwitnessedTestPolicy();
    const reader = (kept: CheckpointStore | null) =>
      new DeploymentChainReader({
        log: stack.deployment,
        index: stack.index,
        policy: async () => policy,
        nowMs: () => stack.clock.now,
        kept,
      });
    return { stack, heads, reader, lineageId: stack.request({}).lineageId };
  }

  it('keeps the first authenticated deployment checkpoint under the log origin, then the newer one', async () => {
    const { stack, reader, lineageId } = await stackAfter(['r-1', 'r-2']);
    const kept = new MemoryCheckpointStore();
    expect(await reader(kept).read({ lineageId })).toMatchObject({ kind: 'PROVEN', checkpoint: { size: 2 } });
    expect(sizeOf(await kept.load(TEST_LOG_NAME))).toBe(2);
    await stack.send({ residualId: 'r-3' });
    await stack.integrate();
    expect(await reader(kept).read({ lineageId })).toMatchObject({ kind: 'PROVEN', checkpoint: { size: 3 } });
    expect(sizeOf(await kept.load(TEST_LOG_NAME))).toBe(3);
  });

  it('refuses an older deployment head put back (DEPLOYMENT_ROLLBACK, both sizes named); without the store it reads PROVEN', async () => {
    const { stack, heads, reader, lineageId } = await stackAfter(['r-1', 'r-2', 'r-3']);
    const kept = new MemoryCheckpointStore();
    await reader(kept).read({ lineageId });
    stack.deployment.head = heads[0] ?? null;
    // The attack works on a client that keeps nothing: the rolled-back index is a valid chain.
    expect(await reader(null).read({ lineageId })).toMatchObject({ kind: 'PROVEN', lineage: { treeSize: 1 } });
    const chain = await reader(kept).read({ lineageId, residualId: 'r-1' });
    expect(chain).toMatchObject({ kind: 'REFUSED', refusal: 'DEPLOYMENT_ROLLBACK' });
    expect(chain.kind === 'REFUSED' && chain.reason).toMatch(/current checkpoint of 1 is older than the kept one of 3/);
    // The kept checkpoint is not replaced by the older one.
    expect(sizeOf(await kept.load(TEST_LOG_NAME))).toBe(3);
  });

  it('under quorum none, a kept head larger than the current one says plainly what may have happened and what to do', async () => {
    // A fresh client shown a head of 3 (a replayed head of a history since lost, or the newest one),
    // then the table's head of 1: no witness dates either, so the client refuses until the log passes 3.
    const { stack, heads, reader, lineageId } = await stackAfter(['r-1', 'r-2', 'r-3']);
    const kept = new MemoryCheckpointStore();
    await reader(kept).read({ lineageId });
    stack.deployment.head = heads[0] ?? null;
    const chain = await reader(kept).read({ lineageId });
    expect(chain).toMatchObject({ kind: 'REFUSED', refusal: 'DEPLOYMENT_ROLLBACK' });
    const reason = chain.kind === 'REFUSED' ? chain.reason : '';
    expect(reason).toMatch(/Under quorum none no witness dates either checkpoint/);
    expect(reason).toMatch(/a head this client was shown and kept of a history since lost/);
    expect(reason).toMatch(/every read of this log is refused until the current history grows past 3/);
    expect(reason).toContain(`removes the key ${TEST_LOG_NAME} from the checkpoint store`);
    expect(reason).toMatch(/if not, treat the table as rolled back$/);
  });

  it('refuses a deleted deployment head once a checkpoint was kept (never "nothing integrated yet")', async () => {
    const { stack, reader, lineageId } = await stackAfter(['r-1']);
    const kept = new MemoryCheckpointStore();
    await reader(kept).read({ lineageId });
    stack.deployment.head = null;
    expect((await reader(null).read({ lineageId })).kind).toBe('UNPUBLISHED');
    const chain = await reader(kept).read({ lineageId });
    expect(chain).toMatchObject({ kind: 'REFUSED', refusal: 'DEPLOYMENT_ROLLBACK' });
    expect(chain.kind === 'REFUSED' && chain.reason).toMatch(/kept checkpoint 1 of/);
  });

  it('refuses (FORK) when the kept checkpoint and the table are two histories', async () => {
    const { reader, lineageId } = await stackAfter(['r-1', 'r-2']);
    const kept = new MemoryCheckpointStore();
    await kept.save(
      TEST_LOG_NAME,
      await signCheckpoint({ origin: TEST_LOG_NAME, size: 1, rootHash: new Uint8Array(32).fill(7) }, testLogSigner()),
    );
    expect(await reader(kept).read({ lineageId })).toMatchObject({ kind: 'REFUSED', refusal: 'FORK' });
    expect(sizeOf(await kept.load(TEST_LOG_NAME))).toBe(1);
  });
});

// The file format is versioned (docs/verifiable-log.md, "Checkpoints the client keeps"): format 1
// (signed lineage checkpoints) is still read, format 2 is written.
describe('FileCheckpointStore formats', () => {
  let directory: string | null = null;
  afterEach(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
    directory = null;
  });
  const fileIn = async () => {
    directory = await mkdtemp(join(tmpdir(), 'reseal-kept-'));
    return join(directory, 'checkpoints.json');
  };

  it('reads a format-1 file and writes it back as format 3, keeping its lineage notes', async () => {
    const path = await fileIn();
    await writeFile(path, JSON.stringify({ formatVersion: 1, checkpoints: { 'reseal/s/lin-1': 'note-1' } }));
    const store = new FileCheckpointStore(path);
    expect(await store.load('reseal/s/lin-1')).toBe('note-1');
    await store.save('reseal/s', 'deployment-note');
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      formatVersion: 3,
      checkpoints: { 'reseal/s/lin-1': 'note-1', 'reseal/s': 'deployment-note' },
    });
  });

  it('refuses a format it does not know, never resetting it', async () => {
    const path = await fileIn();
    const text = JSON.stringify({ formatVersion: 4, checkpoints: {} });
    await writeFile(path, text);
    await expect(new FileCheckpointStore(path).load('reseal/s')).rejects.toThrow(CheckpointFileError);
    await expect(new FileCheckpointStore(path).save('reseal/s', 'n')).rejects.toThrow(CheckpointFileError);
    expect(await readFile(path, 'utf8')).toBe(text);
  });
});
