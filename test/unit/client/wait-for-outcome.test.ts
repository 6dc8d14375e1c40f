import { describe, expect, it, vi } from 'vitest';
import { TimeoutError, UnverifiedOutcomeError } from '../../../client/errors';
import { ResealClient } from '../../../client/reseal-client';
import { noteVerifierKey } from '../../../shared/log/note-key';
import { verifyRecordProof } from '../../../shared/log/record-proof';
import { verifyCheckpoint } from '../../../shared/log/verified-checkpoint';
import { markValidated } from '../../../shared/schemas/validated';
import type { ChainTip } from '../../../shared/seal/chain-tip';
import { lineageHeadOf } from '../../../shared/seal/lineage-head';
import { payloadHash } from '../../../shared/seal/payload-hash';
import { sealInputOfWrite } from '../../../shared/seal/seal-input';
import { sealValidated } from '../../../shared/seal/seal-record';
import type { SealedRecord } from '../../../shared/seal/sealed-record';
import { manifestDigest } from '../../../shared/triage/manifest-digest';
import { requestDigest } from '../../../shared/write/request-digest';
import type { ResidualWriteRequest } from '../../../shared/write/write-request';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { validWriteRequest } from '../../helpers/guard-factories';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { signedConflict, signedRejection, staleRejection } from '../../helpers/outcome-factories';
import {
  appendSealed,
  forgerLogSigner,
  TEST_CLIENT_KEYS,
  TEST_LOG_KEY,
  TEST_LOG_NAME,
  TEST_SEALER_KEY,
  testGuardSigner,
  testLogSigner,
  testSealerSigner,
  verifierKeyOf,
} from '../../helpers/pipeline-keys';
import {
  buildChain,
  forgerAnchor,
  resealRecord,
  TEST_LINEAGE_ID,
  TEST_NOW_MS,
  testAnchor,
} from '../../helpers/seal-factories';
import { STRANGER_WRITER, signWriteSync, TEST_WRITER, testLineageId } from '../../helpers/writer-factories';

const OUTPUTS = TEST_CLIENT_OUTPUTS;

async function sealedStore(length: number): Promise<{ store: InMemoryLineageStore; records: SealedRecord[] }> {
  const store = new InMemoryLineageStore();
  const { records } = await buildChain(length);
  await appendSealed(store, records);
  return { store, records };
}

function client(store: InMemoryLineageStore, deps: ConstructorParameters<typeof ResealClient>[1] = {}) {
  // A fake clock every sleep advances (also a test's own sleep), so a wait that never ends times out.
  let now = 0;
  const { sleep, ...rest } = deps;
  return new ResealClient(OUTPUTS, {
    ...TEST_CLIENT_KEYS,
    store,
    anchor: testAnchor(),
    nowMs: () => now,
    ...rest,
    sleep: async (ms) => {
      now += ms;
      await sleep?.(ms);
    },
  });
}

const SIGNED_LINEAGE_ID = testLineageId('lineage-signed-1');

/**
 * A format-2 chain of `length` signed writes (`residual-0` …, the first sets the test policy) in
 * a self-certifying lineage, stored, with the requests that sealed them: a write's outcome is its
 * own record only when the writer and policy match too (docs/authorship.md, "Signed writes").
 */
async function signedStore(length: number) {
  const store = new InMemoryLineageStore();
  const records: SealedRecord[] = [];
  const requests: ResidualWriteRequest[] = [];
  let tip: ChainTip | null = null;
  for (let index = 0; index < length; index++) {
    const { policy, ...fields } = validWriteRequest({ lineageId: SIGNED_LINEAGE_ID, residualId: `residual-${index}` });
    const request = signWriteSync(index === 0 ? { ...fields, policy } : fields, TEST_WRITER, TEST_NOW_MS);
    const digests = { payloadHash: payloadHash(request.payload), manifestDigest: manifestDigest(request.manifest) };
    const input = sealInputOfWrite(markValidated(request), 'a'.repeat(64), digests, null);
    const record: SealedRecord = await sealValidated(input, tip, testAnchor(), TEST_NOW_MS + index);
    tip = { ...lineageHeadOf(record), policyDigest: record.header.policyDigest };
    records.push(record);
    requests.push(request);
  }
  await appendSealed(store, records);
  return { store, records, requests };
}

/** The write request whose content `record` seals (what the writer published). */
function requestOf(record: SealedRecord) {
  const { lineageId, residualId, sessionId, generationEpoch, authority, supersedes } = record.header;
  const { payload, manifest, variablesUsed } = record;
  return validWriteRequest({
    lineageId,
    residualId,
    sessionId,
    generationEpoch,
    authority,
    payload,
    manifest,
    variablesUsed,
    ...(supersedes ? { supersedes } : {}),
  });
}

