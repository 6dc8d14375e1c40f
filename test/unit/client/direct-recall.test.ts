import { describe, expect, it } from 'vitest';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import type { VerifiedRecall } from '../../../client/verified-recall';
import { checkpointOrigin } from '../../../shared/log/checkpoint-origin';
import { signCheckpoint } from '../../../shared/log/sign-checkpoint';
import { buildManifest } from '../../../shared/triage/build-manifest';
import { triageReportDigest } from '../../../shared/triage/triage-report-digest';
import { inProcessRecallClient } from '../../helpers/factories';
import { InMemoryLineageStore, markerKey } from '../../helpers/in-memory-lineage-store';
import { integratedStack } from '../../helpers/integrated-stack';
import { appendSealed, TEST_LOG_KEY, testLogSigner } from '../../helpers/pipeline-keys';
import { buildChain } from '../../helpers/seal-factories';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = 'lineage-direct-recall';
const ENV = { ARCH: 'arm64', REGION: 'eu-west-1' };
const manifest = buildManifest({
  env: ENV,
  structuralKeys: ['ARCH'],
  claimDependencyMap: { 'claim-region': ['REGION'] },
});

/** What a recall's caller acts on: the verdict, the record and the delta (never the stored report). */
const actedOn = (recall: VerifiedRecall) => ({
  verdict: recall.verdict,
  end: recall.end,
  seq: recall.record?.header.monotonicSequenceNumber ?? null,
  recordHash: recall.record?.recordHash ?? null,
  delta: recall.delta ? triageReportDigest(recall.delta) : null,
  checkpointSize: recall.checkpoint?.size ?? null,
});

/** A lineage of three records with signed lineage checkpoints, and a client whose bus runs triage in process, its puts counted. */
async function signedLineage() {
  const store = new InMemoryLineageStore();
  const { records } = await buildChain(3, { lineageId: LINEAGE, inputs: (i) => ({ manifest, residualId: `r-${i}` }) });
  await appendSealed(store, records);
  const puts = { count: 0 };
  const triage = inProcessRecallClient(store, { checkpointStore: new MemoryCheckpointStore() });
  const bus = {
    send: async () => {
      puts.count++;
      throw new Error('no event is put by a direct recall');
    },
  };
  const direct = inProcessRecallClient(store, {
    checkpointStore: new MemoryCheckpointStore(),
    eventBridge: bus as never,
  });
  return { store, triage, direct, puts, records };
}

