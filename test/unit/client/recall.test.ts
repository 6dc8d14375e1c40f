import { describe, expect, it } from 'vitest';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import { buildManifest } from '../../../shared/triage/build-manifest';
import { triageReportDigest } from '../../../shared/triage/triage-report-digest';
import { inProcessRecallClient, refusedTriageAnswer } from '../../helpers/factories';
import { InMemoryLineageStore, markerKey } from '../../helpers/in-memory-lineage-store';
import { appendSealed, TEST_LOG_NAME } from '../../helpers/pipeline-keys';
import { buildChain } from '../../helpers/seal-factories';

const LINEAGE = 'lineage-client-recall';
const ENV = { ARCH: 'arm64', REGION: 'eu-west-1' };
const manifest = buildManifest({
  env: ENV,
  structuralKeys: ['ARCH'],
  claimDependencyMap: { 'claim-region': ['REGION'] },
});

/** The honest recall of seq 1 (request `req-honest`), whose stored answer the tests edit and plant again. */
function honestRecallOfSeq1(client: ReturnType<typeof inProcessRecallClient>) {
  return client.recall({ lineageId: LINEAGE, requestId: 'req-honest', target: { seq: 1 }, currentEnv: ENV });
}

/** A lineage of `count` records, a client whose bus runs triage in process, and its checkpoint store. */
async function setup(count = 3) {
  const store = new InMemoryLineageStore();
  const { records } = await buildChain(count, { lineageId: LINEAGE, inputs: () => ({ manifest }) });
  await appendSealed(store, records.slice(0, count - 1));
  const older = store.headSnapshot(LINEAGE);
  await appendSealed(store, records.slice(count - 1));
  const checkpoints = new MemoryCheckpointStore();
  const client = inProcessRecallClient(store, { checkpointStore: checkpoints });
  if (!older) throw new Error('no head');
  return { store, client, checkpoints, records, older };
}

