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
import type { RecallTarget } from '../../../shared/pipeline/messages';
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
 * awaiting integration"): the head put back to the integrated state (`integrated`), record 2 and
 * its marker deleted. `ownWrite` is r-2's request, as its writer published it.
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
  // The request r-2's writer published (what this client sent): its seal is remembered.
  const ownWrite = s.request({ lineageId: LINEAGE, residualId: 'r-2' });
  return { ...s, integrated, ownWrite, clientWith, recall, rewind };
}

describe('seals seen awaiting integration (docs/verifiable-log.md, "Seals seen awaiting integration")', () => {
  it('a write this client waited for, seen sealed awaiting integration, refuses the tail rewound over it; a client without the memory reads it absent', async () => {
    const s = await awaitingStack();
    const store = new MemoryCheckpointStore();
    const client = s.clientWith(store);
    const outcome = await client.waitForOutcome(LINEAGE, 'r-2', { request: s.ownWrite });
    expect(outcome.kind === 'SEALED' && outcome.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
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

  it('a seal a recall reads past the index is never remembered: a head item and record the table writer planted and then removed leave the honest table readable', async () => {
    // From the client's side, r-2 past the index is the table writer's word (the head item's tree,
    // MAC'd by a key the client cannot check): planted items read exactly like these.
    const s = await awaitingStack();
    const store = new MemoryCheckpointStore();
    const client = s.clientWith(store);
    const seen = await s.recall(client, { residualId: 'r-2' });
    expect(seen.end, seen.reason).toBe('AWAITING_INTEGRATION');
    expect((await s.recall(client, { latest: true })).end).toBe('AWAITING_INTEGRATION');
    // A wait that names no request cannot tell its own write's seal from a planted one either.
    const unbound = await client.waitForOutcome(LINEAGE, 'r-2');
    expect(unbound.kind === 'SEALED' && unbound.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
    expect(await store.loadSeenSeals(KEY)).toEqual([]);
    // The table writer takes the planted items away: the honest integrated table is read as it is.
    s.rewind();
    const latest = await s.recall(client, { latest: true });
    expect(latest.end, latest.reason).toBe('TRIAGED');
    expect(latest.freshness?.state).toBe('PROVEN');
    const byId = await s.recall(client, { residualId: 'r-2' });
    expect(byId.end, byId.reason).toBe('NOT_FOUND');
    expect(byId.freshness?.state).toBe('ABSENT');
    expect((await client.verifyStoredLineage(LINEAGE)).verification.verdict).toBe('VERIFIED_INTACT');
  });

  it('the head rewound by one run over a waited write, its record and marker left: a recall of its residual id refuses, never ABSENT', async () => {
    const s = await awaitingStack();
    const store = new MemoryCheckpointStore();
    const client = s.clientWith(store);
    const outcome = await client.waitForOutcome(LINEAGE, 'r-2', { request: s.ownWrite });
    expect(outcome.kind === 'SEALED' && outcome.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
    // Only the head is put back (docs/sealing.md, "What each reader changes": a rewind by at most one run).
    s.store.restoreHead(LINEAGE, s.integrated);
    const cold = await s.recall(s.clientWith(new MemoryCheckpointStore()), { residualId: 'r-2' });
    expect(cold.end, cold.reason).toBe('NOT_FOUND');
    expect(cold.freshness?.state).toBe('ABSENT');
    const byId = await s.recall(client, { residualId: 'r-2' });
    expect(byId.end, byId.reason).toBe('NOT_INTACT');
    expect(byId.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    expect(byId.freshness?.state).toBe('NOT_NEWEST');
    expect(byId.reason).toMatch(
      /^rollback: residual r-2 reads absent, but this client saw residual r-2 sealed at seq 2/,
    );
  });

  it('a seal seen by waitForOutcome is remembered, and another record resealed at its seq is refused', async () => {
    const s = await awaitingStack();
    const store = new MemoryCheckpointStore();
    const client = s.clientWith(store);
    const outcome = await client.waitForOutcome(LINEAGE, 'r-2', { request: s.ownWrite });
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
    await client.waitForOutcome(LINEAGE, 'r-2', { request: s.ownWrite });
    expect(await store.loadSeenSeals(KEY)).toHaveLength(1);
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
    await client.waitForOutcome(LINEAGE, 'r-2', { request: s.ownWrite });
    expect(await store.loadSeenSeals(KEY)).toHaveLength(1);
    await s.integrate();
    const outcome = await client.waitForOutcome(LINEAGE, 'r-2', { request: s.ownWrite });
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

  it('a wait with a file store writes format 3 with the seal seen, and a format-2 file is still read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seen-'));
    dirs.push(dir);
    const path = join(dir, 'checkpoints.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, `${JSON.stringify({ formatVersion: 2, checkpoints: { other: 'note' } })}\n`);
    const s = await awaitingStack();
    const store = new FileCheckpointStore(path);
    await s.clientWith(store).waitForOutcome(LINEAGE, 'r-2', { request: s.ownWrite });
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
