import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recallRefusalHint } from '../../../cli/recall-exit';
import type { CheckpointStore } from '../../../client/checkpoint-store';
import { FileCheckpointStore } from '../../../client/file-checkpoint-store';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import { checkpointOrigin } from '../../../shared/log/log-names';
import { addSeenSeal, MAX_SEEN_SEALS_PER_LINEAGE, type SeenSeal } from '../../../shared/log/seen-seal';
import type { RecallTarget } from '../../../shared/pipeline/recall-target';
import { inProcessTriageBus, TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { markerKey } from '../../helpers/in-memory-lineage-store';
import { integratedStack } from '../../helpers/integrated-stack';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-seen-seals');
const ENV = { ARCH: 'arm64', HOSTNAME: 'runner-17', REGION: 'eu-west-1', TOOL_VERSION: '1.2.3' };
const KEY = checkpointOrigin(TEST_CLIENT_OUTPUTS.logName, LINEAGE);

/**
 * Two integrated writes, then r-2 sealed past the index (heads MAC'd, no signed lineage
 * checkpoint), and `rewind` to undo r-2 as a table writer can (docs/verifiable-log.md, "Seals seen
 * awaiting integration"): the head put back to the integrated state, record 2 and its marker deleted.
 */
async function awaitingStack() {
  const s = integratedStack({ signLineageCheckpoints: false });
  for (let i = 0; i < 2; i++) await s.send({ lineageId: LINEAGE, residualId: `r-${i}` });
  await s.integrate();
  const integrated = s.store.headSnapshot(LINEAGE);
  if (!integrated) throw new Error('no head');
  await s.send({ lineageId: LINEAGE, residualId: 'r-2' });
  const eventBridge = inProcessTriageBus(s.store, () => s.clock.now);
  const clientWith = (checkpointStore?: CheckpointStore) =>
    s.client({ deps: { eventBridge, ...(checkpointStore ? { checkpointStore } : {}) } });
  const recall = (client: ReturnType<typeof clientWith>, target: RecallTarget) =>
    client.recall({ lineageId: LINEAGE, target, currentEnv: ENV });
  const rewind = () => {
    s.store.restoreHead(LINEAGE, integrated);
    s.store.deleteRecord(LINEAGE, 2);
    s.store.markers.delete(markerKey(LINEAGE, 'r-2'));
  };
  return { ...s, clientWith, recall, rewind };
}

describe('seals seen awaiting integration (docs/verifiable-log.md, "Seals seen awaiting integration")', () => {
  it('a recall that saw a seal awaiting integration refuses the tail rewound over it; a client without a store reads it absent', async () => {
    const s = await awaitingStack();
    const store = new MemoryCheckpointStore();
    const client = s.clientWith(store);
    const seen = await s.recall(client, { residualId: 'r-2' });
    expect(seen.end, seen.reason).toBe('AWAITING_INTEGRATION');
    expect(await store.loadSeenSeals(KEY)).toMatchObject([{ residualId: 'r-2', seq: 2, treeSize: 3 }]);
    s.rewind();
    const byId = await s.recall(client, { residualId: 'r-2' });
    expect(byId.end, byId.reason).toBe('NOT_INTACT');
    expect(byId.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    expect(byId.reason).toMatch(
      /^rollback: residual r-2 reads absent, but this client saw residual r-2 sealed at seq 2 .* at \d{4}-\d\d-\d\dT/,
    );
    expect(byId.freshness?.state).toBe('NOT_NEWEST');
    expect(recallRefusalHint(byId)).toMatch(
      /^the lineage was rolled back over a write this client saw sealed \(UNVERIFIED_TAMPER_RISK\): residual r-2 reads absent/,
    );
    const latest = await s.recall(client, { latest: true });
    expect(latest.end, latest.reason).toBe('NOT_INTACT');
    expect(latest.reason).toMatch(
      /the lineage's tree now holds 2 records, but this client saw residual r-2 sealed at seq 2/,
    );
    // A walk of the lineage (verify --lineage, inspect --lineage) is refused the same way.
    for (const walked of [
      await client.verifyStoredLineage(LINEAGE),
      (await client.readVerifiedLineage(LINEAGE)).walked,
    ]) {
      expect(walked.verification.verdict).toBe('UNVERIFIED_TAMPER_RISK');
      expect(walked.verification.firstFailure?.reason).toMatch(
        /^rollback: the lineage's tree now holds 2 records, but this client saw residual r-2/,
      );
      expect(walked.freshness?.state).toBe('NOT_NEWEST');
    }
    // Without the memory, the rewound table is consistent with every kept checkpoint: absent as of the last integration.
    const cold = await s.recall(s.clientWith(new MemoryCheckpointStore()), { residualId: 'r-2' });
    expect(cold.end, cold.reason).toBe('NOT_FOUND');
    expect(cold.freshness?.state).toBe('ABSENT');
    expect(cold.freshness?.reason).toMatch(/as of deployment checkpoint \d+, the last integration; /);
  });

  it('a seal seen by waitForOutcome is remembered too, and another record resealed at its seq is refused', async () => {
    const s = await awaitingStack();
    const store = new MemoryCheckpointStore();
    const client = s.clientWith(store);
    const outcome = await client.waitForOutcome(LINEAGE, 'r-2');
    expect(outcome.kind === 'SEALED' && outcome.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
    s.rewind();
    // A sealer cold since the rewind (the warm one remembers seq 2) seals another write at seq 2.
    expect((await s.sendUnfloored({ lineageId: LINEAGE, residualId: 'r-other' })).kind).toBe('SEALED');
    const latest = await s.recall(client, { latest: true });
    expect(latest.end, latest.reason).toBe('NOT_INTACT');
    expect(latest.reason).toMatch(
      /^rollback: seq 2 now holds record [0-9a-f]{16}…, but this client saw residual r-2 sealed at seq 2/,
    );
  });

  it('an honest integration proves the seal and the memory of it is dropped (pruned once the index covers it)', async () => {
    const s = await awaitingStack();
    const store = new MemoryCheckpointStore();
    const client = s.clientWith(store);
    expect((await s.recall(client, { residualId: 'r-2' })).end).toBe('AWAITING_INTEGRATION');
    await s.integrate();
    const proven = await s.recall(client, { residualId: 'r-2' });
    expect(proven.end, proven.reason).toBe('TRIAGED');
    expect(proven.freshness?.state).toBe('PROVEN');
    expect(await store.loadSeenSeals(KEY)).toEqual([]);
  });

  it('a write proven by waitForOutcome is forgotten', async () => {
    const s = await awaitingStack();
    const store = new MemoryCheckpointStore();
    const client = s.clientWith(store);
    await client.waitForOutcome(LINEAGE, 'r-2');
    expect(await store.loadSeenSeals(KEY)).toHaveLength(1);
    await s.integrate();
    const outcome = await client.waitForOutcome(LINEAGE, 'r-2');
    expect(outcome.kind === 'SEALED' && outcome.freshness?.state).toBe('PROVEN');
    expect(await store.loadSeenSeals(KEY)).toEqual([]);
  });
});

describe('the checkpoint file keeps the seals seen (format 3)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const seal = (seq: number): SeenSeal => ({
    lineageId: LINEAGE,
    residualId: `r-${seq}`,
    seq,
    recordHash: 'ab'.repeat(32),
    treeSize: seq + 1,
    rootHash: 'cd'.repeat(32),
    seenAtMs: 1_767_225_600_000,
  });

  it('a recall with a file store writes format 3 with the seal seen, and a format-2 file is still read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seen-'));
    dirs.push(dir);
    const path = join(dir, 'checkpoints.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, `${JSON.stringify({ formatVersion: 2, checkpoints: { other: 'note' } })}\n`);
    const s = await awaitingStack();
    const store = new FileCheckpointStore(path);
    expect((await s.recall(s.clientWith(store), { residualId: 'r-2' })).end).toBe('AWAITING_INTEGRATION');
    const file = JSON.parse(readFileSync(path, 'utf8'));
    expect(file.formatVersion).toBe(3);
    expect(file.checkpoints.other).toBe('note');
    expect(file.seenSeals[KEY]).toMatchObject([{ residualId: 'r-2', seq: 2 }]);
    s.rewind();
    const refused = await s.recall(s.clientWith(new FileCheckpointStore(path)), { residualId: 'r-2' });
    expect(refused.end, refused.reason).toBe('NOT_INTACT');
  });

  it('concurrent updates of one store keep every seal; at most the newest 64 per lineage are kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seen-'));
    dirs.push(dir);
    const store = new FileCheckpointStore(join(dir, 'checkpoints.json'));
    await Promise.all(
      Array.from({ length: 10 }, (_, seq) => store.updateSeenSeals(KEY, (current) => addSeenSeal(current, seal(seq)))),
    );
    expect((await store.loadSeenSeals(KEY)).map((entry) => entry.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    let many: SeenSeal[] = [];
    for (let seq = 0; seq < MAX_SEEN_SEALS_PER_LINEAGE + 5; seq++) many = addSeenSeal(many, seal(seq));
    expect(many).toHaveLength(MAX_SEEN_SEALS_PER_LINEAGE);
    expect(many[0]?.seq).toBe(5);
  });

  it('a format-2 file carrying seenSeals is refused, never read half', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seen-'));
    dirs.push(dir);
    const path = join(dir, 'checkpoints.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, JSON.stringify({ formatVersion: 2, checkpoints: {}, seenSeals: { [KEY]: [seal(0)] } }));
    await expect(new FileCheckpointStore(path).loadSeenSeals(KEY)).rejects.toThrow(/seenSeals is a format-3 field/);
  });
});