describe('ResealClient.waitForOutcome tied to one publish (request, sinceMs)', () => {
  it('a matching sealed record → SEALED with its head', async () => {
    const { store, records, requests } = await signedStore(2);
    const record = records[1] as SealedRecord;
    const outcome = await client(store).waitForOutcome(SIGNED_LINEAGE_ID, 'residual-1', {
      request: requests[1],
      sinceMs: TEST_NOW_MS,
    });
    expect(outcome).toMatchObject({ kind: 'SEALED', head: lineageHeadOf(record) });
  });

  it.each([
    ['payload', { payload: { other: 'content' } }],
    ['supersedes', { supersedes: { seq: 0, recordHash: 'a'.repeat(64) } }],
    ['authority', { authority: 'INFORMATIONAL_ONLY' as const }],
    ['writer', { writer: signWriteSync(validWriteRequest(), STRANGER_WRITER, TEST_NOW_MS).writer }],
  ])(
    'reused id, other %s: the sealed record is not this write’s; its RESIDUAL_ID_REUSED rejection is returned once it appears',
    async (_, change) => {
      const { store, requests } = await signedStore(2);
      const request = { ...(requests[1] as ResidualWriteRequest), ...change };
      const reuse = await signedRejection('residual-1', {
        lineageId: SIGNED_LINEAGE_ID,
        stage: 'SEALER',
        reason: 'RESIDUAL_ID_REUSED',
        rejectedVariables: [],
        requestDigest: requestDigest(request),
      });
      let polls = 0;
      const readRecord = vi.spyOn(store, 'readRecord');
      const outcome = await client(store, {
        sleep: async () => {
          if (++polls === 3) await store.recordRejection(reuse);
        },
      }).waitForOutcome(SIGNED_LINEAGE_ID, 'residual-1', { request, sinceMs: TEST_NOW_MS - 5_000 });
      expect(outcome).toMatchObject({ kind: 'REJECTED', rejection: reuse });
      expect(polls).toBe(3);
      expect(readRecord).toHaveBeenCalledTimes(1); // the other write's record is read and verified once
    },
  );

  it('reused id with other content and no refusal yet: times out rather than report SEALED', async () => {
    const { store, requests } = await signedStore(2);
    const request = { ...(requests[1] as ResidualWriteRequest), payload: { other: 'content' } };
    await expect(
      client(store).waitForOutcome(SIGNED_LINEAGE_ID, 'residual-1', { request, timeoutMs: 1000 }),
    ).rejects.toBeInstanceOf(TimeoutError);
  });

  it('refusals recorded before sinceMs belong to earlier attempts: ignored, and the later seal is returned', async () => {
    const store = new InMemoryLineageStore();
    const { records, requests } = await signedStore(1);
    const record = records[0] as SealedRecord;
    const lineageId = SIGNED_LINEAGE_ID;
    await store.recordRejection(await signedRejection('residual-0', { lineageId, atMs: TEST_NOW_MS - 3_600_000 }));
    await store.recordConflict(
      await signedConflict('residual-0', { lineageId, reason: 'LINEAGE_INCONSISTENT', atMs: TEST_NOW_MS - 60_000 }),
    );
    let polls = 0;
    const outcome = await client(store, {
      sleep: async () => {
        if (++polls === 2) await appendSealed(store, [record]);
      },
    }).waitForOutcome(lineageId, 'residual-0', { request: requests[0], sinceMs: TEST_NOW_MS - 5_000 });
    expect(outcome).toMatchObject({ kind: 'SEALED', head: lineageHeadOf(record) });
    // A refusal at or after sinceMs is this publish's.
    const fresh = await signedRejection('r-new', { atMs: TEST_NOW_MS });
    await store.recordRejection(await signedRejection('r-new', { atMs: TEST_NOW_MS - 10_000 }));
    await store.recordRejection(fresh);
    expect(
      await client(store).waitForOutcome(TEST_LINEAGE_ID, 'r-new', { sinceMs: TEST_NOW_MS - 5_000 }),
    ).toMatchObject({
      kind: 'REJECTED',
      rejection: fresh,
    });
  });

  it('a request naming another write is refused', async () => {
    const { store, records } = await sealedStore(2);
    await expect(
      client(store).waitForOutcome(TEST_LINEAGE_ID, 'residual-0', { request: requestOf(records[1] as SealedRecord) }),
    ).rejects.toThrow(/names residual residual-1/);
  });
});

