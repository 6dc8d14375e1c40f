import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { vi } from 'vitest';
import { deduplicationIdOf } from '../../adapters/deduplication-id';
import { KMSMacAnchor } from '../../adapters/kms-mac-anchor';
import { SQSSealQueue } from '../../adapters/sqs-seal-queue';
import { TimeoutError } from '../../client/errors';
import { publishWaitSince } from '../../client/publish-wait-since';
import { ResealClient } from '../../client/reseal-client';
import type { WriteOutcome } from '../../client/write-outcomes';
import { createGuardHandler } from '../../functions/guard/create-handler';
import { GuardService } from '../../functions/guard/guard-service';
import { createSealerHandler } from '../../functions/sealer/create-handler';
import { SealerService } from '../../functions/sealer/sealer-service';
import { verifyChain } from '../../shared/seal/verify-chain';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { FakeMetrics, FakePublisher, fakeLogger, lambdaContext, TEST_CLIENT_OUTPUTS } from './factories';
import { FACTORY_NOW_MS } from './guard-factories';
import { InMemoryLineageStore } from './in-memory-lineage-store';
import { InProcessKms } from './in-process-kms';
import { TEST_CLIENT_KEYS, TEST_LOG_NAME, testGuardSigner, testLogSigner, testSealerSigner } from './pipeline-keys';
import { TEST_KEY_ID, testAnchor } from './seal-factories';
import { SimulatedQueue } from './simulated-queue';

/**
 * A `send` of `SendMessageCommand`s and `SendMessageBatchCommand`s (the guard forwards in batches)
 * into a {@link SimulatedQueue}; `down()` makes it fail as an unreachable SQS would.
 */
function sqsInto(queue: SimulatedQueue, down: () => boolean = () => false) {
  const put = (entry: { MessageBody?: string; MessageGroupId?: string; MessageDeduplicationId?: string }) => {
    const { MessageBody, MessageGroupId, MessageDeduplicationId } = entry;
    const id = queue.send(MessageBody ?? '', {
      ...(MessageGroupId ? { groupId: MessageGroupId } : {}),
      ...(MessageDeduplicationId ? { deduplicationId: MessageDeduplicationId } : {}),
    });
    return id ?? `dropped-as-duplicate-${MessageDeduplicationId}`;
  };
  return {
    send: async (command: SendMessageCommand | SendMessageBatchCommand) => {
      if (down())
        throw Object.assign(new Error('connect ETIMEDOUT sqs.us-east-1.amazonaws.com:443'), { code: 'ETIMEDOUT' });
      if ('Entries' in command.input) {
        const entries = command.input.Entries ?? [];
        return { Successful: entries.map((entry) => ({ Id: entry.Id, MessageId: put(entry) })), Failed: [] };
      }
      return { MessageId: put(command.input) };
    },
  };
}

/** A Powertools logger and metrics that print and publish nothing (the services log to a spy). */
function silentPowertools() {
  const logger = new Logger({ serviceName: 'reseal-faults-test', logLevel: 'SILENT' });
  const metrics = new Metrics({ namespace: 'Reseal', serviceName: 'reseal-faults-test' });
  vi.spyOn(metrics, 'publishStoredMetrics').mockReturnValue(metrics);
  return { logger, metrics };
}

/** What a writer learned: an outcome, or nothing before its deadline. */
export type WriterView = WriteOutcome['kind'] | 'TIMEOUT';

/**
 * The write path in process for fault injection (docs/guarantees.md "Faults"): the real guard and sealer
 * handlers (middy, Powertools batch processing, partial batch responses) behind
 * {@link SimulatedQueue}s with the stack's redrive policy (5 receives, then the dead-letter
 * queue), the sealer's MACs through a real `KMSClient` on an {@link InProcessKms} (so KMS faults
 * meet the SDK's retry strategy), one in-memory table, and a real {@link ResealClient} as the
 * writer. Time passes only when the client waits: each wait is one receive on each queue.
 */
