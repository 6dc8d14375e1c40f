import { describe, expect, it, vi } from 'vitest';
import { evaluateWrite } from '../../../shared/guard/evaluate-write';
import type { SealRequest } from '../../../shared/pipeline/seal-request';
import type { ResidualWriteRequest } from '../../../shared/write/write-request';
import { faultyPipeline } from '../../helpers/faulty-pipeline';
import { expectGuarantee, type Guarantee } from '../../helpers/guarantees';
import {
  FACTORY_NOW_MS,
  guardPolicy,
  unverifiedInheritedVariable,
  validWriteRequest,
} from '../../helpers/guard-factories';
import { KmsFault } from '../../helpers/in-process-kms';
import { signWriteSync, testLineageId } from '../../helpers/writer-factories';

/**
 * Faults of the write path, in process (docs/guarantees.md "Faults"): the real guard and sealer handlers behind
 * simulated SQS queues with the stack's redrive policy, KMS through the SDK on an in-process
 * endpoint, one in-memory table, and the writer's own view through `ResealClient.waitForOutcome`
 * (what `publish --wait` runs). The invariant in every test: each accepted residual ends sealed
 * exactly once, or visibly refused where its writer looks; a write caught by an infrastructure
 * fault waits in the dead-letter queue, with the reason logged and nothing stored, until a redrive.
 */

const LINEAGE = testLineageId('lineage-faults');
const write = (residualId: string, overrides: Partial<ResidualWriteRequest> = {}) =>
  validWriteRequest({ lineageId: LINEAGE, residualId, ...overrides });

/** A row of the faults section. */
const fault = (target: string, attack: string, reader: string, expected: string): Guarantee => ({
  section: 'faults',
  target,
  attack,
  reader,
  expected,
});

/** `N record(s)` for the observed strings. */
const records = (n: number) => `${n} record${n === 1 ? '' : 's'}`;

