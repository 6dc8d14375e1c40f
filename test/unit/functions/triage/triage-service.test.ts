import { describe, expect, it } from 'vitest';
import { TriageService } from '../../../../functions/triage/triage-service';
import { SignerUnavailableError } from '../../../../shared/errors';
import { checkpointOrigin } from '../../../../shared/log/checkpoint-origin';
import { verifyRecordProof } from '../../../../shared/log/record-proof';
import { signNote } from '../../../../shared/log/signed-note';
import { checkConsistency } from '../../../../shared/log/tree-consistency';
import { verifyCheckpoint } from '../../../../shared/log/verified-checkpoint';
import { RefusalCode } from '../../../../shared/pipeline/refusal-code';
import { TriageCompletedDetailSchema } from '../../../../shared/pipeline/triage-completed-detail';
import type { SealedRecord } from '../../../../shared/seal/sealed-record';
import { buildManifest } from '../../../../shared/triage/build-manifest';
import { FakeMetrics, FakePublisher, fakeLogger, lineageSealedBySealer } from '../../../helpers/factories';
import { absentKeyManifest, FACTORY_LINEAGE_ID, FACTORY_NOW_MS } from '../../../helpers/guard-factories';
import { InMemoryLineageStore } from '../../../helpers/in-memory-lineage-store';
import { appendSealed, forgerLogSigner, TEST_LOG_KEY, TEST_LOG_NAME } from '../../../helpers/pipeline-keys';
import { buildChain, forgerAnchor, resealRecord } from '../../../helpers/seal-factories';
import { shrinkHead } from '../../../helpers/small-head';

const LINEAGE = FACTORY_LINEAGE_ID;
/** The environment records are sealed against: ARCH structural, one claim on REGION, one on TOOL_VERSION. */
const SEALED_ENV = { ARCH: 'arm64', HOSTNAME: 'runner-17', REGION: 'eu-west-1', TOOL_VERSION: '1.2.3' };
const manifest = buildManifest({
  env: SEALED_ENV,
  structuralKeys: ['ARCH'],
  claimDependencyMap: { 'claim-region': ['REGION'], 'claim-tooling': ['TOOL_VERSION'] },
});

async function setup(count = 3) {
  const { store, anchor } = await lineageSealedBySealer(count, manifest);
  const publisher = new FakePublisher();
  const metrics = new FakeMetrics();
  const triage = () =>
    new TriageService({
      store,
      publisher,
      logKey: async () => TEST_LOG_KEY,
      metrics,
      logger: fakeLogger(),
      clock: () => FACTORY_NOW_MS,
    });
  return { store, anchor, publisher, metrics, triage };
}

/**
 * Three records appended in two batches (seqs 0–1, then 2), with a copy of the head item as it
 * was after the first batch (`older`) and after the second (`newer`): what a table writer with a
 * backup can put back.
 */
async function rewindable() {
  const { records } = await buildChain(3, { lineageId: LINEAGE, inputs: () => ({ manifest }) });
  const { triage, store, publisher } = await setup(0);
  await appendSealed(store, records.slice(0, 2));
  const older = store.headSnapshot(LINEAGE);
  await appendSealed(store, records.slice(2));
  const newer = store.headSnapshot(LINEAGE);
  if (!older || !newer) throw new Error('no head');
  return { triage, store, publisher, older, newer };
}

let n = 0;
const recall = (overrides: Record<string, unknown> = {}) => ({
  requestId: `req-${++n}`,
  lineageId: LINEAGE,
  target: { latest: true },
  currentEnv: SEALED_ENV,
  ...overrides,
});

