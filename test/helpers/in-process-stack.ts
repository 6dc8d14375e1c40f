import type { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { CheckpointStore } from '../../client/checkpoint-store';
import { ResealClient } from '../../client/reseal-client';
import { GuardService } from '../../functions/guard/guard-service';
import { SealerService } from '../../functions/sealer/sealer-service';
import { TriageService } from '../../functions/triage/triage-service';
import { canonicalJson } from '../../shared/canonical/canonical-json';
import type { SealRequest } from '../../shared/pipeline/seal-request';
import type { TriageCompletedDetail } from '../../shared/pipeline/triage-completed-detail';
import type { WriterSigner } from '../../shared/ports/writer-signer';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { FakeMetrics, FakePublisher, FakeSealQueue, fakeLogger, TEST_CLIENT_OUTPUTS } from './factories';
import type { InMemoryLineageStore } from './in-memory-lineage-store';
import {
  TEST_CLIENT_KEYS,
  TEST_LOG_KEY,
  TEST_LOG_NAME,
  testGuardSigner,
  testLogSigner,
  testSealerSigner,
} from './pipeline-keys';
import { testAnchor } from './seal-factories';
import { TEST_POLICY, TEST_WRITER } from './writer-factories';

/** Options of {@link inProcessStack}. */
export interface InProcessStackOptions {
  readonly store: InMemoryLineageStore;
  /** The stack's clock; it stands still except for the client's sleeps. */
  readonly clock: { now: number };
  /** Called when a write is published, before the guard sees it (e.g. to plant a forged refusal of it). */
  readonly onPublish?: (request: ResidualWriteRequest) => Promise<void>;
  /** Rewrites each triage answer after triage stored it, as a table writer could. */
  readonly forgeAnswer?: (answer: TriageCompletedDetail) => TriageCompletedDetail;
  /** The client's checkpoint store. */
  readonly checkpointStore?: CheckpointStore;
  /**
   * The client's writer key (its first write of a lineage sets the key's sole-writer policy);
   * default the test writer key, whose first write of a lineage sets `TEST_POLICY` (so
   * `testLineageId` lineages start). `null`: none (requests must come signed).
   */
  readonly writer?: WriterSigner | null;
}

/**
 * The whole pipeline in process on one in-memory table, with the pinned test keys: the real
 * guard, sealer and triage functions behind fake SQS and EventBridge clients, and a real
 * {@link ResealClient}. A published write reaches the guard (and the sealer) only at the client's
 * next wait (`sleep`), so the client's first look at the table happens before the outcome exists,
 * as against a real queue.
 */
export function inProcessStack(options: InProcessStackOptions) {
  const { store, clock, onPublish, forgeAnswer } = options;
  const nowMs = () => clock.now;
  const common = { store, publisher: new FakePublisher(), metrics: new FakeMetrics(), logger: fakeLogger() };
  const anchor = testAnchor();
  const sealer = new SealerService({
    ...common,
    anchor,
    signer: testLogSigner(),
    refusalSigner: testSealerSigner(),
    clock: nowMs,
    // Heads signed as before docs/deployment-log.md, "What changes for the sealer", step 3.
    signLineageCheckpoints: true,
  });
  let delivered = 0;
  const guard = new GuardService({
    ...common,
    // Each accepted write is sealed at once, as it is enqueued (a batch's one after another).
    queue: new (class extends FakeSealQueue {
      override async enqueue(request: SealRequest): Promise<void> {
        await sealer.handle({ messageId: `seal-${++delivered}`, body: canonicalJson(request), sentAtMs: nowMs() });
      }
    })(),
    signer: testGuardSigner(),
    logName: TEST_LOG_NAME,
    clock: nowMs,
    maxReceiptAgeSeconds: 900,
  });
  const triage = new TriageService({ ...common, logKey: async () => TEST_LOG_KEY, clock: nowMs });
  const inFlight: { messageId: string; body: string; sentAtMs: number }[] = [];
  let sent = 0;
  const sqs = {
    send: async (command: SendMessageCommand) => {
      const body = command.input.MessageBody as string;
      await onPublish?.(JSON.parse(body) as ResidualWriteRequest);
      const messageId = `m-${++sent}`;
      inFlight.push({ messageId, body, sentAtMs: nowMs() });
      return { MessageId: messageId };
    },
  };
  const eventBridge = {
    send: async (command: PutEventsCommand) => {
      for (const entry of command.input.Entries ?? []) {
        const result = await triage.handle(JSON.parse(entry.Detail as string));
        if (forgeAnswer && result.detail) await store.putTriageReport(forgeAnswer(result.detail));
      }
      return { FailedEntryCount: 0, Entries: [{ EventId: 'event-1' }] };
    },
  };
  let waits = 0;
  const client = new ResealClient(TEST_CLIENT_OUTPUTS, {
    ...TEST_CLIENT_KEYS,
    store,
    anchor,
    sqs: sqs as never,
    eventBridge: eventBridge as never,
    nowMs,
    sleep: async (ms) => {
      waits++;
      for (const message of inFlight.splice(0)) await guard.handle(message);
      clock.now += ms;
    },
    ...(options.checkpointStore ? { checkpointStore: options.checkpointStore } : {}),
    ...(options.writer === null
      ? {}
      : options.writer
        ? { writer: options.writer }
        : { writer: TEST_WRITER, inceptionPolicy: TEST_POLICY }),
  });
  /** How many times the client waited (each wait follows a look at the table that found no outcome). */
  return { client, anchor, waits: () => waits };
}
