import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../cli/exit-codes';
import { writeOutcomeExitCode } from '../../../cli/format/write-outcome-exit-code';
import { writeOutcomeText } from '../../../cli/format/write-outcome-text';
import { UnverifiedOutcomeError } from '../../../client/errors';
import { ResealClient } from '../../../client/reseal-client';
import type { WriteOutcome } from '../../../client/write-outcomes';
import type { LineagePolicy } from '../../../shared/authorship/lineage-policy';
import { checkpointOrigin } from '../../../shared/log/checkpoint-origin';
import { extendLog } from '../../../shared/log/log-extension';
import { authenticateLogState } from '../../../shared/log/log-state';
import { requestDigest } from '../../../shared/write/request-digest';
import { appendBatch } from '../../helpers/append-batch';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { FACTORY_NOW_MS } from '../../helpers/guard-factories';
import { InMemoryLineageStore, markerKey } from '../../helpers/in-memory-lineage-store';
import { integratedStack } from '../../helpers/integrated-stack';
import { signedConflict, signedRejection } from '../../helpers/outcome-factories';
import { TEST_CLIENT_KEYS, TEST_LOG_KEY, TEST_LOG_NAME } from '../../helpers/pipeline-keys';
import { buildChain, forgerAnchor, TEST_LINEAGE_ID } from '../../helpers/seal-factories';
import { signWriteSync, TEST_POLICY, testLineageId, testWriter } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-mac-head-outcome');

/** A client reading the table alone: no deployment log, no index (`freshness: null` in its outcomes). */
function blindClient(store: InMemoryLineageStore): ResealClient {
  let now = 0;
  return new ResealClient(TEST_CLIENT_OUTPUTS, {
    ...TEST_CLIENT_KEYS,
    store,
    anchor: forgerAnchor(),
    nowMs: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  });
}

/**
 * Two records of the table writer's own chain (its own MAC key) stored with a head carrying no
 * signed note and a made-up head-state MAC: what a table writer can put there. Returns the second
 * record's residual id.
 */
async function forgedMacHead(store: InMemoryLineageStore): Promise<{ readonly residualId: string }> {
  const { records } = await buildChain(2, { anchor: forgerAnchor() });
  const origin = checkpointOrigin(TEST_LOG_NAME, TEST_LINEAGE_ID);
  const extension = extendLog(
    authenticateLogState(null, { lineageId: TEST_LINEAGE_ID, origin, key: TEST_LOG_KEY }),
    records,
    origin,
  );
  await appendBatch(store, {
    lineageId: TEST_LINEAGE_ID,
    entries: extension.entries,
    expectedHead: null,
    headMac: { keyId: 'forged', algorithm: 'HMAC_SHA_256', mac: 'AAAA' },
    checkpoint: null,
    frontier: extension.storedFrontier,
  });
  return { residualId: (records[1] as (typeof records)[number]).header.residualId };
}

/** The seal, asserted `SEALED` with no signed checkpoint. */
function sealedOf(outcome: WriteOutcome): Extract<WriteOutcome, { kind: 'SEALED' }> {
  if (outcome.kind !== 'SEALED') throw new Error(`expected SEALED, got ${outcome.kind}`);
  expect(outcome.checkpoint).toBeNull();
  return outcome;
}

