import type { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { SendMessageCommand } from '@aws-sdk/client-sqs';
import { MemoryCheckpointStore } from '../../../client/checkpoint-store';
import { ResealClient } from '../../../client/reseal-client';
import { GuardService } from '../../../functions/guard/guard-service';
import { SealerService } from '../../../functions/sealer/sealer-service';
import { TriageService } from '../../../functions/triage/triage-service';
import type { ResealMcpDeps } from '../../../mcp/context';
import { canonicalJson } from '../../../shared/canonical/canonical-json';
import type { ResidualWriteRequest } from '../../../shared/guard/write-request';
import type { EnvSnapshot } from '../../../shared/schemas/primitives';
import { FakeMetrics, FakePublisher, fakeLogger, TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import {
  TEST_CLIENT_KEYS,
  TEST_LOG_KEY,
  TEST_LOG_NAME,
  testGuardSigner,
  testLogSigner,
} from '../../helpers/pipeline-keys';
import { TEST_NOW_MS, testAnchor } from '../../helpers/seal-factories';

/** Hooks of {@link pipeline}. */
export interface PipelineHooks {
  /**
   * Called when a write is published, before the guard sees it (the client's body, parsed): e.g.
   * to plant a forged refusal of that very write in the table.
   */
  readonly onPublish?: (request: ResidualWriteRequest) => Promise<void>;
}

/**
 * The whole pipeline in process on one in-memory table, with the pinned test keys: the real
 * guard, sealer and triage functions behind fake SQS and EventBridge clients, and a real
 * {@link ResealClient} that keeps its checkpoints in memory. A published write reaches the guard
 * (and the sealer) only at the client's first wait (`sleep`), so the client's first look at the
 * table happens before the outcome exists, as against a real queue. The clock stands still
 * except for the client's sleeps.
 */
export function pipeline(hooks: PipelineHooks = {}) {
  const store = new InMemoryLineageStore();
  const clock = { now: TEST_NOW_MS };
  const nowMs = () => clock.now;
  const common = { store, publisher: new FakePublisher(), metrics: new FakeMetrics(), logger: fakeLogger() };
  const sealer = new SealerService({ ...common, anchor: testAnchor(), signer: testLogSigner(), clock: nowMs });
  let delivered = 0;
  const guard = new GuardService({
    ...common,
    queue: {
      enqueue: async (request) => {
        await sealer.handle({ messageId: `seal-${++delivered}`, body: canonicalJson(request), sentAtMs: nowMs() });
      },
    },
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
      await hooks.onPublish?.(JSON.parse(body) as ResidualWriteRequest);
      const messageId = `m-${++sent}`;
      inFlight.push({ messageId, body, sentAtMs: nowMs() });
      return { MessageId: messageId };
    },
  };
  const eventBridge = {
    send: async (command: PutEventsCommand) => {
      for (const entry of command.input.Entries ?? []) await triage.handle(JSON.parse(entry.Detail as string));
      return { FailedEntryCount: 0, Entries: [{ EventId: 'event-1' }] };
    },
  };
  const checkpointStore = new MemoryCheckpointStore();
  let waits = 0;
  const client = new ResealClient(TEST_CLIENT_OUTPUTS, {
    ...TEST_CLIENT_KEYS,
    store,
    anchor: testAnchor(),
    sqs: sqs as never,
    eventBridge: eventBridge as never,
    checkpointStore,
    nowMs,
    sleep: async (ms) => {
      waits++;
      for (const message of inFlight.splice(0)) await guard.handle(message);
      clock.now += ms;
    },
  });
  const deps = (snapshot: EnvSnapshot): ResealMcpDeps => ({
    client,
    snapshots: { take: async () => ({ env: snapshot, notes: [] }) },
    nowMs,
    sessionStartMs: TEST_NOW_MS - 60_000,
  });
  /** How many times the client waited (each wait follows a look at the table that found no outcome). */
  const waitsSoFar = () => waits;
  return { store, client, checkpointStore, clock, deps, waits: waitsSoFar };
}