describe('triage service (docs/triage.md on a proven record, docs/sealing.md)', () => {
  it.each([
    ['NO_DRIFT', SEALED_ENV],
    ['AMBIENT_DRIFT_ONLY', { ...SEALED_ENV, HOSTNAME: 'runner-99' }],
    ['PARTIAL_REPROBE_REQUIRED', { ...SEALED_ENV, REGION: 'us-east-1' }],
    ['FULL_RECONSTRUCTION_REQUIRED', { ...SEALED_ENV, ARCH: 'x86_64' }],
  ])(
    'docs/triage.md "Verdicts and rules": %s for its environment delta; report stored and emitted',
    async (verdict, env) => {
      const { triage, store, publisher, metrics } = await setup();
      const result = await triage().handle(recall({ currentEnv: env, target: { seq: 1 } }));
      expect(result.kind).toBe('COMPLETED');
      if (result.kind !== 'COMPLETED') return;
      const detail = TriageCompletedDetailSchema.parse(result.detail);
      expect(detail).toMatchObject({ outcome: 'TRIAGED', seq: 1, residualId: 'r-1', refusalReason: null });
      expect(detail.verification?.verdict).toBe('VERIFIED_INTACT');
      expect(detail.report?.verdict).toBe(verdict);
      expect(await store.getTriageReport(LINEAGE, detail.requestId)).toEqual(detail);
      expect(publisher.triaged).toEqual([detail]);
      expect(metrics.get(`TriageVerdict:verdict=${verdict}`)).toBe(1);
      if (verdict === 'PARTIAL_REPROBE_REQUIRED') {
        expect(detail.report).toMatchObject({ invalidatedClaims: ['claim-region'], retainedClaims: ['claim-tooling'] });
      }
    },
  );

  it.each([
    ['NO_DRIFT', {}, []],
    ['AMBIENT_DRIFT_ONLY', { NO_PROXY: 'localhost' }, []],
    ['PARTIAL_REPROBE_REQUIRED', { HTTP_PROXY: 'http://10.0.0.1:3128' }, ['claim-no-proxy']],
    ['FULL_RECONSTRUCTION_REQUIRED', { LD_PRELOAD: '/tmp/hook.so' }, ['claim-instance-healthy', 'claim-no-proxy']],
  ])(
    'a record sealed with a format-2 manifest: %s when %j joins the environment',
    async (verdict, added, invalidated) => {
      const { store } = await lineageSealedBySealer(2, absentKeyManifest());
      const service = new TriageService({
        store,
        publisher: new FakePublisher(),
        logKey: async () => TEST_LOG_KEY,
        metrics: new FakeMetrics(),
        logger: fakeLogger(),
        clock: () => FACTORY_NOW_MS,
      });
      const result = await service.handle(recall({ currentEnv: { ...SEALED_ENV, ...added } }));
      expect(result.kind === 'COMPLETED' && result.detail.verification?.verdict).toBe('VERIFIED_INTACT');
      expect(result.kind === 'COMPLETED' && result.detail.report).toMatchObject({
        verdict,
        invalidatedClaims: invalidated,
      });
    },
  );

  it('targets resolve by residual id and by latest (the head)', async () => {
    const { triage } = await setup();
    const byId = await triage().handle(recall({ target: { residualId: 'r-0' } }));
    const latest = await triage().handle(recall());
    expect(byId.kind === 'COMPLETED' && byId.detail.seq).toBe(0);
    expect(latest.kind === 'COMPLETED' && latest.detail.seq).toBe(2);
  });

  it('docs/sealing.md verification step 15 (hash-with-payload forgery): a record edited in the table is refused with HASH_MISMATCH, no triage', async () => {
    const { triage, store } = await setup();
    store.tamperRecord(LINEAGE, 1, (record) => {
      record.payload = { conclusion: 'all good, nothing happened' };
    });
    const result = await triage().handle(recall({ target: { seq: 1 } }));
    expect(result.kind === 'COMPLETED' && result.detail).toMatchObject({
      outcome: 'REFUSED',
      report: null,
      proof: null,
      verification: { verdict: 'HASH_MISMATCH', firstFailure: { seq: 1 } },
    });
  });

  it('a record rewritten and re-MACed by a forger (hashes consistent) is not the record the signed tree holds: HASH_MISMATCH', async () => {
    const { triage, store } = await setup();
    const stored = (await store.readRecord(LINEAGE, 1)) as SealedRecord;
    // A field outside the writer's signature (docs/authorship.md), so only the signed tree can tell.
    const forged = await resealRecord(stored, { header: { sealedAtMs: stored.header.sealedAtMs + 1 } }, forgerAnchor());
    store.records.get(LINEAGE)?.set(1, JSON.stringify(forged));
    const result = completed(await triage().handle(recall({ target: { seq: 1 } })));
    expect(result.verification).toMatchObject({ verdict: 'HASH_MISMATCH' });
    expect(result.refusalReason).toContain('not the record the signed checkpoint');
  });

  it('a recall proves its target only: an edited earlier record does not stop it (the audit walk, verify --lineage, finds that)', async () => {
    const { triage, store } = await setup();
    store.tamperRecord(LINEAGE, 0, (record) => {
      record.payload = 'edited';
    });
    expect(completed(await triage().handle(recall({ target: { seq: 2 } }))).outcome).toBe('TRIAGED');
  });

  it('no MAC call: triage holds no MAC key; a log key that cannot be read is an infrastructure failure (retried)', async () => {
    const { store } = await setup();
    const service = new TriageService({
      store,
      publisher: new FakePublisher(),
      logKey: async () => {
        throw new SignerUnavailableError('log-key', 'DisabledException');
      },
      metrics: new FakeMetrics(),
      logger: fakeLogger(),
      clock: () => FACTORY_NOW_MS,
    });
    await expect(service.handle(recall())).rejects.toBeInstanceOf(SignerUnavailableError);
  });

  it.each([
    ['the log key (GetPublicKey disabled)', 'SignerUnavailableError', 'signing key log-key unavailable'],
    ['the bus (PutEvents)', 'Error', 'ServiceUnavailable'],
    ['the table (a read)', 'Error', 'ProvisionedThroughputExceededException'],
  ])(
    'pipeline.md "Logs and metrics": an infrastructure failure of %s is logged at error, with its cause, before it propagates',
    async (_what, name, message) => {
      const { store } = await setup();
      const publisher = new FakePublisher();
      const logger = fakeLogger();
      const cause = new Error('underlying');
      let logKey = async () => TEST_LOG_KEY;
      if (name === 'SignerUnavailableError') {
        logKey = async () => {
          throw new SignerUnavailableError('log-key', 'DisabledException', { cause });
        };
      } else if (message === 'ServiceUnavailable') publisher.failWith = new Error(message, { cause });
      else {
        store.getTriageReport = async () => {
          throw new Error(message, { cause });
        };
      }
      const service = new TriageService({
        store,
        publisher,
        logKey,
        metrics: new FakeMetrics(),
        logger,
        clock: () => FACTORY_NOW_MS,
      });
      const failure = await service.handle(recall()).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(Error);
      expect(logger.error).toHaveBeenCalledTimes(1);
      expect(logger.error).toHaveBeenCalledWith(expect.stringContaining('infrastructure error'), {
        error: { name, message: (failure as Error).message },
        cause: 'underlying',
      });
      expect((failure as Error).message).toContain(message);
    },
  );

  it('a checkpoint in the head item signed by another key (a forger with table access) is refused HASH_MISMATCH', async () => {
    const { triage, store } = await setup();
    const snapshot = store.headSnapshot(LINEAGE);
    if (!snapshot?.checkpoint) throw new Error('no checkpoint');
    const text = snapshot.checkpoint.slice(0, snapshot.checkpoint.indexOf('\n\n') + 1);
    const forged = await signNote(text, forgerLogSigner());
    store.setLogHead(LINEAGE, (log) => ({ ...log, checkpoint: forged }));
    const result = completed(await triage().handle(recall()));
    expect(result.verification).toMatchObject({ verdict: 'HASH_MISMATCH' });
    expect(result.refusalReason).toContain('does not verify');
  });

  it('docs/verifiable-log.md "Recall": a head rolled back below the caller checkpoint is TRUNCATION_DETECTED', async () => {
    const { triage, store } = await setup();
    const checkpointRecord = (await store.readRecord(LINEAGE, 2)) as { recordHash: string };
    store.deleteRecord(LINEAGE, 2);
    const result = await triage().handle(
      recall({ target: { seq: 1 }, checkpoint: { seq: 2, recordHash: checkpointRecord.recordHash } }),
    );
    expect(result.kind === 'COMPLETED' && result.detail.verification?.verdict).toBe('TRUNCATION_DETECTED');
    expect(result.kind === 'COMPLETED' && result.detail.outcome).toBe('REFUSED');
  });

  it('records stored past the head item are no finding (docs/sealing.md, "The append\'s layout"): a latest recall answers from the head\'s tree', async () => {
    // Every append's state between its two writes (the records first, then the head), or a head
    // rewound by a table writer: either way the answer is the head's tree, which the client
    // vouches for through the index.
    const { triage, store, older } = await rewindable();
    store.restoreHead(LINEAGE, older);
    expect(completed(await triage().handle(recall()))).toMatchObject({ outcome: 'TRIAGED', seq: 1 });
    await shrinkHead(store, LINEAGE);
    expect(completed(await triage().handle(recall()))).toMatchObject({ outcome: 'TRIAGED', seq: 1 });
    // A residual id sealed past the head is not in the head's tree: NOT_FOUND, as the index will say until the next run rolls it forward.
    expect(completed(await triage().handle(recall({ target: { seq: 2 } })))).toMatchObject({
      outcome: 'REFUSED',
      refusalCode: RefusalCode.NOT_FOUND,
    });
  });

  it('records without a head item read as no lineage (a first append in flight or crashed), unless the caller saw its head', async () => {
    const { triage, store, newer } = await rewindable();
    store.deleteHead(LINEAGE);
    expect(completed(await triage().handle(recall({ target: { seq: 0 } })))).toMatchObject({
      outcome: 'REFUSED',
      refusalCode: RefusalCode.NOT_FOUND,
      verification: null,
    });
    const saw = completed(await triage().handle(recall({ trustedCheckpoint: newer.checkpoint })));
    expect(saw).toMatchObject({
      refusalCode: RefusalCode.VERIFICATION_FAILED,
      verification: { verdict: 'TRUNCATION_DETECTED' },
    });
    expect(saw.refusalReason).toContain('without a head item');
  });

  it('a whole rollback (older head item and the later records deleted) is invisible without a trusted checkpoint, TRUNCATION_DETECTED with one', async () => {
    const { triage, store, older, newer } = await rewindable();
    store.restoreHead(LINEAGE, older);
    store.deleteRecord(LINEAGE, 2);
    // Without a checkpoint kept by the caller, the older signed state is all the table shows.
    expect(completed(await triage().handle(recall())).seq).toBe(1);
    const result = completed(await triage().handle(recall({ trustedCheckpoint: newer.checkpoint })));
    expect(result.verification).toMatchObject({ verdict: 'TRUNCATION_DETECTED' });
  });

  it('a consistent trusted checkpoint: the answer carries the consistency proof from it, which verifies', async () => {
    const { triage, store, older } = await rewindable();
    const result = completed(await triage().handle(recall({ trustedCheckpoint: older.checkpoint })));
    expect(result.outcome).toBe('TRIAGED');
    const proof = result.proof;
    if (!proof?.consistency) throw new Error('no consistency proof');
    const origin = checkpointOrigin(TEST_LOG_NAME, LINEAGE);
    const from = verifyCheckpoint(older.checkpoint as string, TEST_LOG_KEY, origin);
    const to = verifyCheckpoint(proof.checkpoint ?? '', TEST_LOG_KEY, origin);
    expect(checkConsistency(from, to, proof.consistency).verdict).toBe('VERIFIED_INTACT');
    expect(verifyRecordProof(await store.readRecord(LINEAGE, 2), proof.inclusion, to, LINEAGE).verdict).toBe(
      'VERIFIED_INTACT',
    );
  });

  it('split view: a trusted checkpoint of another history of the lineage (both signed) is LINEAGE_BROKEN (a fork)', async () => {
    const { triage } = await setup();
    // Another history of the same lineage, as a restore and re-seal would leave it, signed by the same key.
    const other = new InMemoryLineageStore();
    const { records } = await buildChain(3, {
      lineageId: LINEAGE,
      inputs: (i) => ({ manifest, payload: { other: i } }),
    });
    const otherCheckpoint = await appendSealed(other, records);
    const result = completed(await triage().handle(recall({ trustedCheckpoint: otherCheckpoint })));
    expect(result.verification).toMatchObject({ verdict: 'LINEAGE_BROKEN' });
    expect(result.refusalReason).toContain('fork');
  });

  it('a trusted checkpoint that does not verify (forged, or of another lineage) is an invalid request', async () => {
    const { triage, store } = await setup();
    const forged = await signNote(
      `${checkpointOrigin(TEST_LOG_NAME, LINEAGE)}\n9\n${'A'.repeat(43)}=\n`,
      forgerLogSigner(),
    );
    const result = completed(await triage().handle(recall({ trustedCheckpoint: forged })));
    expect(result.refusalCode).toBe(RefusalCode.INVALID_REQUEST);
    const elsewhere = store.headSnapshot(LINEAGE)?.checkpoint as string;
    const mismatch = completed(
      await triage().handle(recall({ lineageId: 'lineage-other', trustedCheckpoint: elsewhere })),
    );
    expect(mismatch.refusalCode).toBe(RefusalCode.INVALID_REQUEST);
  });

  it('a tree node edited in the table makes the proof fail: refused, never triaged', async () => {
    const { triage, store } = await setup(4);
    store.setNodes(LINEAGE, 1, ['0'.repeat(64), '1'.repeat(64)]);
    const result = completed(await triage().handle(recall({ target: { seq: 2 } })));
    expect(result.outcome).toBe('REFUSED');
    expect(result.verification?.verdict).toBe('HASH_MISMATCH');
  });

  it('docs/verifiable-log.md "Recall" cost: recall cost does not grow with the lineage: no MAC call, O(log n) item reads', async () => {
    const reads: number[] = [];
    for (const count of [8, 64, 512]) {
      const { records } = await buildChain(count, { lineageId: LINEAGE, inputs: () => ({ manifest }) });
      const store = new InMemoryLineageStore();
      for (let i = 0; i < records.length; i += 50) await appendSealed(store, records.slice(i, i + 50));
      let keyCalls = 0;
      const service = new TriageService({
        store,
        publisher: new FakePublisher(),
        logKey: async () => {
          keyCalls++;
          return TEST_LOG_KEY;
        },
        metrics: new FakeMetrics(),
        logger: fakeLogger(),
        clock: () => FACTORY_NOW_MS,
      });
      store.itemReads = 0;
      const result = completed(await service.handle(recall({ target: { seq: 0 } })));
      expect(result.outcome).toBe('TRIAGED');
      expect(keyCalls).toBe(1); // one public key read per recall, cached by the adapter
      reads.push(store.itemReads);
    }
    // head, last record key, record, report, and one node read per tree level (log2 n).
    for (const [i, r] of reads.entries()) {
      expect(r).toBeLessThanOrEqual(4 + Math.log2([8, 64, 512][i] as number) + 1);
    }
    expect(reads[2] as number).toBeLessThan((reads[0] as number) * 3);
  });

  it('residual ids resolve within the recalled lineage only', async () => {
    const { triage } = await setup();
    const other = await triage().handle(recall({ lineageId: 'lineage-other', target: { residualId: 'r-0' } }));
    expect(other.kind === 'COMPLETED' && other.detail).toMatchObject({
      outcome: 'REFUSED',
      refusalCode: RefusalCode.NOT_FOUND,
    });
  });

  it('docs/verifiable-log.md "Recall": a record deleted from the middle breaks the lineage', async () => {
    const { triage, store } = await setup();
    store.deleteRecord(LINEAGE, 1);
    const result = await triage().handle(recall({ target: { seq: 1 } }));
    expect(result.kind === 'COMPLETED' && result.detail.verification?.verdict).toBe('LINEAGE_BROKEN');
  });

  it('an unknown record is refused with no verification; an invalid detail is counted and not thrown', async () => {
    const { triage, metrics } = await setup();
    const missing = await triage().handle(recall({ target: { residualId: 'r-nope' } }));
    expect(missing.kind === 'COMPLETED' && missing.detail).toMatchObject({ outcome: 'REFUSED', verification: null });
    const invalid = await triage().handle({ requestId: 'x', lineageId: LINEAGE, target: { latest: true } });
    expect(invalid.kind).toBe('INVALID');
    expect(metrics.get('RecallInvalid')).toBe(1);
  });

  it('an invalid detail with usable ids gets a stored and announced REFUSED report naming the bad field', async () => {
    const { triage, store, publisher } = await setup();
    const result = await triage().handle({ requestId: 'req-bad', lineageId: LINEAGE, target: { latest: true } });
    expect(result.kind).toBe('INVALID');
    const stored = await store.getTriageReport(LINEAGE, 'req-bad');
    expect(stored).toMatchObject({ outcome: 'REFUSED', verification: null, report: null, seq: null });
    expect(stored?.refusalReason).toMatch(/^invalid RecallRequested detail: .*currentEnv/);
    expect(publisher.triaged).toEqual([stored]);
  });

  it('a retried request id re-emits the stored report instead of recomputing it', async () => {
    const { triage, publisher, store } = await setup();
    const request = recall();
    await triage().handle(request);
    store.tamperRecord(LINEAGE, 0, (record) => {
      record.payload = 'changed later';
    });
    await triage().handle(request);
    expect(publisher.triaged).toHaveLength(2);
    expect(publisher.triaged[1]).toEqual(publisher.triaged[0]);
  });
});