describe('ResealClient.waitForOutcome', () => {
  it('SEALED: returns the head of the write’s own record (not the moved lineage head), which verifyLineage accepts as a checkpoint', async () => {
    const { store, records } = await sealedStore(3);
    const reseal = client(store);
    const outcome = await reseal.waitForOutcome(TEST_LINEAGE_ID, 'residual-1');
    expect(outcome).toMatchObject({ kind: 'SEALED', head: lineageHeadOf(records[1] as SealedRecord) });
    if (outcome.kind !== 'SEALED') throw new Error('unreachable');
    const checkpoint = { seq: outcome.head.seq, recordHash: outcome.head.recordHash };
    expect((await reseal.verifyLineage(TEST_LINEAGE_ID, { checkpoint })).verdict).toBe('VERIFIED_INTACT');
    // seq 0 has no parent to take as given: verified from genesis.
    expect(await reseal.waitForOutcome(TEST_LINEAGE_ID, 'residual-0')).toMatchObject({ head: { seq: 0 } });
  });

  it('polls until the record is sealed, sleeping the poll interval between reads', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(1);
    let polls = 0;
    const sleep = vi.fn(async () => {
      if (++polls === 2) await appendSealed(store, [records[0] as SealedRecord]);
    });
    const outcome = await client(store, { sleep }).waitForOutcome(TEST_LINEAGE_ID, 'residual-0', {
      pollIntervalMs: 25,
    });
    expect(outcome.kind).toBe('SEALED');
    expect(sleep).toHaveBeenCalledTimes(2);
    expect(sleep).toHaveBeenCalledWith(25);
  });

  it('docs/guard.md refusal REJECTED: the guard’s rejection record of this write, with reason and rejected variables', async () => {
    const { store } = await sealedStore(1);
    const rejection = await signedRejection('r-stale');
    await store.recordRejection(await signedRejection('r-other'));
    await store.recordRejection(rejection);
    const outcome = await client(store).waitForOutcome(TEST_LINEAGE_ID, 'r-stale');
    expect(outcome).toMatchObject({ kind: 'REJECTED', rejection });
  });

  it('docs/pipeline.md fencing CONFLICT: the STALE_EPOCH conflict record of this write', async () => {
    const { store } = await sealedStore(1);
    const conflict = await signedConflict('r-fenced');
    await store.recordConflict(conflict);
    expect(await client(store).waitForOutcome(TEST_LINEAGE_ID, 'r-fenced')).toMatchObject({
      kind: 'CONFLICT',
      conflict,
    });
  });

  it('the latest refusal wins between a rejection and a conflict; a seal of the same id wins over both', async () => {
    const { store } = await sealedStore(2);
    await store.recordConflict(await signedConflict('residual-1', { atMs: TEST_NOW_MS }));
    await store.recordRejection(await signedRejection('residual-1', { atMs: TEST_NOW_MS + 1 }));
    await store.recordRejection(await signedRejection('r-x', { atMs: TEST_NOW_MS }));
    await store.recordConflict(await signedConflict('r-x', { atMs: TEST_NOW_MS + 1 }));
    expect((await client(store).waitForOutcome(TEST_LINEAGE_ID, 'residual-1')).kind).toBe('SEALED');
    expect((await client(store).waitForOutcome(TEST_LINEAGE_ID, 'r-x')).kind).toBe('CONFLICT');
  });

  it('a rejection filed under another lineage is not this write’s outcome', async () => {
    const store = new InMemoryLineageStore();
    await store.recordRejection(await signedRejection('r-1', { lineageId: 'other-lineage' }));
    let now = 0;
    const wait = client(store, {
      nowMs: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    }).waitForOutcome(TEST_LINEAGE_ID, 'r-1', { timeoutMs: 100, pollIntervalMs: 50 });
    await expect(wait).rejects.toBeInstanceOf(TimeoutError);
  });

  it('throws a TimeoutError naming the residual and lineage it waited for, after timeoutMs', async () => {
    let now = 0;
    const sleep = vi.fn(async (ms: number) => {
      now += ms;
    });
    const wait = client(new InMemoryLineageStore(), { nowMs: () => now, sleep }).waitForOutcome(
      TEST_LINEAGE_ID,
      'r-never',
      { timeoutMs: 1000, pollIntervalMs: 300 },
    );
    await expect(wait).rejects.toBeInstanceOf(TimeoutError);
    await expect(wait).rejects.toMatchObject({
      timeoutMs: 1000,
      waitedFor: expect.stringMatching(new RegExp(`r-never.*${TEST_LINEAGE_ID}`)),
    });
    expect(now).toBe(1000);
  });

  it('docs/sealing.md verification step 15 (hash-with-payload forgery): a marked record edited or re-signed without the key is never returned as a checkpoint', async () => {
    const { store, records } = await sealedStore(2);
    store.tamperRecord(TEST_LINEAGE_ID, 1, (record) => {
      record.payload = { conclusion: 'edited' };
    });
    await expect(client(store).waitForOutcome(TEST_LINEAGE_ID, 'residual-1')).rejects.toMatchObject({
      name: 'UnverifiedOutcomeError',
      verdict: 'HASH_MISMATCH',
      seq: 1,
    });
    const forged = await resealRecord(records[1] as SealedRecord, { payload: { forged: true } }, forgerAnchor());
    store.records.get(TEST_LINEAGE_ID)?.set(1, JSON.stringify(forged));
    await expect(client(store).waitForOutcome(TEST_LINEAGE_ID, 'residual-1')).rejects.toBeInstanceOf(
      UnverifiedOutcomeError,
    );
  });

  it('a marker pointing at another write’s (genuine) record, or at nothing, is refused', async () => {
    const { store } = await sealedStore(2);
    // A marker edited in the table: r-liar claims residual-0's record.
    const find = store.findByResidualId.bind(store);
    store.findByResidualId = async (lineageId, residualId) =>
      residualId === 'r-liar' ? { lineageId, seq: 0 } : find(lineageId, residualId);
    await expect(client(store).waitForOutcome(TEST_LINEAGE_ID, 'r-liar')).rejects.toMatchObject({
      verdict: 'LINEAGE_BROKEN',
      reason: expect.stringContaining('which seals residual-0'),
    });
    store.deleteRecord(TEST_LINEAGE_ID, 1);
    await expect(client(store).waitForOutcome(TEST_LINEAGE_ID, 'residual-1')).rejects.toMatchObject({
      verdict: 'LINEAGE_BROKEN',
      reason: 'record 1 is missing',
    });
  });

  it('a log signed by another key (a forger’s, same key name) cannot confirm the seal: the checkpoint does not verify', async () => {
    const { store } = await sealedStore(1);
    const wait = client(store, { logKey: await verifierKeyOf(forgerLogSigner()) }).waitForOutcome(
      TEST_LINEAGE_ID,
      'residual-0',
    );
    await expect(wait).rejects.toMatchObject({ name: 'UnverifiedOutcomeError', verdict: 'HASH_MISMATCH' });
  });
});