describe('faults on the write path, in process (docs/guarantees.md "Faults")', () => {
  it('the same message twice (residual-writes at least once, seal-requests past its deduplication window) is sealed once', async (context) => {
    const p = faultyPipeline();
    const request = write('r-twice');
    // SQS delivers a standard queue's message at least once: the guard sees the same body twice,
    // and forwards it twice with one deduplication id, so the FIFO queue keeps one.
    await p.client.publishWrite(request);
    const view = await p.publishAndWait(request);
    const dropped = p.sealRequests.messages.length;
    // Past the FIFO queue's 5-minute window the same seal request arrives again (another dedup id).
    const body: SealRequest = {
      formatVersion: 1,
      request,
      verdict: evaluateWrite(request, guardPolicy()),
      acceptedAtMs: FACTORY_NOW_MS,
    };
    p.sealRequests.send(JSON.stringify(body), { groupId: LINEAGE, deduplicationId: 'late-redelivery' });
    await p.sealRequests.drain(p.runSealer);
    const again = await p.waitAs(request, FACTORY_NOW_MS - 5000);
    const { copies, verdict } = await p.sealedCopies(LINEAGE, 'r-twice');
    const reemitted = p.publisher.sealedResiduals.filter((e) => e.residualId === 'r-twice').length;
    expectGuarantee(
      context,
      fault(
        'residual write',
        'the same message twice (guard twice; seal request again past the dedup window)',
        'publish --wait (client.waitForOutcome)',
        'SEALED, SEALED after the redelivery; 1 record; chain VERIFIED_INTACT; ResidualSealed re-emitted',
      ),
      `${view}, ${again} after the redelivery; ${records(copies)}; chain ${verdict}${reemitted === 2 ? '; ResidualSealed re-emitted' : `; ${reemitted} ResidualSealed`}`,
    );
    expect(dropped).toBe(0);
    expect(await p.refusalsOf(LINEAGE, 'r-twice')).toEqual([]);
  });

  it('one residual id in two messages with different content: the first is sealed, the second visibly refused RESIDUAL_ID_REUSED', async (context) => {
    const p = faultyPipeline();
    const first = write('r-reused', { payload: { conclusion: 'first' } });
    const second = write('r-reused', { payload: { conclusion: 'second' } });
    const publishedFirst = await p.client.publishWrite(first);
    const publishedSecond = await p.client.publishWrite(second);
    const firstView = await p.waitAs(first, publishedFirst.publishedAtMs - 5000);
    const secondView = await p.waitAs(second, publishedSecond.publishedAtMs - 5000);
    const { copies, chain } = await p.sealedCopies(LINEAGE, 'r-reused');
    const sealedPayload = (chain[0] as { payload: { conclusion: string } } | undefined)?.payload.conclusion;
    expectGuarantee(
      context,
      fault(
        'residual write',
        'one residual id in two messages with different content',
        'publish --wait (client.waitForOutcome), each writer',
        'first SEALED; second REJECTED RESIDUAL_ID_REUSED; 1 record, holding the first',
      ),
      `first ${firstView}; second ${secondView} ${(await p.refusalsOf(LINEAGE, 'r-reused')).join(',')}; ${records(copies)}, holding the ${sealedPayload}`,
    );
  });

  it('the sealer failing after the KMS call and before the write, then retried: sealed once, the first MAC never stored', async (context) => {
    const p = faultyPipeline();
    const request = write('r-crash');
    let crashes = 0;
    p.store.beforeAppend = () => {
      // The record's MAC was made; the function dies before its put (the head state is MAC'd only after it).
      if (crashes++ === 0) throw new Error('Task timed out after 30.00 seconds');
    };
    const view = await p.publishAndWait(request);
    const { copies, verdict } = await p.sealedCopies(LINEAGE, 'r-crash');
    expectGuarantee(
      context,
      fault(
        'sealer',
        "fails after the record's GenerateMac, before the write; SQS redelivers",
        'publish --wait (client.waitForOutcome)',
        // The record's MAC per attempt; the head-state MAC once, after the record is stored
        // (docs/verifiable-log.md, "Appending").
        'SEALED; 1 record; chain VERIFIED_INTACT; 3 GenerateMac calls, 2 receives',
      ),
      `${view}; ${records(copies)}; chain ${verdict}; ${p.kms.attempts.get('GenerateMac')} GenerateMac calls, ${p.sealRequests.receives} receives`,
    );
    expect(p.sealerLog.error).toHaveBeenCalledWith(
      expect.stringContaining('infrastructure error'),
      expect.objectContaining({ error: expect.objectContaining({ message: expect.stringMatching(/timed out/) }) }),
    );
  });

  it('the sealer failing after the write, before the event and the acknowledgement: the retry re-answers, no second record', async (context) => {
    const p = faultyPipeline();
    const request = write('r-after-write');
    let failures = 0;
    const publish = p.publisher.residualSealed.bind(p.publisher);
    p.publisher.residualSealed = async (detail) => {
      if (failures++ === 0) throw new Error('EventBridge PutEvents: ServiceUnavailable');
      await publish(detail);
    };
    const view = await p.publishAndWait(request);
    await p.sealRequests.drain(p.runSealer);
    const { copies, verdict } = await p.sealedCopies(LINEAGE, 'r-after-write');
    expectGuarantee(
      context,
      fault(
        'sealer',
        'fails after the write, before ResidualSealed and the acknowledgement; SQS redelivers',
        'publish --wait (client.waitForOutcome)',
        'SEALED; 1 record; chain VERIFIED_INTACT; ResidualSealed emitted on the retry',
      ),
      `${view}; ${records(copies)}; chain ${verdict}; ResidualSealed ${p.publisher.sealed.length === 1 ? 'emitted on the retry' : `emitted ${p.publisher.sealed.length} times`}`,
    );
  });

  it('eight concurrent writers on one lineage through the FIFO queue: eight records in one chain', async (context) => {
    const p = faultyPipeline();
    const requests = Array.from({ length: 8 }, (_, i) => write(`r-fifo-${i}`));
    const published = await Promise.all(requests.map((r) => p.client.publishWrite(r)));
    const views = await Promise.all(requests.map((r, i) => p.waitAs(r, (published[i]?.publishedAtMs ?? 0) - 5000)));
    const { chain, verdict } = await p.sealedCopies(LINEAGE, '');
    expectGuarantee(
      context,
      fault(
        'lineage',
        'eight concurrent writers through seal-requests (FIFO group = lineage)',
        'publish --wait (client.waitForOutcome), each writer',
        '8 SEALED; 8 records; chain VERIFIED_INTACT',
      ),
      `${views.filter((v) => v === 'SEALED').length} SEALED; ${records(chain.length)}; chain ${verdict}`,
    );
  });

  it('eight concurrent sealers on one lineage outside the FIFO queue: each write sealed once or visibly LOST_RACE, never forked', async (context) => {
    const p = faultyPipeline();
    const requests = Array.from({ length: 8 }, (_, i) => write(`r-race-${i}`));
    // Eight sealer instances (as if eight Lambda instances on one lineage, the FIFO queue bypassed),
    // each with the store's lost-race retries: backoff with full jitter, five attempts.
    const outcomes = await Promise.all(
      requests.map((request, i) =>
        p.newSealer().handle({
          messageId: `race-${i}`,
          body: JSON.stringify({
            formatVersion: 1,
            request,
            verdict: evaluateWrite(request, guardPolicy()),
            acceptedAtMs: FACTORY_NOW_MS,
          } satisfies SealRequest),
          sentAtMs: FACTORY_NOW_MS + i,
        }),
      ),
    );
    const views = await Promise.all(requests.map((r) => p.waitAs(r, FACTORY_NOW_MS - 5000, 2000)));
    const { chain, verdict } = await p.sealedCopies(LINEAGE, '');
    let kept = 0;
    for (const [i, request] of requests.entries()) {
      const copies = chain.filter(
        (r) => (r as { header: { residualId: string } }).header.residualId === request.residualId,
      ).length;
      const refusals = await p.refusalsOf(LINEAGE, request.residualId);
      const sealedOnce = views[i] === 'SEALED' && copies === 1 && refusals.length === 0;
      const refused = views[i] === 'CONFLICT' && copies === 0 && refusals.join() === 'LOST_RACE';
      if (sealedOnce || refused) kept++;
    }
    const sealed = outcomes.filter((o) => o.kind === 'SEALED').length;
    expectGuarantee(
      context,
      fault(
        'lineage',
        'eight concurrent sealers outside the FIFO queue (lost-race retries with backoff and jitter)',
        'publish --wait (client.waitForOutcome), each writer',
        '8 of 8 writes sealed once or CONFLICT LOST_RACE; chain VERIFIED_INTACT, one record per seal',
      ),
      `${kept} of 8 writes sealed once or CONFLICT LOST_RACE; chain ${verdict}, ${chain.length === sealed ? 'one record per seal' : `${chain.length} records for ${sealed} seals`}`,
    );
    expect(sealed).toBeGreaterThanOrEqual(1);
  });

  describe.each([
    [KmsFault.DISABLED, 'DisabledException', 1],
    [KmsFault.THROTTLED, 'ThrottlingException', 3],
    [KmsFault.UNREACHABLE, 'EHOSTUNREACH', 3],
  ] as const)('KMS %s', (kmsFault, reason, sdkAttempts) => {
    it(`bounded retries (${sdkAttempts} SDK attempt${sdkAttempts === 1 ? '' : 's'} × 5 receives), then the dead-letter queue with ${reason} logged, nothing stored; a redrive seals it once`, async (context) => {
      const p = faultyPipeline();
      const request = write(`r-kms-${kmsFault.toLowerCase()}`);
      p.kms.fault = kmsFault;
      const published = await p.client.publishWrite(request);
      const view = await p.waitAs(request, published.publishedAtMs - 5000, 10_000);
      const dead = p.sealRequests.deadLetters;
      const logged = vi
        .mocked(p.sealerLog.error)
        .mock.calls.filter(([, fields]) => JSON.stringify(fields).includes(reason)).length;
      const stored =
        (await p.store.readChain(LINEAGE, 0, 10)).length +
        (await p.refusalsOf(LINEAGE, request.residualId)).length +
        ((await p.store.findByResidualId(LINEAGE, request.residualId)) ? 1 : 0);
      expectGuarantee(
        context,
        fault(
          'KMS (MAC key)',
          `${kmsFault.toLowerCase()} on GenerateMac`,
          'publish --wait, seal-requests DLQ, sealer log',
          `TIMEOUT; dead-lettered after 5 receives; ${5 * sdkAttempts} GenerateMac attempts; ${reason} logged on each receive; nothing stored`,
        ),
        `${view}; ${dead.length === 1 ? `dead-lettered after ${dead[0]?.receiveCount} receives` : `${dead.length} dead letters`}; ${p.kms.attempts.get('GenerateMac')} GenerateMac attempts; ${reason} logged ${logged === 5 ? 'on each receive' : `${logged} times`}; ${stored === 0 ? 'nothing stored' : `${stored} items stored`}`,
      );

      p.kms.fault = null;
      p.sealRequests.redrive();
      const redriven = await p.waitAs(request, published.publishedAtMs - 5000);
      const { copies, verdict } = await p.sealedCopies(LINEAGE, request.residualId);
      expectGuarantee(
        context,
        fault(
          'seal-requests DLQ',
          `redrive after KMS ${kmsFault.toLowerCase()} is cleared`,
          'publish --wait (client.waitForOutcome)',
          'SEALED; 1 record; chain VERIFIED_INTACT',
        ),
        `${redriven}; ${records(copies)}; chain ${verdict}`,
      );
    });
  });

  describe.each([
    ['seal-requests unreachable (the guard cannot forward)', 'sealQueueDown', 'ETIMEDOUT', write('r-guard-queue')],
    [
      'guard key disabled (the guard cannot sign its refusal)',
      'signerDisabled',
      'DisabledException',
      validWriteRequest({
        lineageId: LINEAGE,
        residualId: 'r-guard-key',
        variablesUsed: [unverifiedInheritedVariable('targetResourceId', 'i-1')],
      }),
    ],
  ] as const)('guard: %s', (what, flag, reason, request) => {
    it(`5 receives, then the residual-writes DLQ with ${reason} logged, nothing stored; a redrive answers it once`, async (context) => {
      const p = faultyPipeline();
      p.guardFaults[flag] = true;
      const published = await p.client.publishWrite(request);
      const view = await p.waitAs(request, published.publishedAtMs - 5000, 8000);
      const dead = p.residualWrites.deadLetters;
      const logged = vi
        .mocked(p.guardLog.error)
        .mock.calls.filter(([, fields]) => JSON.stringify(fields).includes(reason)).length;
      const stored = (await p.store.readChain(LINEAGE, 0, 10)).length + p.store.rejections.length;
      expectGuarantee(
        context,
        fault(
          'guard',
          what,
          'publish --wait, residual-writes DLQ, guard log',
          `TIMEOUT; dead-lettered after 5 receives; ${reason} logged on each receive; nothing stored`,
        ),
        `${view}; ${dead.length === 1 ? `dead-lettered after ${dead[0]?.receiveCount} receives` : `${dead.length} dead letters`}; ${reason} logged ${logged === 5 ? 'on each receive' : `${logged} times`}; ${stored === 0 ? 'nothing stored' : `${stored} items stored`}`,
      );
      p.guardFaults[flag] = false;
      p.residualWrites.redrive();
      const after = await p.waitAs(request, published.publishedAtMs - 5000);
      const expected = flag === 'sealQueueDown' ? 'SEALED' : 'REJECTED';
      expectGuarantee(
        context,
        fault(
          'residual-writes DLQ',
          `redrive once the fault is gone (${what})`,
          'publish --wait (client.waitForOutcome)',
          `${expected}; ${flag === 'sealQueueDown' ? '1 record' : '0 records, 1 rejection'}`,
        ),
        `${after}; ${records((await p.store.readChain(LINEAGE, 0, 10)).length)}${flag === 'sealQueueDown' ? '' : `, ${p.store.rejections.length} rejection${p.store.rejections.length === 1 ? '' : 's'}`}`,
      );
    });
  });

  it('poison messages at the head of a FIFO group are refused and recorded on their first receive; the group behind them is sealed', async (context) => {
    const p = faultyPipeline();
    const genuine = [write('r-behind-0'), write('r-behind-1')];
    const forged = write('r-forged');
    const poison = [
      '{"formatVersion":1,"request":',
      JSON.stringify({ formatVersion: 1, request: write('r-schema'), verdict: null, acceptedAtMs: FACTORY_NOW_MS }),
      JSON.stringify({
        formatVersion: 1,
        request: forged,
        verdict: { isSafe: true, rejectedVariables: [], requestViolations: [], verdictDigest: 'a'.repeat(64) },
        acceptedAtMs: FACTORY_NOW_MS,
      }),
    ];
    for (const [i, body] of poison.entries())
      p.sealRequests.send(body, { groupId: LINEAGE, deduplicationId: `poison-${i}` });
    p.residualWrites.send('not json at all');
    const published = await Promise.all(genuine.map((r) => p.client.publishWrite(r)));
    const views = await Promise.all(genuine.map((r, i) => p.waitAs(r, (published[i]?.publishedAtMs ?? 0) - 5000)));
    const reasons = [
      ...p.store.rejections.filter((r) => r.stage === 'SEALER').map((r) => r.reason),
      ...p.store.rejections.filter((r) => r.stage === 'GUARD').map((r) => `guard ${r.reason}`),
    ];
    const forgedView = await p.waitAs(forged, FACTORY_NOW_MS - 5000, 1000);
    const { chain, verdict } = await p.sealedCopies(LINEAGE, '');
    expectGuarantee(
      context,
      fault(
        'seal-requests and residual-writes',
        'poison messages (not JSON, not a SealRequest, a forged verdict) ahead of genuine writes',
        'table, publish --wait, both DLQs',
        'refused once each: MALFORMED_JSON, SCHEMA_VIOLATION, VERDICT_MISMATCH, guard MALFORMED_JSON; forged writer sees REJECTED; 2 genuine SEALED; 2 records, chain VERIFIED_INTACT; DLQs empty',
      ),
      `refused once each: ${reasons.join(', ')}; forged writer sees ${forgedView}; ${views.filter((v) => v === 'SEALED').length} genuine SEALED; ${records(chain.length)}, chain ${verdict}; DLQs ${p.sealRequests.deadLetters.length + p.residualWrites.deadLetters.length === 0 ? 'empty' : 'not empty'}`,
    );
  });

  it('a message that fails on every receive is dead-lettered with its FIFO group behind it; other lineages go on; a redrive seals all once, in order', async (context) => {
    const p = faultyPipeline();
    const poisoned = write('r-poisoned');
    const behind = write('r-behind');
    const other = write('r-other', { lineageId: testLineageId('lineage-other') });
    // An infrastructure fault only this write meets (say, an item the table refuses to store).
    p.store.beforeAppend = (batch) => {
      if (batch.entries.some((e) => e.record.header.residualId === 'r-poisoned')) {
        throw new Error('ValidationException: Item size has exceeded the maximum allowed size');
      }
    };
    const sinceMs = FACTORY_NOW_MS - 5000;
    for (const request of [poisoned, behind, other]) await p.client.publishWrite(request);
    const views = await Promise.all([poisoned, behind, other].map((r) => p.waitAs(r, sinceMs, 8000)));
    const dead = p.sealRequests.deadLetters.map((m) => (JSON.parse(m.body) as SealRequest).request.residualId);
    expectGuarantee(
      context,
      fault(
        'seal-requests',
        'a message that fails on every receive, with a later write of its lineage in the same group',
        'publish --wait, seal-requests DLQ',
        'poisoned TIMEOUT, behind TIMEOUT (FIFO order kept), other lineage SEALED; DLQ: r-poisoned, r-behind',
      ),
      `poisoned ${views[0]}, behind ${views[1]}${views[1] === 'TIMEOUT' ? ' (FIFO order kept)' : ''}, other lineage ${views[2]}; DLQ: ${dead.join(', ')}`,
    );

    p.store.beforeAppend = null;
    p.sealRequests.redrive();
    const after = await Promise.all([poisoned, behind].map((r) => p.waitAs(r, sinceMs)));
    const { chain, verdict } = await p.sealedCopies(LINEAGE, '');
    const order = chain.map((r) => (r as { header: { residualId: string } }).header.residualId);
    expectGuarantee(
      context,
      fault(
        'seal-requests DLQ',
        'redrive once the fault is gone',
        'publish --wait (client.waitForOutcome)',
        'SEALED, SEALED; records r-poisoned, r-behind; chain VERIFIED_INTACT',
      ),
      `${after.join(', ')}; records ${order.join(', ')}; chain ${verdict}`,
    );
  });

  it('a redrive of a message whose write already landed re-answers it: still one record, the writer sees SEALED', async (context) => {
    const p = faultyPipeline();
    const request = write('r-landed');
    // The write lands, but every ResidualSealed fails: SQS gives up after 5 receives.
    const publish = p.publisher.residualSealed.bind(p.publisher);
    let failing = true;
    p.publisher.residualSealed = async (detail) => {
      if (failing) throw new Error('EventBridge PutEvents: AccessDeniedException');
      await publish(detail);
    };
    const published = await p.client.publishWrite(request);
    const before = await p.waitAs(request, published.publishedAtMs - 5000);
    await p.sealRequests.drain(p.runSealer);
    const deadLetters = p.sealRequests.deadLetters.length;
    failing = false;
    p.sealRequests.redrive();
    await p.sealRequests.drain(p.runSealer);
    const after = await p.waitAs(request, published.publishedAtMs - 5000);
    const { copies, verdict } = await p.sealedCopies(LINEAGE, request.residualId);
    expectGuarantee(
      context,
      fault(
        'seal-requests DLQ',
        'redrive of a message whose record was already written',
        'publish --wait (client.waitForOutcome)',
        'SEALED before, 1 dead letter, SEALED after; 1 record; chain VERIFIED_INTACT; ResidualSealed emitted once',
      ),
      `${before} before, ${deadLetters} dead letter, ${after} after; ${records(copies)}; chain ${verdict}; ResidualSealed emitted ${p.publisher.sealed.length === 1 ? 'once' : `${p.publisher.sealed.length} times`}`,
    );
  });

  it('the documented redrive (resend the request to residual-writes) after its receipt expired is a visible STALE_STATE refusal, nothing sealed', async (context) => {
    const p = faultyPipeline();
    const request = write('r-late');
    p.kms.fault = KmsFault.DISABLED;
    const published = await p.client.publishWrite(request);
    const first = await p.waitAs(request, published.publishedAtMs - 5000, 10_000);
    const [dead] = p.sealRequests.deadLetters.splice(0);
    p.kms.fault = null;
    // The request is resent an hour later: the guard judges it again, at now. Its writer signs it
    // again first, since a signature that old is refused as a replay (docs/authorship.md).
    p.clock.now += 3_600_000;
    const deadRequest = (JSON.parse(dead?.body ?? '{}') as SealRequest).request;
    const resigned = signWriteSync(deadRequest, undefined, p.clock.now);
    const resent = await p.client.publishWrite(resigned);
    const view = await p.waitAs(resigned, resent.publishedAtMs - 5000);
    const { copies } = await p.sealedCopies(LINEAGE, request.residualId);
    expectGuarantee(
      context,
      fault(
        'seal-requests DLQ',
        'redrive by resending the request to residual-writes after its receipt expired',
        'publish --wait (client.waitForOutcome)',
        'TIMEOUT, then REJECTED STALE_STATE; 0 records',
      ),
      `${first}, then ${view} ${(await p.refusalsOf(LINEAGE, request.residualId)).join(',')}; ${records(copies)}`,
    );
  });
});