// docs/verifiable-log.md, "Recall", "Without triage": the client answers the recall itself and
// decides that answer with the very steps that decide triage's.
describe('ResealClient.recallDirect: a recall proven by the client alone, no event', () => {
  it('latest, by seq and by residual id: what the caller acts on is what the recall through triage gives; nothing is put on the bus', async () => {
    const { triage, direct, puts } = await signedLineage();
    const drifted = { ...ENV, REGION: 'us-east-1' };
    for (const target of [{ latest: true as const }, { seq: 1 }, { residualId: 'r-0' }]) {
      const viaTriage = await triage.recall({ lineageId: LINEAGE, target, currentEnv: drifted });
      const own = await direct.recallDirect({ lineageId: LINEAGE, target, currentEnv: drifted });
      expect(own.verdict).toBe('VERIFIED_INTACT');
      expect(actedOn(own)).toEqual(actedOn(viaTriage));
    }
    expect(puts.count).toBe(0);
  });

  it('a record the table writer edited is not VERIFIED_INTACT, and nothing of it is passed on', async () => {
    const { store, direct } = await signedLineage();
    const stored = store.records.get(LINEAGE);
    const text = stored?.get(2);
    if (!stored || !text) throw new Error('no record 2');
    expect(text).toContain('finding 2');
    stored.set(2, text.replace('finding 2', 'finding X'));
    const recall = await direct.recallDirect({ lineageId: LINEAGE, target: { latest: true }, currentEnv: ENV });
    expect(recall.verdict).not.toBe('VERIFIED_INTACT');
    expect(recall.verdict).not.toBeNull();
    expect(recall.record).toBeNull();
    expect(recall.delta).toBeNull();
  });

  it('a seq past the head and an unknown residual id are NOT_FOUND, as the log shows', async () => {
    const { direct } = await signedLineage();
    const past = await direct.recallDirect({ lineageId: LINEAGE, target: { seq: 3 }, currentEnv: ENV });
    expect(past.verdict).toBeNull();
    expect(past.refusal?.code).toBe('NOT_FOUND');
    // Passed on as the client's own unproven reading, never as triage's (no triage ran).
    expect(past.reason).toContain("[this client's reading of the table, not proven]");
    expect(past.reason).not.toContain('triage');
    const unknown = await direct.recallDirect({ lineageId: LINEAGE, target: { residualId: 'r-9' }, currentEnv: ENV });
    expect(unknown.refusal?.code).toBe('NOT_FOUND');
    expect(unknown.record).toBeNull();
  });

  it('a residual-id marker edited to another seq is looked past: the record proven to seal the residual id is answered', async () => {
    const { store, direct } = await signedLineage();
    store.markers.set(markerKey(LINEAGE, 'r-1'), { lineageId: LINEAGE, seq: 0 });
    const recall = await direct.recallDirect({ lineageId: LINEAGE, target: { residualId: 'r-1' }, currentEnv: ENV });
    expect(recall.verdict).toBe('VERIFIED_INTACT');
    expect(recall.record?.header.residualId).toBe('r-1');
    expect(recall.record?.header.monotonicSequenceNumber).toBe(1);
  });

  it("an edited marker whose residual id no proven record seals is the client's unproven reading, never LINEAGE_BROKEN", async () => {
    const { store, direct } = await signedLineage();
    store.markers.set(markerKey(LINEAGE, 'r-9'), { lineageId: LINEAGE, seq: 0 });
    const recall = await direct.recallDirect({ lineageId: LINEAGE, target: { residualId: 'r-9' }, currentEnv: ENV });
    expect(recall.end).toBe('NOT_INTACT');
    expect(recall.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    expect(recall.reason).toContain("[this client's reading of the table, not proven]");
    expect(recall.record).toBeNull();
  });

  it('a residual-id marker naming no valid seq is no usable marker: its hidden seal is proven as for a deleted marker, with or without triage', async () => {
    const edited = await signedLineage();
    const deleted = await signedLineage();
    // What the table adapter reads of a marker whose seq is no seq (text, or past 2^53 − 1).
    edited.store.markers.set(markerKey(LINEAGE, 'r-1'), { lineageId: LINEAGE, seq: -1 });
    deleted.store.markers.delete(markerKey(LINEAGE, 'r-1'));
    const request = { lineageId: LINEAGE, target: { residualId: 'r-1' }, currentEnv: ENV };
    const own = await edited.direct.recallDirect(request);
    expect([own.end, own.verdict]).toEqual(['NOT_INTACT', 'UNVERIFIED_TAMPER_RISK']);
    expect(own.reason).toContain(
      "residual r-1 is sealed at seq 1, proven in the lineage's signed checkpoint of 3 records",
    );
    expect(own.reason).not.toContain('not proven');
    expect(own.record).toBeNull();
    const gone = await deleted.direct.recallDirect(request);
    expect([own.end, own.verdict, own.reason]).toEqual([gone.end, gone.verdict, gone.reason]);
    // Triage refuses it LINEAGE_BROKEN (docs/pipeline.md, "Outcomes and retries"); the client,
    // reading the same marker, searches as for a deleted one and proves the seal it hides.
    const viaTriage = await edited.triage.recall(request);
    expect(viaTriage.refusal?.code).toBe('VERIFICATION_FAILED');
    expect([viaTriage.end, viaTriage.verdict, viaTriage.reason, viaTriage.detectedBy]).toEqual([
      own.end,
      own.verdict,
      own.reason,
      'client',
    ]);
  });

  it('a residual-id marker naming no valid seq whose residual id nothing seals is NOT_FOUND, saying why', async () => {
    const { store, direct, triage } = await signedLineage();
    store.markers.set(markerKey(LINEAGE, 'r-9'), { lineageId: LINEAGE, seq: -1 });
    const own = await direct.recallDirect({ lineageId: LINEAGE, target: { residualId: 'r-9' }, currentEnv: ENV });
    expect([own.end, own.verdict, own.refusal?.code]).toEqual(['NOT_FOUND', null, 'NOT_FOUND']);
    expect(own.reason).toContain('the residual-id marker of r-9 names no valid seq');
    expect(own.record).toBeNull();
    // Through triage, nothing found either: its refusal is passed on hedged, as triage's claim.
    const viaTriage = await triage.recall({ lineageId: LINEAGE, target: { residualId: 'r-9' }, currentEnv: ENV });
    expect([viaTriage.end, viaTriage.verdict, viaTriage.refusal?.code, viaTriage.detectedBy]).toEqual([
      'NOT_INTACT',
      'LINEAGE_BROKEN',
      'VERIFICATION_FAILED',
      'triage',
    ]);
  });

  it('a table rolled back to an older signed checkpoint than the kept one is a proven TRUNCATION_DETECTED', async () => {
    const { records } = await buildChain(3, {
      lineageId: LINEAGE,
      inputs: (i) => ({ manifest, residualId: `r-${i}` }),
    });
    const [now, older] = [new InMemoryLineageStore(), new InMemoryLineageStore()];
    await appendSealed(now, records);
    await appendSealed(older, records.slice(0, 2));
    const checkpointStore = new MemoryCheckpointStore();
    const request = { lineageId: LINEAGE, target: { latest: true as const }, currentEnv: ENV };
    expect((await inProcessRecallClient(now, { checkpointStore }).recallDirect(request)).verdict).toBe(
      'VERIFIED_INTACT',
    );
    const recall = await inProcessRecallClient(older, { checkpointStore }).recallDirect(request);
    expect(recall.end).toBe('NOT_INTACT');
    expect(recall.verdict).toBe('TRUNCATION_DETECTED');
    expect(recall.reason).toBe('rolled back: the log shows 2 records but a trusted checkpoint saw 3');
    expect(recall.record).toBeNull();
  });

  it('a consistency proof from the kept checkpoint that fails on a forged node is not called a fork', async () => {
    const { records } = await buildChain(3, {
      lineageId: LINEAGE,
      inputs: (i) => ({ manifest, residualId: `r-${i}` }),
    });
    const store = new InMemoryLineageStore();
    await appendSealed(store, records.slice(0, 2));
    const checkpointStore = new MemoryCheckpointStore();
    const request = { lineageId: LINEAGE, target: { latest: true as const }, currentEnv: ENV };
    expect((await inProcessRecallClient(store, { checkpointStore }).recallDirect(request)).verdict).toBe(
      'VERIFIED_INTACT',
    );
    await appendSealed(store, records.slice(2));
    const nodes = store.nodes.get(LINEAGE)?.get(2) as string[] | undefined;
    if (!nodes) throw new Error('no nodes of record 2');
    store.nodes.get(LINEAGE)?.set(2, ['ab'.repeat(32), ...nodes.slice(1)]);
    const recall = await inProcessRecallClient(store, { checkpointStore }).recallDirect(request);
    expect(recall.end).toBe('NOT_INTACT');
    expect(recall.record).toBeNull();
    expect(recall.reason).toContain('is not shown to extend the trusted one of size 2');
    expect(recall.reason).not.toContain('fork:');
  });

  it('an invalid request is refused before anything is read', async () => {
    const { direct } = await signedLineage();
    await expect(
      direct.recallDirect({ lineageId: LINEAGE, target: { seq: -1 }, currentEnv: ENV } as never),
    ).rejects.toMatchObject({ name: 'InvalidInputError' });
  });
});

describe("ResealClient.recallDirect: freshness through the deployment log (a head the sealer MAC'd)", () => {
  const MACD = testLineageId('lin-direct-recall');

  it('sealed, not integrated: awaiting integration, nothing passed on; integrated: VERIFIED_INTACT and PROVEN', async () => {
    const s = integratedStack({ signLineageCheckpoints: false });
    await s.send({ lineageId: MACD, residualId: 'r-0' });
    const client = s.client();
    const before = await client.recallDirect({ lineageId: MACD, target: { latest: true }, currentEnv: ENV });
    expect(before.verdict).toBeNull();
    expect(before.record).toBeNull();
    expect(before.end).toBe('AWAITING_INTEGRATION');
    await s.integrate();
    for (const target of [{ latest: true as const }, { seq: 0 }, { residualId: 'r-0' }]) {
      const after = await client.recallDirect({ lineageId: MACD, target, currentEnv: ENV });
      expect(after.verdict).toBe('VERIFIED_INTACT');
      expect(after.freshness?.state).toBe('PROVEN');
      expect(after.record?.header.residualId).toBe('r-0');
    }
  });

  it('a residual-id marker edited to another seq: the record the index holds is answered, PROVEN', async () => {
    const s = integratedStack({ signLineageCheckpoints: false });
    await s.send({ lineageId: MACD, residualId: 'r-0' });
    await s.send({ lineageId: MACD, residualId: 'r-1' });
    await s.integrate();
    s.store.markers.set(markerKey(MACD, 'r-1'), { lineageId: MACD, seq: 0 });
    const recall = await s.client().recallDirect({ lineageId: MACD, target: { residualId: 'r-1' }, currentEnv: ENV });
    expect(recall.verdict).toBe('VERIFIED_INTACT');
    expect(recall.freshness?.state).toBe('PROVEN');
    expect(recall.record?.header.monotonicSequenceNumber).toBe(1);
  });

  it('a residual-id marker naming no valid seq, its residual id indexed: the same proven finding as for a deleted marker', async () => {
    const answers = [];
    for (const edit of ['edited', 'deleted'] as const) {
      const s = integratedStack({ signLineageCheckpoints: false });
      await s.send({ lineageId: MACD, residualId: 'r-0' });
      await s.send({ lineageId: MACD, residualId: 'r-1' });
      await s.integrate();
      if (edit === 'edited') s.store.markers.set(markerKey(MACD, 'r-1'), { lineageId: MACD, seq: -1 });
      else s.store.markers.delete(markerKey(MACD, 'r-1'));
      answers.push(await s.client().recallDirect({ lineageId: MACD, target: { residualId: 'r-1' }, currentEnv: ENV }));
    }
    const [edited, deleted] = answers;
    expect([edited?.end, edited?.verdict, edited?.freshness?.state]).toEqual([
      'NOT_INTACT',
      'UNVERIFIED_TAMPER_RISK',
      'INCONSISTENT',
    ]);
    expect(edited?.reason).toContain('the index maps residual r-1 to seq 1');
    expect(edited?.record).toBeNull();
    expect([edited?.end, edited?.verdict, edited?.reason]).toEqual([deleted?.end, deleted?.verdict, deleted?.reason]);
  });

  it("a forged tree node between the kept signed checkpoint and a MAC'd head is the client's unproven reading, never a proven fork", async () => {
    const s = integratedStack({ signLineageCheckpoints: false });
    await s.send({ lineageId: MACD, residualId: 'r-0' });
    await s.integrate();
    const first = await s.client().recallDirect({ lineageId: MACD, target: { latest: true }, currentEnv: ENV });
    if (!first.checkpoint) throw new Error('no tree of 1');
    // The client kept a signed checkpoint of that tree of 1 (as signed before the sealer stopped signing).
    const origin = checkpointOrigin(TEST_LOG_KEY.name, MACD);
    const checkpointStore = new MemoryCheckpointStore();
    const { size, rootHash } = first.checkpoint;
    await checkpointStore.save(origin, await signCheckpoint({ origin, size, rootHash }, testLogSigner()));
    await s.send({ lineageId: MACD, residualId: 'r-1' });
    await s.integrate();
    const nodes = s.store.nodes.get(MACD)?.get(1) as string[] | undefined;
    if (!nodes) throw new Error('no nodes of record 1');
    s.store.nodes.get(MACD)?.set(1, ['ab'.repeat(32), ...nodes.slice(1)]);
    const recall = await s
      .client({ deps: { checkpointStore } })
      .recallDirect({ lineageId: MACD, target: { latest: true }, currentEnv: ENV });
    expect(recall.end).toBe('NOT_INTACT');
    expect(recall.record).toBeNull();
    expect(recall.reason).toContain("[this client's reading of the table, not proven]");
  });

  it('a record sealed past the indexed head is awaiting integration, never passed on as proven', async () => {
    const s = integratedStack({ signLineageCheckpoints: false });
    await s.send({ lineageId: MACD, residualId: 'r-0' });
    await s.integrate();
    await s.send({ lineageId: MACD, residualId: 'r-1' });
    const recall = await s.client().recallDirect({ lineageId: MACD, target: { latest: true }, currentEnv: ENV });
    expect(recall.end).toBe('AWAITING_INTEGRATION');
    expect(recall.record).toBeNull();
  });
});

// docs/verifiable-log.md, "Without triage", "Stored state": the latest record's inclusion path is
// the head item's frontier read right to left, and a client that proves each record it reads needs
// no last record key while the head stands.
describe('ResealClient.recallDirect: what a latest recall reads', () => {
  /** The store's node and last-record-key reads, counted. */
  function counted(store: InMemoryLineageStore) {
    const reads = { nodes: 0, lastKeys: 0 };
    const { readNodes, lastRecordSeq } = store;
    store.readNodes = (lineageId, refs) => {
      reads.nodes += 1;
      return readNodes.call(store, lineageId, refs);
    };
    store.lastRecordSeq = (lineageId) => {
      reads.lastKeys += 1;
      return lastRecordSeq.call(store, lineageId);
    };
    return reads;
  }

  it('an honest head: no node and no last record key read, VERIFIED_INTACT', async () => {
    const { store, direct } = await signedLineage();
    const reads = counted(store);
    const recall = await direct.recallDirect({ lineageId: LINEAGE, target: { latest: true }, currentEnv: ENV });
    expect(recall.verdict).toBe('VERIFIED_INTACT');
    expect(reads).toEqual({ nodes: 0, lastKeys: 0 });
  });

  it("a head whose frontier was edited: the record's path is read from the nodes, and the recall is the same", async () => {
    const { store, direct } = await signedLineage();
    const honest = await direct.recallDirect({ lineageId: LINEAGE, target: { latest: true }, currentEnv: ENV });
    store.setLogHead(LINEAGE, (log) => ({ ...log, frontier: (log.frontier ?? []).map(() => 'ab'.repeat(32)) }));
    const reads = counted(store);
    const recall = await direct.recallDirect({ lineageId: LINEAGE, target: { latest: true }, currentEnv: ENV });
    expect(actedOn(recall)).toEqual(actedOn(honest));
    expect(reads.nodes).toBeGreaterThan(0);
  });
});