/** The `TriageCompleted` detail of a handled recall, checked against the wire schema. */
function completed(result: Awaited<ReturnType<TriageService['handle']>>) {
  if (result.kind !== 'COMPLETED') throw new Error(`expected COMPLETED, got ${result.kind}`);
  return TriageCompletedDetailSchema.parse(result.detail);
}

describe('triage refusal codes (machine-readable; refusalReason is for humans)', () => {
  it('TRIAGED carries refusalCode null', async () => {
    const { triage } = await setup();
    expect(completed(await triage().handle(recall()))).toMatchObject({ outcome: 'TRIAGED', refusalCode: null });
  });

  it('NOT_FOUND: an empty lineage, an unknown residual id, a residual id of another lineage, a seq past the head', async () => {
    const { triage } = await setup();
    const empty = completed(await triage().handle(recall({ lineageId: 'lineage-empty' })));
    expect(empty).toMatchObject({ outcome: 'REFUSED', verification: null, refusalCode: RefusalCode.NOT_FOUND });
    const unknown = completed(await triage().handle(recall({ target: { residualId: 'r-nope' } })));
    expect(unknown).toMatchObject({ outcome: 'REFUSED', residualId: 'r-nope', refusalCode: RefusalCode.NOT_FOUND });
    const elsewhere = completed(
      await triage().handle(recall({ lineageId: 'lineage-other', target: { residualId: 'r-0' } })),
    );
    expect(elsewhere.refusalCode).toBe(RefusalCode.NOT_FOUND);
    const pastHead = completed(await triage().handle(recall({ target: { seq: 9 } })));
    expect(pastHead).toMatchObject({
      outcome: 'REFUSED',
      seq: 9,
      verification: null,
      refusalCode: RefusalCode.NOT_FOUND,
    });
  });

  it.each([
    ['above 2^53', Number('9007199254740993')],
    ['negative (a codec -1)', -1],
  ])(
    'review: a residual marker whose seq is no seq (%s) gets a stored answer that parses (LINEAGE_BROKEN), never none',
    async (_, seq) => {
      const { triage, store } = await setup();
      store.markers.set(JSON.stringify([LINEAGE, 'r-2']), { lineageId: LINEAGE, seq });
      const request = recall({ target: { residualId: 'r-2' } });
      const answer = completed(await triage().handle(request));
      expect(answer).toMatchObject({
        outcome: 'REFUSED',
        seq: null,
        residualId: 'r-2',
        refusalCode: RefusalCode.VERIFICATION_FAILED,
        verification: { verdict: 'LINEAGE_BROKEN' },
      });
      expect(answer.refusalReason).toContain('names no valid seq');
      // What the client polls for: the stored answer of this request, valid under its schema.
      const stored = TriageCompletedDetailSchema.safeParse(await store.getTriageReport(LINEAGE, request.requestId));
      expect(stored.success).toBe(true);
    },
  );

  it('a target past what the recall read (e.g. appended meanwhile) is NOT_FOUND with "recall again", never "records past the HEAD"', async () => {
    const { triage, store } = await setup();
    const head = await store.head(LINEAGE);
    if (!head) throw new Error('no head');
    // Not in the lineage when the recall read it (as for a record appended between its reads).
    const next = head.seq + 1;
    const result = completed(await triage().handle(recall({ target: { seq: next } })));
    expect(result).toMatchObject({ outcome: 'REFUSED', seq: next, refusalCode: RefusalCode.NOT_FOUND });
    expect(result.refusalReason).toContain('recall again');
  });

  it('VERIFICATION_FAILED: a tampered record, a truncation below the checkpoint', async () => {
    const { triage, store } = await setup();
    const checkpoint = (await store.readRecord(LINEAGE, 2)) as { recordHash: string };
    store.tamperRecord(LINEAGE, 2, (record) => {
      record.payload = 'edited';
    });
    const tampered = completed(await triage().handle(recall({ target: { seq: 2 } })));
    expect(tampered).toMatchObject({
      verification: { verdict: 'HASH_MISMATCH' },
      refusalCode: RefusalCode.VERIFICATION_FAILED,
    });
    store.deleteRecord(LINEAGE, 2);
    const truncated = completed(
      await triage().handle(recall({ target: { seq: 0 }, checkpoint: { seq: 2, recordHash: checkpoint.recordHash } })),
    );
    expect(truncated.refusalCode).toBe(RefusalCode.VERIFICATION_FAILED);
  });

  it('VERIFICATION_FAILED: a stored head that is not a well-formed state (a frontier that does not fit its seq)', async () => {
    const { triage, store } = await rewindable();
    await shrinkHead(store, LINEAGE);
    store.setLogHead(LINEAGE, (log) => ({ ...log, frontier: [] }));
    const malformed = completed(await triage().handle(recall()));
    expect(malformed).toMatchObject({
      verification: { verdict: 'LINEAGE_BROKEN' },
      refusalCode: RefusalCode.VERIFICATION_FAILED,
    });
  });

  it('INVALID_REQUEST: an invalid detail with usable ids', async () => {
    const { triage, store, publisher } = await setup();
    await triage().handle({ requestId: 'req-invalid', lineageId: LINEAGE, target: { latest: true } });
    const stored = TriageCompletedDetailSchema.parse(await store.getTriageReport(LINEAGE, 'req-invalid'));
    expect(stored).toMatchObject({ outcome: 'REFUSED', refusalCode: RefusalCode.INVALID_REQUEST });
    expect(publisher.triaged).toEqual([stored]);
  });

  it('MANIFEST_UNTRIAGEABLE: a verified record whose manifest seal does not match its baseline', async () => {
    const corrupt = { ...manifest, preconditionSeal: 'f'.repeat(64) };
    const { records } = await buildChain(1, { lineageId: LINEAGE, inputs: () => ({ manifest: corrupt }) });
    const { triage, store } = await setup(0);
    const [record] = records;
    if (!record) throw new Error('no record built');
    await appendSealed(store, [record]);
    const detail = completed(await triage().handle(recall({ target: { seq: 0 } })));
    expect(detail).toMatchObject({
      outcome: 'REFUSED',
      verification: { verdict: 'VERIFIED_INTACT' },
      report: null,
      refusalCode: RefusalCode.MANIFEST_UNTRIAGEABLE,
    });
  });
});