// docs/verifiable-log.md, "Signed outcomes": a seal proven only in a head the sealer MAC'd is the
// sealer's word; a client reading no deployment log cannot check that MAC, so it never reads as
// proven (docs/cli.md, `publish --wait`: exit 3), as a recall of the same record ends awaiting integration.
describe('waitForOutcome without a deployment log: a seal in a head the sealer MAC’d is awaiting integration', () => {
  it('a record, marker and head a table writer put there (no signed checkpoint) are not a proven SEALED, and publish --wait offers no --checkpoint of them', async () => {
    const store = new InMemoryLineageStore();
    // The table writer's own chain (its own MAC key), a head with no signed note and a made-up MAC.
    const { residualId } = await forgedMacHead(store);
    const outcome = sealedOf(await blindClient(store).waitForOutcome(TEST_LINEAGE_ID, residualId, { timeoutMs: 1000 }));
    expect(outcome.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
    expect(outcome.freshness?.reason).toMatch(/this client reads no deployment log/);
    expect(writeOutcomeExitCode(outcome)).toBe(ExitCode.AWAITING_INTEGRATION);
    // `publish --wait` text: neither a signed checkpoint nor a --checkpoint to keep from a head no client can check.
    const text = writeOutcomeText(outcome);
    expect(text).not.toMatch(/signed checkpoint of/);
    expect(text).not.toMatch(/--checkpoint \d/);
    expect(text).toMatch(/^proof: +leaf 1 of the head item's tree of 2 records \(no signed checkpoint/m);
    expect(text).toMatch(/^checkpoint: +none to keep: this head is the table's word/m);
  });

  it('an honest seal by a sealer that signs no lineage checkpoint reads alike, and untilProven does not wait it out', async () => {
    const s = integratedStack({ signLineageCheckpoints: false });
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.integrate();
    const request = s.request({ lineageId: LINEAGE, residualId: 'r-0' });
    let sleeps = 0;
    const client = s.client({
      deps: { deploymentLog: undefined, indexNodes: undefined },
      onSleep: async () => {
        sleeps++;
      },
    });
    const outcome = sealedOf(
      await client.waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 10_000, untilProven: true }),
    );
    expect(outcome.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
    // Nothing could make it PROVEN without a deployment log: the first proven seal ends the wait.
    expect(sleeps).toBe(0);
    // A client that reads the deployment log finds the same seal PROVEN once integrated.
    const reader = s.client();
    expect(sealedOf(await reader.waitForOutcome(LINEAGE, 'r-0', { request })).freshness?.state).toBe('PROVEN');
  });

  it('a record in a MAC’d head with no marker naming it is awaiting integration, never a HiddenSealError (that tree vouches for nothing here)', async () => {
    const store = new InMemoryLineageStore();
    // A head a table writer could forge (its own MAC key, no signed note), its records' markers absent.
    const { residualId } = await forgedMacHead(store);
    store.markers.clear();
    const outcome = sealedOf(await blindClient(store).waitForOutcome(TEST_LINEAGE_ID, residualId, { timeoutMs: 1000 }));
    expect(outcome.head.seq).toBe(1);
    expect(outcome.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
    expect(outcome.freshness?.reason).toMatch(/no residual-id marker names it \(found at seq 1/);
    expect(writeOutcomeExitCode(outcome)).toBe(ExitCode.AWAITING_INTEGRATION);
  });
});

/** A write sealed in a head the sealer MAC'd (not integrated), and a guard refusal signed for the same request. */
async function refusedAndSealed() {
  const s = integratedStack({ signLineageCheckpoints: false });
  await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
  const request = s.request({ lineageId: LINEAGE, residualId: 'r-0' });
  await s.store.recordRejection(
    await signedRejection('r-0', { lineageId: LINEAGE, requestDigest: requestDigest(request), atMs: s.clock.now }),
  );
  return { s, request };
}

// docs/pipeline.md, "Polling the table": a seal that is only the table's word (a head the sealer
// MAC'd, not integrated) never outranks a refusal signed for this very request; a proven seal does.
describe('waitForOutcome: a signed refusal of this request outranks a seal that is only the table’s word', () => {
  it('a seal awaiting integration beside a signed refusal of the same request → REJECTED at the deadline, never SEALED', async () => {
    const { s, request } = await refusedAndSealed();
    for (const untilProven of [false, true]) {
      const outcome = await s.client().waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 5_000, untilProven });
      expect(outcome.kind, `untilProven ${untilProven}`).toBe('REJECTED');
    }
    // A client that reads no deployment log could never see it proven: the refusal at once.
    let sleeps = 0;
    const blind = s.client({
      deps: { deploymentLog: undefined, indexNodes: undefined },
      onSleep: async () => {
        sleeps++;
      },
    });
    expect((await blind.waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 5_000 })).kind).toBe('REJECTED');
    expect(sleeps).toBe(0);
  });

  it('the same seal proven through the deployment log (a duplicate delivery refused after the seal) → SEALED PROVEN', async () => {
    const { s, request } = await refusedAndSealed();
    // Integrated while the client waits: the seal becomes proven before the deadline.
    const waiting = s.client({ onSleep: () => s.integrate().then(() => undefined) });
    const outcome = sealedOf(await waiting.waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 5_000 }));
    expect(outcome.freshness?.state).toBe('PROVEN');
    expect(writeOutcomeExitCode(outcome)).toBe(ExitCode.OK);
  });
});