describe('ResealClient.recall: the client proves the answer and recomputes the delta', () => {
  it('an intact recall is VERIFIED_INTACT with the delta recomputed here, and the checkpoint is kept', async () => {
    const { client, checkpoints } = await setup();
    const drifted = { ...ENV, REGION: 'us-east-1' };
    const recall = await client.recall({ lineageId: LINEAGE, target: { latest: true }, currentEnv: drifted });
    expect(recall.verdict).toBe('VERIFIED_INTACT');
    expect(recall.delta?.verdict).toBe('FULL_RECONSTRUCTION_REQUIRED'); // its only claim rests on REGION
    expect(triageReportDigest(recall.delta)).toBe(triageReportDigest(recall.report.report));
    expect(recall.truncationChecked).toBe(false);
    expect(await checkpoints.load(`${TEST_LOG_NAME}/${LINEAGE}`)).toBe(recall.checkpoint?.note);
    // The next recall is checked against the checkpoint kept.
    expect((await client.recall({ lineageId: LINEAGE, target: { seq: 0 }, currentEnv: ENV })).truncationChecked).toBe(
      true,
    );
  });

  it('a report planted in the table under the request id is not acted on', async () => {
    const { client, store } = await setup();
    const honest = await honestRecallOfSeq1(client);
    // The table writer copies a genuine answer (proof and all) under the next request id, for another target.
    await store.putTriageReport({ ...honest.report, requestId: 'req-planted' });
    const planted = await client.recall({
      lineageId: LINEAGE,
      requestId: 'req-planted',
      target: { seq: 2 },
      currentEnv: { ...ENV, REGION: 'us-east-1' },
    });
    expect(planted.verdict).not.toBe('VERIFIED_INTACT');
    expect(planted.delta).toBeNull();
  });

  it('a stored report whose delta was edited is HASH_MISMATCH: the recomputation disagrees', async () => {
    const { client, store } = await setup();
    const honest = await client.recall({ lineageId: LINEAGE, requestId: 'req-a', target: { seq: 1 }, currentEnv: ENV });
    const report = honest.report.report;
    if (!report) throw new Error('no report');
    await store.putTriageReport({
      ...honest.report,
      requestId: 'req-b',
      report: { ...report, verdict: 'NO_DRIFT', reason: 'edited' },
    });
    const edited = await client.recall({ lineageId: LINEAGE, requestId: 'req-b', target: { seq: 1 }, currentEnv: ENV });
    expect(edited.verdict).toBe('HASH_MISMATCH');
  });

  it('a rollback to an older signed state is TRUNCATION_DETECTED against the kept checkpoint', async () => {
    const { client, store, older } = await setup();
    await client.recall({ lineageId: LINEAGE, target: { latest: true }, currentEnv: ENV });
    store.restoreHead(LINEAGE, older);
    store.deleteRecord(LINEAGE, 2);
    const rolledBack = await client.recall({ lineageId: LINEAGE, target: { latest: true }, currentEnv: ENV });
    expect(rolledBack.verdict).toBe('TRUNCATION_DETECTED');
  });

  it('a { seq, recordHash } checkpoint the caller trusts is checked by the client: another hash is a fork', async () => {
    const { client, records } = await setup();
    const ok = await client.recall({
      lineageId: LINEAGE,
      target: { latest: true },
      currentEnv: ENV,
      checkpoint: { seq: 1, recordHash: records[1]?.recordHash as string },
    });
    expect(ok.verdict).toBe('VERIFIED_INTACT');
    const fork = await client.recall({
      lineageId: LINEAGE,
      target: { latest: true },
      currentEnv: ENV,
      checkpoint: { seq: 1, recordHash: 'a'.repeat(64) },
    });
    expect(fork.verdict).toBe('LINEAGE_BROKEN');
  });

  it('review: a caller’s older trustedCheckpoint neither hides a rollback nor moves the kept checkpoint back', async () => {
    const { client, store, older, checkpoints } = await setup();
    await client.recall({ lineageId: LINEAGE, target: { latest: true }, currentEnv: ENV });
    const keptBefore = await checkpoints.load(`${TEST_LOG_NAME}/${LINEAGE}`);
    store.restoreHead(LINEAGE, older);
    store.deleteRecord(LINEAGE, 2);
    const rolledBack = await client.recall({
      lineageId: LINEAGE,
      target: { latest: true },
      currentEnv: ENV,
      trustedCheckpoint: older.checkpoint as string,
    });
    expect(rolledBack.verdict).toBe('TRUNCATION_DETECTED');
    expect(await checkpoints.load(`${TEST_LOG_NAME}/${LINEAGE}`)).toBe(keptBefore);
  });

  it('review: a planted NOT_FOUND or INVALID_REQUEST for a record the signed log covers is not believed', async () => {
    const { client, store } = await setup();
    for (const [requestId, refusalCode, target] of [
      ['req-nf-seq', 'NOT_FOUND', { seq: 1 }],
      ['req-nf-latest', 'NOT_FOUND', { latest: true }],
      ['req-nf-id', 'NOT_FOUND', { residualId: 'residual-1' }],
      ['req-invalid', 'INVALID_REQUEST', { seq: 0 }],
    ] as const) {
      await store.putTriageReport(refusedTriageAnswer({ requestId, lineageId: LINEAGE, refusalCode }));
      const recall = await client.recall({ lineageId: LINEAGE, requestId, target, currentEnv: ENV });
      expect(recall.verdict, requestId).toBe('UNVERIFIED_TAMPER_RISK');
    }
    // A NOT_FOUND the log cannot contradict (an id that was never sealed) stands as triage's claim.
    const unknown = await client.recall({ lineageId: LINEAGE, target: { residualId: 'never' }, currentEnv: ENV });
    expect(unknown).toMatchObject({ verdict: null, refusal: { code: 'NOT_FOUND' } });
  });

  it('a planted NOT_FOUND by residual id whose marker was deleted: the signed log is searched and contradicts it (docs/deployment-log.md, "Clients")', async () => {
    const { client, store } = await setup();
    store.markers.delete(markerKey(LINEAGE, 'residual-1'));
    await store.putTriageReport(
      refusedTriageAnswer({ requestId: 'req-nf-hidden', lineageId: LINEAGE, refusalCode: 'NOT_FOUND' }),
    );
    const recall = await client.recall({
      lineageId: LINEAGE,
      requestId: 'req-nf-hidden',
      target: { residualId: 'residual-1' },
      currentEnv: ENV,
    });
    expect(recall.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    expect(recall.reason).toMatch(/residual residual-1 is sealed at seq 1/);
  });

  it('review: garbage stored under the request id is waited past; triage overwrites it with its answer', async () => {
    const { client, store } = await setup();
    store.triageReports.set(`${LINEAGE}#req-garbage`, 'not json' as never);
    const recall = await client.recall({
      lineageId: LINEAGE,
      requestId: 'req-garbage',
      target: { seq: 0 },
      currentEnv: ENV,
    });
    expect(recall.verdict).toBe('VERIFIED_INTACT');
  });

  it('an older genuine answer replayed for a latest recall is refused: the client reads the newest checkpoint itself', async () => {
    // docs/verifiable-log.md, "Recall": 6 records intact; the table writer turns each new answer into
    // the genuine answer of a recall made at 4 records (its signed checkpoint, seq 3, honest proof).
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(6, { lineageId: LINEAGE, inputs: () => ({ manifest }) });
    await appendSealed(store, records.slice(0, 4));
    const kept = new MemoryCheckpointStore();
    const old = await inProcessRecallClient(store, { checkpointStore: kept }).recall({
      lineageId: LINEAGE,
      requestId: 'req-at-4',
      target: { latest: true },
      currentEnv: ENV,
    });
    expect(old).toMatchObject({ verdict: 'VERIFIED_INTACT', checks: { checkpointSize: 4 } });
    await appendSealed(store, records.slice(4));
    for (const [mode, checkpointStore] of [
      ['no checkpoint store', null],
      ['a kept store of size 4', kept],
    ] as const) {
      const requestId = `req-replayed-${checkpointStore ? 'kept' : 'cold'}`;
      await store.putTriageReport({ ...old.report, requestId });
      const client = inProcessRecallClient(store, checkpointStore ? { checkpointStore } : {});
      const replayed = await client.recall({
        lineageId: LINEAGE,
        requestId,
        target: { latest: true },
        currentEnv: ENV,
      });
      expect(replayed, mode).toMatchObject({
        end: 'NOT_INTACT',
        verdict: 'UNVERIFIED_TAMPER_RISK',
        detectedBy: 'client',
        record: null,
        delta: null,
        checks: { checkpointSize: 4, newestSize: 6 },
      });
      expect(replayed.reason, mode).toMatch(
        /older than the newest tree the client read before asking: .* but the client read the lineage's signed checkpoint of 6 records/,
      );
    }
    expect(await kept.load(`${TEST_LOG_NAME}/${LINEAGE}`), 'the replay is never kept').toBe(old.checkpoint?.note);
    // The same answer for the record it names (seq 3), with the newest checkpoint read first, is
    // still refused: an answer older than the head item's checkpoint is never taken.
    await store.putTriageReport({ ...old.report, requestId: 'req-seq-3' });
    const bySeq = await inProcessRecallClient(store).recall({
      lineageId: LINEAGE,
      requestId: 'req-seq-3',
      target: { seq: 3 },
      currentEnv: ENV,
    });
    expect(bySeq.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    // The honest answer now is proven in the newest checkpoint, seq 5.
    const honest = await inProcessRecallClient(store).recall({
      lineageId: LINEAGE,
      target: { latest: true },
      currentEnv: ENV,
    });
    expect(honest).toMatchObject({ end: 'TRIAGED', checks: { checkpointSize: 6, newestSize: 6 } });
    expect(honest.record?.header.monotonicSequenceNumber).toBe(5);
  });

  it('an answer proven in a checkpoint newer than the one read before asking (a write landed meanwhile) is taken once it extends it', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(3, { lineageId: LINEAGE, inputs: () => ({ manifest }) });
    await appendSealed(store, records.slice(0, 2));
    let appended = false;
    const client = inProcessRecallClient(store);
    // The third record is appended after the client read the head item, before triage answers.
    const original = store.getTriageReport.bind(store);
    store.getTriageReport = async (lineageId, requestId) => {
      if (!appended) {
        appended = true;
        await appendSealed(store, records.slice(2));
      }
      return original(lineageId, requestId);
    };
    const recall = await client.recall({ lineageId: LINEAGE, target: { latest: true }, currentEnv: ENV });
    expect(recall).toMatchObject({ end: 'TRIAGED', checks: { checkpointSize: 3, newestSize: 2 } });
  });
  it('a head item hidden while the client reads it, then restored, does not let an older answer pass', async () => {
    // docs/verifiable-log.md, "Recall": the client read no head before asking, yet the answer proves
    // a record; it reads the head again and holds the answer to that.
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(6, { lineageId: LINEAGE, inputs: () => ({ manifest }) });
    await appendSealed(store, records.slice(0, 4));
    const old = await inProcessRecallClient(store).recall({
      lineageId: LINEAGE,
      requestId: 'req-at-4',
      target: { latest: true },
      currentEnv: ENV,
    });
    await appendSealed(store, records.slice(4));
    await store.putTriageReport({ ...old.report, requestId: 'req-hidden' });
    // The table writer hides the head item and the records while the client reads the head, then
    // restores them (the client reads the last record key only to word a missing head it was shown).
    const [realHead, realLast] = [store.logHead.bind(store), store.lastRecordSeq.bind(store)];
    let hidden = true;
    store.logHead = async (lineageId) => {
      if (!hidden) return realHead(lineageId);
      hidden = false;
      return null;
    };
    store.lastRecordSeq = async (lineageId) => (hidden ? null : realLast(lineageId));
    const replayed = await inProcessRecallClient(store).recall({
      lineageId: LINEAGE,
      requestId: 'req-hidden',
      target: { latest: true },
      currentEnv: ENV,
    });
    expect(replayed).toMatchObject({ end: 'NOT_INTACT', verdict: 'UNVERIFIED_TAMPER_RISK', detectedBy: 'client' });
    expect(replayed.reason).toMatch(/older than the newest tree .* the lineage's signed checkpoint of 6 records/);
    // Hidden for good: an answer proving a record of a lineage whose head the table does not show.
    store.logHead = async () => null;
    store.lastRecordSeq = async () => null;
    await store.putTriageReport({ ...old.report, requestId: 'req-gone' });
    const headless = await inProcessRecallClient(store).recall({
      lineageId: LINEAGE,
      requestId: 'req-gone',
      target: { latest: true },
      currentEnv: ENV,
    });
    expect(headless).toMatchObject({ end: 'NOT_INTACT', verdict: 'UNVERIFIED_TAMPER_RISK' });
    expect(headless.reason).toMatch(
      /shows no tree head of it \(neither a signed checkpoint nor a head the sealer MAC'd\)/,
    );
  });

  it('a lineage whose first records land during the recall is triaged: the head read again extends to the answer', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(2, { lineageId: LINEAGE, inputs: () => ({ manifest }) });
    const original = store.getTriageReport.bind(store);
    let appended = false;
    store.getTriageReport = async (lineageId, requestId) => {
      if (!appended) {
        appended = true;
        await appendSealed(store, records);
      }
      return original(lineageId, requestId);
    };
    const recall = await inProcessRecallClient(store).recall({
      lineageId: LINEAGE,
      target: { latest: true },
      currentEnv: ENV,
    });
    expect(recall).toMatchObject({ end: 'TRIAGED', verdict: 'VERIFIED_INTACT' });
  });

  it('a NOT_FOUND for a lineage the table lost, after a caller saw { seq, recordHash }, is TRUNCATION_DETECTED', async () => {
    const { client, store, records } = await setup();
    const held = { seq: 1, recordHash: records[1]?.recordHash as string };
    for (const seq of [0, 1, 2]) store.deleteRecord(LINEAGE, seq);
    store.deleteHead(LINEAGE);
    await store.putTriageReport(
      refusedTriageAnswer({ requestId: 'req-lost', lineageId: LINEAGE, refusalCode: 'NOT_FOUND' }),
    );
    const recall = await client.recall({
      lineageId: LINEAGE,
      requestId: 'req-lost',
      target: { latest: true },
      currentEnv: ENV,
      checkpoint: held,
    });
    expect(recall).toMatchObject({ end: 'NOT_INTACT', verdict: 'TRUNCATION_DETECTED', truncationChecked: true });
    expect(recall.reason).toMatch(/a trusted checkpoint saw 2/);
  });

  it('an answer whose proof or seq was edited says which one disagrees with the proven record', async () => {
    const { client, store } = await setup();
    const honest = await honestRecallOfSeq1(client);
    const proof = honest.report.proof as NonNullable<typeof honest.report.proof>;
    for (const [requestId, report, said] of [
      [
        'req-hash',
        { ...honest.report, proof: { ...proof, recordHash: 'b'.repeat(64) } },
        /proof names record hash b{64} but proves/,
      ],
      ['req-seq', { ...honest.report, seq: 0 }, /the answer names seq 0 but its proof proves seq 1/],
    ] as const) {
      await store.putTriageReport({ ...report, requestId });
      const recall = await client.recall({ lineageId: LINEAGE, requestId, target: { seq: 1 }, currentEnv: ENV });
      expect(recall.verdict, requestId).toBe('LINEAGE_BROKEN');
      expect(recall.reason, requestId).toMatch(said);
    }
  });
});