describe('ResealClient.waitForOutcome: refusals count only when signed by the function that decided them', () => {
  const timed = (store: InMemoryLineageStore, residualId: string, request?: ReturnType<typeof requestOf>) =>
    client(store).waitForOutcome(TEST_LINEAGE_ID, residualId, { timeoutMs: 2_000, ...(request ? { request } : {}) });

  it('docs/verifiable-log.md "Recall" cost: a forged rejection item for a write that was sealed does not make it REJECTED', async () => {
    const { store, requests } = await signedStore(2);
    const lineageId = SIGNED_LINEAGE_ID;
    // Table write access, no KMS: an unsigned rejection, and one signed by a forger's key.
    await store.recordRejection(staleRejection('residual-1', { lineageId, atMs: TEST_NOW_MS + 60_000 }));
    await store.recordRejection(
      await signedRejection(
        'residual-1',
        { lineageId, atMs: TEST_NOW_MS + 60_001, messageId: 'm-forged' },
        forgerLogSigner(),
      ),
    );
    const outcome = await client(store).waitForOutcome(lineageId, 'residual-1', {
      timeoutMs: 2_000,
      request: requests[1],
    });
    expect(outcome.kind).toBe('SEALED');
  });

  it('an unsigned, forged, edited or moved rejection is ignored: the wait times out instead of reporting it', async () => {
    const store = new InMemoryLineageStore();
    await store.recordRejection(staleRejection('r-unsigned'));
    await store.recordRejection(await signedRejection('r-forged', {}, forgerLogSigner()));
    // A guard rejection signed with the log key: the right signature of the wrong function.
    await store.recordRejection(await signedRejection('r-wrong-key', {}, testLogSigner()));
    const genuine = await signedRejection('r-edited');
    await store.recordRejection({ ...genuine, reason: 'PAYLOAD_TOO_LARGE' });
    const moved = await signedRejection('r-moved-from');
    await store.recordRejection({ ...moved, residualId: 'r-moved' });
    const conflict = await signedConflict('r-conflict-edited');
    await store.recordConflict({ ...conflict, detail: 'edited' });
    // A field edited to a string that cannot even be canonicalized: ignored, not a crash.
    const hostile = await signedRejection('r-hostile');
    await store.recordRejection({ ...hostile, issues: [{ path: '\ud800', message: 'x' }] });
    for (const id of [
      'r-unsigned',
      'r-forged',
      'r-wrong-key',
      'r-edited',
      'r-moved',
      'r-conflict-edited',
      'r-hostile',
    ]) {
      await expect(timed(store, id), id).rejects.toBeInstanceOf(TimeoutError);
    }
  });

  it('docs/verifiable-log.md "Signed outcomes": stage SEALER verifies with the sealer key, or the log key for refusals stored before it; never the guard key, and the sealer key never signs GUARD', async () => {
    const store = new InMemoryLineageStore();
    const sealerStage = { stage: 'SEALER', reason: 'RESIDUAL_ID_REUSED' } as const;
    const sealerRejection = await signedRejection('r-sealer', sealerStage);
    await store.recordRejection(sealerRejection);
    const legacyRejection = await signedRejection('r-legacy', sealerStage, testLogSigner());
    await store.recordRejection(legacyRejection);
    const legacyConflict = await signedConflict('r-legacy-conflict', {}, testLogSigner());
    await store.recordConflict(legacyConflict);
    await store.recordRejection(await signedRejection('r-sealer-by-guard', sealerStage, testGuardSigner()));
    await store.recordConflict(await signedConflict('r-conflict-by-guard', {}, testGuardSigner()));
    await store.recordRejection(await signedRejection('r-guard-by-sealer', {}, testSealerSigner()));
    // A sealer-key statement of stage GUARD, its item edited to claim SEALER.
    const guardStatement = await signedRejection('r-claimed', {}, testSealerSigner());
    await store.recordRejection({ ...guardStatement, stage: 'SEALER' });
    expect(await timed(store, 'r-sealer')).toMatchObject({
      kind: 'REJECTED',
      rejection: sealerRejection,
      statement: { stage: 'SEALER', reason: 'RESIDUAL_ID_REUSED' },
    });
    expect(await timed(store, 'r-legacy')).toMatchObject({ kind: 'REJECTED', rejection: legacyRejection });
    expect(await timed(store, 'r-legacy-conflict')).toMatchObject({ kind: 'CONFLICT', conflict: legacyConflict });
    for (const id of ['r-sealer-by-guard', 'r-conflict-by-guard', 'r-guard-by-sealer', 'r-claimed']) {
      await expect(timed(store, id), id).rejects.toBeInstanceOf(TimeoutError);
    }
    // A client pinned to another sealer key (a forger's, same name) takes no sealer-key refusal.
    const forged = client(store, { sealerKey: noteVerifierKey(TEST_SEALER_KEY.name, TEST_LOG_KEY.publicKey) });
    await expect(forged.waitForOutcome(TEST_LINEAGE_ID, 'r-sealer', { timeoutMs: 2_000 })).rejects.toBeInstanceOf(
      TimeoutError,
    );
  });

  it('a signed rejection of another request under the same id is not this write’s outcome', async () => {
    const { records } = await buildChain(1);
    const request = requestOf(records[0] as SealedRecord);
    const store = new InMemoryLineageStore();
    const other = { ...request, payload: { other: 'content' } };
    await store.recordRejection(await signedRejection('residual-0', { requestDigest: requestDigest(other) }));
    await expect(timed(store, 'residual-0', request)).rejects.toBeInstanceOf(TimeoutError);
    await store.recordRejection(
      await signedRejection('residual-0', {
        requestDigest: requestDigest(request),
        messageId: 'm-this',
        atMs: TEST_NOW_MS + 1,
      }),
    );
    expect(await timed(store, 'residual-0', request)).toMatchObject({
      kind: 'REJECTED',
      rejection: { messageId: 'm-this' },
      statement: { reason: 'STALE_STATE', stage: 'GUARD' },
    });
  });

  it('a sealed outcome carries the signed checkpoint and an inclusion proof that verify offline', async () => {
    const { store, records } = await sealedStore(3);
    const outcome = await timed(store, 'residual-1');
    if (outcome.kind !== 'SEALED') throw new Error(`expected SEALED, got ${outcome.kind}`);
    const checkpoint = verifyCheckpoint(outcome.checkpoint ?? '', TEST_LOG_KEY, `${TEST_LOG_NAME}/${TEST_LINEAGE_ID}`);
    expect(checkpoint.size).toBe(3);
    expect(verifyRecordProof(records[1], outcome.proof, checkpoint, TEST_LINEAGE_ID).verdict).toBe('VERIFIED_INTACT');
  });
});
