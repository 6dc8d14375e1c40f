import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recallRefusalHint } from '../../../cli/recall-exit';
import type { CheckpointStore } from '../../../client/checkpoint-store';
import { LogVerificationError } from '../../../client/errors';
import { FileCheckpointStore } from '../../../client/file-checkpoint-store';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import { checkpointOrigin } from '../../../shared/log/checkpoint-origin';
import { addSeenSeal, MAX_SEEN_SEALS_PER_LINEAGE, type SeenSeal } from '../../../shared/log/seen-seal';
import type { RecallTarget } from '../../../shared/pipeline/recall-target';
import { inProcessTriageBus, TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { markerKey } from '../../helpers/in-memory-lineage-store';
import { integratedStack } from '../../helpers/integrated-stack';
import { testLineageId } from '../../helpers/writer-factories';
import { runCli } from '../cli/run-cli';

const LINEAGE = testLineageId('lin-seen-seals');
const ENV = { ARCH: 'arm64', HOSTNAME: 'runner-17', REGION: 'eu-west-1', TOOL_VERSION: '1.2.3' };
const KEY = checkpointOrigin(TEST_CLIENT_OUTPUTS.logName, LINEAGE);

/**
 * A stack whose sealer signs no lineage checkpoint, with r-0 and r-1 written and integrated;
 * `integrated` is the head item as the integration left it.
 */
async function twoIntegrated() {
  const s = integratedStack({ signLineageCheckpoints: false });
  for (let i = 0; i < 2; i++) await s.send({ lineageId: LINEAGE, residualId: `r-${i}` });
  await s.integrate();
  const integrated = s.store.headSnapshot(LINEAGE);
  if (!integrated) throw new Error('no head');
  return { s, integrated };
}

/**
 * Two integrated writes, then r-2 sealed past the index (heads MAC'd, no signed lineage
 * checkpoint), and `rewind` to undo r-2 as a table writer can (docs/verifiable-log.md, "Seals seen
 * awaiting integration"): the head put back to the integrated state (`integrated`), record 2 and
 * its marker deleted. `ownWrite` is r-2's request, as its writer published it.
 */
async function awaitingStack() {
  const { s, integrated } = await twoIntegrated();
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
  /** `reseal <args>` in-process, connected to a client with `checkpointStore` (none: `null`). */
  const cli = (checkpointStore: CheckpointStore | null, args: string[]) =>
    runCli(args, {
      cwd: mkdtempSync(join(tmpdir(), 'reseal-seen-')),
      connect: async () => clientWith(checkpointStore ?? undefined),
    });
  /** A client keeping its seals in a fresh store, and its wait for r-2 (sealed awaiting integration: its seal kept). */
  const waited = async () => {
    const store = new MemoryCheckpointStore();
    const client = clientWith(store);
    const outcome = await client.waitForOutcome(LINEAGE, 'r-2', { request: ownWrite });
    return { store, client, outcome };
  };
  return { ...s, integrated, ownWrite, clientWith, recall, rewind, cli, waited };
}

describe('seals seen awaiting integration (docs/verifiable-log.md, "Seals seen awaiting integration")', () => {
  it('a write this client waited for, seen sealed awaiting integration, refuses the tail rewound over it; a client without the memory reads it absent', async () => {
    const s = await awaitingStack();
    const { store, client, outcome } = await s.waited();
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
    const { client, outcome } = await s.waited();
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
    const { client, outcome } = await s.waited();
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

  it('a wait for a write rewound after this client saw it sealed ends in a tamper error (the seals held against the lineage as read), never a timeout', async () => {
    const s = await awaitingStack();
    const { client } = await s.waited();
    s.rewind();
    const waited = client.waitForOutcome(LINEAGE, 'r-2', { request: s.ownWrite, timeoutMs: 2000, untilProven: true });
    await expect(waited).rejects.toThrow(LogVerificationError);
    await expect(client.waitForOutcome(LINEAGE, 'r-2', { request: s.ownWrite, timeoutMs: 2000 })).rejects.toThrow(
      /UNVERIFIED_TAMPER_RISK: rollback: residual r-2 reads absent, but this client saw residual r-2 sealed at seq 2/,
    );
    // A client that kept no seal of it times out, as before.
    await expect(
      s
        .clientWith(new MemoryCheckpointStore())
        .waitForOutcome(LINEAGE, 'r-2', { request: s.ownWrite, timeoutMs: 2000 }),
    ).rejects.toThrow(/a proven outcome of residual r-2/);
  });

  it('an honest integration proves the seal and the memory of it is dropped (pruned once the index covers it)', async () => {
    const s = await awaitingStack();
    const { store, client } = await s.waited();
    expect(await store.loadSeenSeals(KEY)).toHaveLength(1);
    await s.integrate();
    const proven = await s.recall(client, { residualId: 'r-2' });
    expect(proven.end, proven.reason).toBe('TRIAGED');
    expect(proven.freshness?.state).toBe('PROVEN');
    expect(await store.loadSeenSeals(KEY)).toEqual([]);
  });

  it('a write proven by waitForOutcome is forgotten', async () => {
    const s = await awaitingStack();
    const { store, client } = await s.waited();
    expect(await store.loadSeenSeals(KEY)).toHaveLength(1);
    await s.integrate();
    const outcome = await client.waitForOutcome(LINEAGE, 'r-2', { request: s.ownWrite });
    expect(outcome.kind === 'SEALED' && outcome.freshness?.state).toBe('PROVEN');
    expect(await store.loadSeenSeals(KEY)).toEqual([]);
  });
});

// docs/verifiable-log.md, "Verifying a whole lineage": the walk reads the head item once, and the
// seals kept are held against what it read.
describe('whole-lineage walks and the seals seen (docs/verifiable-log.md, "Verifying a whole lineage")', () => {
  it("a rewind over a waited write with the head item's headMac or header removed is refused by the walks (exit 20), held against the head the walk read", async () => {
    for (const remove of ['headMac', 'header'] as const) {
      const s = await awaitingStack();
      const { store, client } = await s.waited();
      s.rewind();
      s.store.setLogHead(LINEAGE, (log) => ({ ...log, [remove]: null }));
      for (const walked of [
        await client.verifyStoredLineage(LINEAGE),
        (await client.readVerifiedLineage(LINEAGE)).walked,
      ]) {
        expect(walked.verification.verdict, remove).not.toBe('VERIFIED_INTACT');
        expect(walked.verification.firstFailure?.reason, remove).toMatch(
          /^(rollback: the lineage's tree now holds 2 records, but this client saw residual r-2|log: the head item is not a well-formed state: )/,
        );
      }
      for (const command of ['verify', 'inspect']) {
        const run = await s.cli(store, [command, '--lineage', LINEAGE, '--json']);
        expect(run.exitCode, `${command} (${remove} removed): ${run.stderr}`).toBe(20);
      }
    }
  });

  it("a rewind over a waited write with the head item's frontier removed: the walks find the malformed head LINEAGE_BROKEN, as recall does (exit 20)", async () => {
    for (const remove of ['frontier'] as const) {
      const s = await awaitingStack();
      const { store, client } = await s.waited();
      s.rewind();
      s.store.setLogHead(LINEAGE, (log) => ({ ...log, [remove]: null }));
      const recall = await s.recall(client, { latest: true });
      expect(recall.verdict, remove).toBe('LINEAGE_BROKEN');
      for (const walked of [
        await client.verifyStoredLineage(LINEAGE),
        (await client.readVerifiedLineage(LINEAGE)).walked,
        // A client that kept no seal finds the malformed head all the same.
        await s.clientWith(new MemoryCheckpointStore()).verifyStoredLineage(LINEAGE),
      ]) {
        expect(walked.verification.verdict, remove).toBe('LINEAGE_BROKEN');
        expect(walked.verification.firstFailure?.reason).toMatch(/^log: the head item is not a well-formed state: /);
      }
      for (const command of ['verify', 'inspect']) {
        const run = await s.cli(store, [command, '--lineage', LINEAGE, '--json']);
        expect(run.exitCode, `${command} (${remove} removed): ${run.stderr}`).toBe(20);
      }
    }
  });

  it('every item of an indexed lineage deleted: the walks report the index holds it (exit 20), with no checkpoint store at all', async () => {
    const s = await awaitingStack();
    s.store.deleteHead(LINEAGE);
    for (let seq = 0; seq < 3; seq++) s.store.deleteRecord(LINEAGE, seq);
    for (let i = 0; i < 3; i++) s.store.markers.delete(markerKey(LINEAGE, `r-${i}`));
    const client = s.clientWith();
    const walked = await client.verifyStoredLineage(LINEAGE);
    expect(walked.verification.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    expect(walked.verification.firstFailure?.reason).toMatch(
      /^NOT_NEWEST: the table shows no head item and no records of the lineage, but the index holds 2 records of it as of deployment checkpoint \d+ \(lineage deleted\)/,
    );
    await expect(client.readVerifiedLineage(LINEAGE)).rejects.toThrow(LogVerificationError);
    for (const command of ['verify', 'inspect']) {
      const run = await s.cli(null, [command, '--lineage', LINEAGE, '--json']);
      expect(run.exitCode, `${command}: ${run.stderr}`).toBe(20);
    }
    // A lineage nothing knows is still not found (bad input).
    const unknown = await s.cli(null, ['verify', '--lineage', testLineageId('lin-never-written'), '--json']);
    expect(unknown.exitCode, unknown.stderr).toBe(2);
    expect(unknown.stderr).toMatch(/not found/);
  });

  it('every item of a lineage the index never held deleted after this client waited for a write of it: the walks refuse it as a rollback (exit 20); a client without the seals reads not found', async () => {
    const s = integratedStack({ signLineageCheckpoints: false });
    const gone = testLineageId('lin-seen-gone');
    await s.send({ lineageId: gone, residualId: 'r-0' });
    const store = new MemoryCheckpointStore();
    const eventBridge = inProcessTriageBus(s.store, () => s.clock.now);
    const client = s.client({ deps: { eventBridge, checkpointStore: store } });
    const outcome = await client.waitForOutcome(gone, 'r-0', {
      request: s.request({ lineageId: gone, residualId: 'r-0' }),
    });
    expect(outcome.kind === 'SEALED' && outcome.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
    s.store.deleteHead(gone);
    s.store.deleteRecord(gone, 0);
    s.store.markers.delete(markerKey(gone, 'r-0'));
    const walked = await client.verifyStoredLineage(gone);
    expect(walked.verification.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    expect(walked.verification.firstFailure?.reason).toMatch(
      /^rollback: the lineage's tree now holds 0 records, but this client saw residual r-0 sealed at seq 0/,
    );
    await expect(client.readVerifiedLineage(gone)).rejects.toThrow(/rollback: the lineage's tree now holds 0 records/);
    const cli = (checkpointStore: CheckpointStore | undefined, args: string[]) =>
      runCli(args, {
        cwd: mkdtempSync(join(tmpdir(), 'reseal-seen-')),
        connect: async () => s.client({ deps: { eventBridge, ...(checkpointStore ? { checkpointStore } : {}) } }),
      });
    for (const command of ['verify', 'inspect']) {
      const run = await cli(store, [command, '--lineage', gone, '--json']);
      expect(run.exitCode, `${command}: ${run.stderr}`).toBe(20);
      const cold = await cli(undefined, [command, '--lineage', gone, '--json']);
      expect(cold.exitCode, `${command}: ${cold.stderr}`).toBe(2);
    }
  });
});

// docs/verifiable-log.md, "Seals seen awaiting integration": the index is the authority on where a
// residual id is sealed, and on what a seq it covers holds.
describe('seals a table writer planted through a waited write are settled by the index', () => {
  it("a forged tail matching this client's request (r-2 at seq 4) is forgotten once the honest r-2 is proven at seq 2: reads of the lineage are no longer refused", async () => {
    const { s, integrated } = await twoIntegrated();
    // The table writer's tail: fillers at seq 2-3, then a copy of r-2's signed request at seq 4 (a
    // head of 5 consistent with the indexed tree of 2), here written by a sealer as it would be.
    await s.send({ lineageId: LINEAGE, residualId: 'filler-2' });
    await s.send({ lineageId: LINEAGE, residualId: 'filler-3' });
    await s.send({ lineageId: LINEAGE, residualId: 'r-2' });
    s.dropNotices(); // a table writer's items: no notice of them reaches the integrator
    const store = new MemoryCheckpointStore();
    const eventBridge = inProcessTriageBus(s.store, () => s.clock.now);
    const client = s.client({ deps: { eventBridge, checkpointStore: store } });
    const ownWrite = s.request({ lineageId: LINEAGE, residualId: 'r-2' });
    const seen = await client.waitForOutcome(LINEAGE, 'r-2', { request: ownWrite });
    expect(seen.kind === 'SEALED' && seen.head.seq).toBe(4);
    expect(await store.loadSeenSeals(KEY)).toMatchObject([{ residualId: 'r-2', seq: 4, treeSize: 5 }]);
    // The table writer restores the honest table; the honest r-2 is then sealed at seq 2 and integrated.
    s.store.restoreHead(LINEAGE, integrated);
    for (let seq = 2; seq < 5; seq++) s.store.deleteRecord(LINEAGE, seq);
    for (const residualId of ['filler-2', 'filler-3', 'r-2']) s.store.markers.delete(markerKey(LINEAGE, residualId));
    expect((await s.sendUnfloored({ lineageId: LINEAGE, residualId: 'r-2' })).kind).toBe('SEALED');
    await s.integrate();
    const proven = await client.waitForOutcome(LINEAGE, 'r-2', { request: ownWrite });
    expect(proven.kind === 'SEALED' && proven.head.seq).toBe(2);
    expect(proven.kind === 'SEALED' && proven.freshness?.state).toBe('PROVEN');
    expect(await store.loadSeenSeals(KEY)).toEqual([]);
    const latest = await client.recall({ lineageId: LINEAGE, target: { latest: true }, currentEnv: ENV });
    expect(latest.end, latest.reason).toBe('TRIAGED');
    expect((await client.verifyStoredLineage(LINEAGE)).verification.verdict).toBe('VERIFIED_INTACT');
    expect((await client.readVerifiedLineage(LINEAGE)).walked.verification.verdict).toBe('VERIFIED_INTACT');
  });

  it('a seal whose seq the index now covers with another record is reported once (exit-20 evidence, both hashes), then settled by the index', async () => {
    const s = await awaitingStack();
    const { store, client } = await s.waited();
    s.rewind();
    s.dropNotices(); // r-2's notice: the table no longer shows its run
    expect((await s.sendUnfloored({ lineageId: LINEAGE, residualId: 'r-other' })).kind).toBe('SEALED');
    await s.integrate();
    const first = await s.recall(client, { latest: true });
    expect(first.end, first.reason).toBe('NOT_INTACT');
    expect(first.reason).toMatch(
      /^rollback: seq 2 now holds record [0-9a-f]{16}…, but this client saw residual r-2 sealed at seq 2 \(record [0-9a-f]{16}…/,
    );
    expect(await store.loadSeenSeals(KEY)).toEqual([]);
    const again = await s.recall(client, { latest: true });
    expect(again.end, again.reason).toBe('TRIAGED');
  });

  it('a walk settles such a seal as a recall does: `verify --lineage` reports it once (exit 20), then passes', async () => {
    const s = await awaitingStack();
    const { store } = await s.waited();
    s.rewind();
    s.dropNotices();
    expect((await s.sendUnfloored({ lineageId: LINEAGE, residualId: 'r-other' })).kind).toBe('SEALED');
    await s.integrate();
    const first = await s.cli(store, ['verify', '--lineage', LINEAGE, '--json']);
    expect(first.exitCode, first.stdout).toBe(20);
    expect(JSON.parse(first.stdout).firstFailure.reason).toMatch(
      /^rollback: .*but this client saw residual r-2 sealed at seq 2/,
    );
    expect(await store.loadSeenSeals(KEY)).toEqual([]);
    const again = await s.cli(store, ['verify', '--lineage', LINEAGE, '--json']);
    expect(again.exitCode, again.stdout).toBe(0);
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