describe('docs/triage.md "Tenants": a recall names its tenant by its source; triage refuses a lineage outside it', () => {
  const ACME = 'acme/agent-1';
  const BETA = 'beta/agent-1';
  /** Two tenants' lineages, each of two records, and a triage of a stack with tenants acme and beta. */
  async function tenanted() {
    const store = new InMemoryLineageStore();
    for (const lineageId of [ACME, BETA]) {
      const { records } = await buildChain(2, { lineageId, inputs: () => ({ manifest }) });
      await appendSealed(store, records);
    }
    const publisher = new FakePublisher();
    const metrics = new FakeMetrics();
    const reads: string[] = [];
    const logged = new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          reads.push(`${String(name)}(${String(args[0])})`);
          return value.apply(target, args);
        };
      },
    });
    const logger = fakeLogger();
    const triage = new TriageService({
      store: logged,
      publisher,
      logKey: async () => TEST_LOG_KEY,
      metrics,
      logger,
      clock: () => FACTORY_NOW_MS,
      tenantIds: new Set(['acme', 'beta']),
    });
    return { store, publisher, metrics, triage, reads, logger };
  }

  it("a recall of tenant acme's source naming beta's lineage is refused: counted, nothing stored under beta's lineage, nothing of it read", async () => {
    const { store, publisher, metrics, triage, reads, logger } = await tenanted();
    const result = await triage.handle(recall({ lineageId: BETA, requestId: 'req-cross' }), 'reseal.tenant.acme');
    // Under the code the guard files a cross-tenant write by (docs/triage.md, "Tenants").
    expect(logger.error).toHaveBeenCalledWith(
      expect.stringContaining('outside its tenant'),
      expect.objectContaining({ refusal: 'TENANT_MISMATCH', source: 'reseal.tenant.acme', lineageId: BETA }),
    );
    expect(result).toEqual({
      kind: 'INVALID',
      issues: `TENANT_MISMATCH: lineage ${BETA} is not of tenant acme: a recall put with source reseal.tenant.acme must name a lineage id beginning acme/`,
      detail: null,
    });
    // beta's slot stays free: a refusal there would answer beta's own recall of this request id first.
    expect(await store.getTriageReport(BETA, 'req-cross')).toBeFalsy();
    expect(publisher.triaged).toEqual([]);
    expect(metrics.get('RecallInvalid')).toBe(1);
    expect(reads).toEqual([]); // triage read nothing of beta's lineage (the check above reads the store directly)
  });

  it("the tenant's own lineage under its own source is triaged", async () => {
    const { triage } = await tenanted();
    const result = await triage.handle(recall({ lineageId: ACME }), 'reseal.tenant.acme');
    expect(result.kind).toBe('COMPLETED');
    if (result.kind === 'COMPLETED') expect(result.detail).toMatchObject({ outcome: 'TRIAGED', lineageId: ACME });
  });

  it.each([
    ['the stack\'s own source "reseal"', 'reseal'],
    ['a source of no tenant', 'reseal.tenant.gamma'],
    ['another service', 'com.example.agent'],
  ])('%s names no tenant: refused, counted, never triaged, nothing stored', async (_name, source) => {
    const { store, publisher, triage } = await tenanted();
    const result = await triage.handle(recall({ lineageId: ACME, requestId: 'req-nosource' }), source);
    expect(result).toMatchObject({ kind: 'INVALID', issues: expect.stringContaining('names no tenant of this stack') });
    expect(await store.getTriageReport(ACME, 'req-nosource')).toBeFalsy();
    expect(publisher.triaged).toEqual([]);
  });

  it("a foreign recall reusing a request id of the lineage's owner never overwrites the owner's report", async () => {
    const { store, publisher, triage } = await tenanted();
    const own = await triage.handle(recall({ lineageId: BETA, requestId: 'req-owner' }), 'reseal.tenant.beta');
    expect(own.kind).toBe('COMPLETED');
    const before = await store.getTriageReport(BETA, 'req-owner');
    const emitted = publisher.triaged.length;
    const foreign = await triage.handle(recall({ lineageId: BETA, requestId: 'req-owner' }), 'reseal.tenant.acme');
    expect(foreign.kind).toBe('INVALID');
    expect(await store.getTriageReport(BETA, 'req-owner')).toEqual(before);
    // Nothing re-emitted either: the owner's report is not replayed to the foreign requester.
    expect(publisher.triaged.length).toBe(emitted);
  });

  it('without tenants the source is not consulted (one tenant: every lineage)', async () => {
    const { triage } = await setup();
    const result = await triage().handle(recall(), 'anything');
    expect(result.kind).toBe('COMPLETED');
  });
});