// docs/pipeline.md, "Polling the table": a table writer who deletes the marker of a proven seal
// beside a refusal signed for the same request (a refused duplicate delivery) does not turn the seal
// into REJECTED: the seal is looked for where the table cannot forge it before the refusal answers.
describe('waitForOutcome: a deleted marker beside a signed refusal of the same request', () => {
  it('a seal proven through the deployment log → HiddenSealError, never REJECTED', async () => {
    const { s, request } = await refusedAndSealed();
    await s.integrate();
    s.store.markers.delete(markerKey(LINEAGE, 'r-0'));
    for (const untilProven of [false, true]) {
      const waited = s.client().waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 5_000, untilProven });
      await expect(waited, `untilProven ${untilProven}`).rejects.toMatchObject({ name: 'HiddenSealError', seq: 0 });
    }
  });

  it("a seal only a head the sealer MAC'd shows → the signed refusal stands, as beside its marker", async () => {
    const { s, request } = await refusedAndSealed();
    s.store.markers.delete(markerKey(LINEAGE, 'r-0'));
    const outcome = await s.client().waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 5_000 });
    expect(outcome.kind).toBe('REJECTED');
  });
});

// docs/pipeline.md, "Polling the table": the sealer reads the marker before it refuses and answers a
// request it sealed as a duplicate, so its refusal signed for a request whose seal is also found
// means the table was edited (a marker pointed away for one delivery, then back): unless the seal is
// proven, a tamper finding naming both, never the refusal and never SEALED.
describe('waitForOutcome: a refusal the sealer signed for a sealed request is a tamper finding', () => {
  /** A write sealed in a head the sealer MAC'd (not integrated), and a sealer refusal signed for the same request. */
  async function sealedAndSealerRefused(kind: 'conflict' | 'rejection') {
    const s = integratedStack({ signLineageCheckpoints: false });
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    const request = s.request({ lineageId: LINEAGE, residualId: 'r-0' });
    const named = { lineageId: LINEAGE, requestDigest: requestDigest(request), atMs: s.clock.now };
    if (kind === 'conflict') {
      await s.store.recordConflict(
        await signedConflict('r-0', {
          ...named,
          reason: 'LINEAGE_INCONSISTENT',
          detail: 'marker names another lineage',
        }),
      );
    } else {
      await s.store.recordRejection(
        await signedRejection('r-0', { ...named, stage: 'SEALER', reason: 'SEAL_REFUSED', rejectedVariables: [] }),
      );
    }
    return { s, request };
  }

  for (const kind of ['conflict', 'rejection'] as const) {
    it(`a seal awaiting integration beside a sealer-signed ${kind} of the same request → UNVERIFIED_TAMPER_RISK naming both, never the refusal nor SEALED`, async () => {
      const { s, request } = await sealedAndSealerRefused(kind);
      for (const untilProven of [false, true]) {
        const waiting = s.client().waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 5_000, untilProven });
        const error = await waiting.then(
          (outcome) => outcome,
          (thrown: unknown) => thrown,
        );
        expect(error, `untilProven ${untilProven}`).toBeInstanceOf(UnverifiedOutcomeError);
        const finding = error as UnverifiedOutcomeError;
        expect(finding.verdict).toBe('UNVERIFIED_TAMPER_RISK');
        expect(finding.seq).toBe(0);
        expect(finding.reason).toMatch(
          kind === 'conflict'
            ? /LINEAGE_INCONSISTENT conflict .* the sealer signed/
            : /SEAL_REFUSED rejection .* the sealer signed/,
        );
        expect(finding.reason).toMatch(/its seal \(seq 0, record [0-9a-f]{64}, SEALED_AWAITING_INTEGRATION\)/);
      }
      // A client that reads no deployment log could never see it proven: the finding at once.
      let sleeps = 0;
      const blind = s.client({
        deps: { deploymentLog: undefined, indexNodes: undefined },
        onSleep: async () => {
          sleeps++;
        },
      });
      await expect(blind.waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 5_000 })).rejects.toThrow(
        UnverifiedOutcomeError,
      );
      expect(sleeps).toBe(0);
    });
  }

  it('the same seal proven through the deployment log while it waits → SEALED PROVEN, exit 0', async () => {
    const { s, request } = await sealedAndSealerRefused('conflict');
    const waiting = s.client({ onSleep: () => s.integrate().then(() => undefined) });
    const outcome = sealedOf(await waiting.waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 5_000 }));
    expect(outcome.freshness?.state).toBe('PROVEN');
    expect(writeOutcomeExitCode(outcome)).toBe(ExitCode.OK);
  });

  it('a guard refusal and a sealer conflict both signed for it: the sealer’s contradicts the seal, the guard’s does not hide that', async () => {
    const { s, request } = await sealedAndSealerRefused('conflict');
    await s.store.recordRejection(
      await signedRejection('r-0', {
        lineageId: LINEAGE,
        requestDigest: requestDigest(request),
        atMs: s.clock.now + 1,
      }),
    );
    await expect(s.client().waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 5_000 })).rejects.toThrow(
      UnverifiedOutcomeError,
    );
  });
});