export function faultyPipeline() {
  const clock = { now: FACTORY_NOW_MS };
  const nowMs = () => clock.now;
  const store = new InMemoryLineageStore();
  const publisher = new FakePublisher();
  const kms = new InProcessKms();
  const residualWrites = new SimulatedQueue('residual-writes', { nowMs });
  const sealRequests = new SimulatedQueue('seal-requests.fifo', { fifo: true, nowMs });
  const guardLog = fakeLogger();
  /** Faults of the guard's own dependencies: the seal-requests queue, and its KMS signing key. */
  const guardFaults = { sealQueueDown: false, signerDisabled: false };
  const guardSigner = testGuardSigner();
  const sealerLog = fakeLogger();
  const guard = new GuardService({
    store,
    publisher,
    queue: new SQSSealQueue(
      sqsInto(sealRequests, () => guardFaults.sealQueueDown),
      'http://sqs.invalid/seal-requests.fifo',
    ),
    signer: {
      keyName: guardSigner.keyName,
      publicKey: () => guardSigner.publicKey(),
      sign: async (message: Uint8Array) => {
        if (guardFaults.signerDisabled) throw new Error('KMS Sign: DisabledException: the guard key is disabled');
        return guardSigner.sign(message);
      },
    },
    logName: TEST_LOG_NAME,
    metrics: new FakeMetrics(),
    logger: guardLog,
    clock: nowMs,
    maxReceiptAgeSeconds: 900,
  });
  const newSealer = (overrides: Partial<ConstructorParameters<typeof SealerService>[0]> = {}) =>
    new SealerService({
      store,
      publisher,
      anchor: new KMSMacAnchor(kms.client, TEST_KEY_ID),
      signer: testLogSigner(),
      refusalSigner: testSealerSigner(),
      metrics: new FakeMetrics(),
      logger: sealerLog,
      clock: nowMs,
      // Heads signed as before docs/deployment-log.md, "What changes for the sealer", step 3.
      signLineageCheckpoints: true,
      ...overrides,
    });
  const sealer = newSealer();
  const guardPowertools = silentPowertools();
  const sealerPowertools = silentPowertools();
  const guardHandler = createGuardHandler(guard, guardPowertools.logger, guardPowertools.metrics);
  const sealerHandler = createSealerHandler(sealer, sealerPowertools.logger, sealerPowertools.metrics);
  const runGuard = (event: Parameters<typeof guardHandler>[0]) => guardHandler(event, lambdaContext('reseal-guard'));
  const runSealer = (event: Parameters<typeof sealerHandler>[0]) =>
    sealerHandler(event, lambdaContext('reseal-sealer'));

  /** One receive on each queue, guard first; concurrent waits take turns (one poller per queue, as Lambda's). */
  let turn: Promise<void> = Promise.resolve();
  const pump = () => {
    turn = turn.then(async () => {
      await residualWrites.deliver(runGuard);
      await sealRequests.deliver(runSealer);
    });
    return turn;
  };
  const client = new ResealClient(TEST_CLIENT_OUTPUTS, {
    ...TEST_CLIENT_KEYS,
    store,
    anchor: testAnchor(),
    sqs: sqsInto(residualWrites) as never,
    nowMs,
    sleep: async (ms) => {
      await pump();
      clock.now += ms;
    },
  });

  /**
   * Publishes `request` as its writer does and waits as `publish --wait` does (`sinceMs` from the
   * publish); `TIMEOUT` when nothing the writer can trust appears within `timeoutMs`.
   */
  async function publishAndWait(request: ResidualWriteRequest, timeoutMs = 15_000): Promise<WriterView> {
    const published = await client.publishWrite(request);
    return waitAs(request, publishWaitSince(published), timeoutMs);
  }

  /** Waits for `request`'s outcome as its writer does. */
  async function waitAs(request: ResidualWriteRequest, sinceMs: number, timeoutMs = 15_000): Promise<WriterView> {
    try {
      const outcome = await client.waitForOutcome(request.lineageId, request.residualId, {
        request,
        sinceMs,
        timeoutMs,
        pollIntervalMs: 500,
      });
      return outcome.kind;
    } catch (error) {
      if (error instanceof TimeoutError) return 'TIMEOUT';
      throw error;
    }
  }

  /** The records of `lineageId` holding `residualId`, and whether the whole chain verifies. */
  async function sealedCopies(lineageId: string, residualId: string) {
    const chain = await store.readChain(lineageId, 0, Number.MAX_SAFE_INTEGER);
    const copies = chain.filter((r) => (r as { header: { residualId: string } }).header.residualId === residualId);
    const verdict =
      chain.length === 0 ? 'EMPTY' : (await verifyChain(chain, { lineageId, anchor: testAnchor() })).verdict;
    return { copies: copies.length, verdict, chain };
  }

  /** Every refusal (rejection or conflict) of `residualId` in `lineageId`. */
  async function refusalsOf(lineageId: string, residualId: string) {
    const rejections = await store.listRejections(lineageId, { residualId });
    const conflicts = await store.listConflicts(lineageId, { residualId });
    return [...rejections.map((r) => r.reason), ...conflicts.map((c) => c.reason)];
  }

  return {
    clock,
    store,
    publisher,
    kms,
    residualWrites,
    sealRequests,
    guardLog,
    guardFaults,
    sealerLog,
    guard,
    sealer,
    newSealer,
    runGuard,
    runSealer,
    pump,
    client,
    publishAndWait,
    waitAs,
    sealedCopies,
    refusalsOf,
    deduplicationIdOf,
  };
}