// docs/authorship.md, "Two refusals, in order": the sealer answers an exact duplicate before
// admission, so the redelivery of a key rotation that dropped its own signing key adds no refusal.
describe('waitForOutcome: a redelivered key rotation that dropped its own key, on an honest table', () => {
  it('reads as its seal (awaiting integration, then PROVEN), never a tamper finding', async () => {
    const s = integratedStack({ signLineageCheckpoints: false });
    const second = testWriter('test-writer-2', 0x40);
    const both: LineagePolicy = {
      ...TEST_POLICY,
      writers: [...TEST_POLICY.writers, { keyId: second.keyId, publicKey: second.publicKey }],
    };
    const lineageId = testLineageId('lin-rotation-outcome', both);
    expect((await s.send({ lineageId, residualId: 'r-0', policy: both })).kind).toBe('SEALED');
    const fields = { lineageId, residualId: 'r-1', policy: TEST_POLICY };
    const request = s.request({ ...fields, writer: signWriteSync(s.request(fields), second, FACTORY_NOW_MS).writer });
    expect((await s.send(request)).kind).toBe('SEALED');
    expect((await s.send(request)).kind).toBe('DUPLICATE');
    expect(s.store.rejections).toEqual([]);
    const blind = s.client({ deps: { deploymentLog: undefined, indexNodes: undefined } });
    const awaiting = sealedOf(await blind.waitForOutcome(lineageId, 'r-1', { request, timeoutMs: 5_000 }));
    expect(awaiting.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
    await s.integrate();
    const proven = sealedOf(await s.client().waitForOutcome(lineageId, 'r-1', { request, timeoutMs: 5_000 }));
    expect(proven.freshness?.state).toBe('PROVEN');
  });
});
