/**
 * The `reseal` package as docs/cli.md's client example imports it, with `connectToStack` over the
 * whole pipeline in process (the real guard, sealer and triage functions on one in-memory table,
 * with the pinned test keys) instead of a deployed stack, so a unit test can run the example as
 * written. Everything else is the package's own export. Relative `FileCheckpointStore` paths are
 * resolved against the directory the test chose, as the example's are against its project.
 */
import { isAbsolute, join } from 'node:path';
import type { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { SendMessageCommand } from '@aws-sdk/client-sqs';
import { FileCheckpointStore as PackageFileCheckpointStore } from '../../../client/checkpoint-store';
import type { ConnectOptions, StackConnection } from '../../../client/connect';
import { ResealClient } from '../../../client/reseal-client';
import { GuardService } from '../../../functions/guard/guard-service';
import { SealerService } from '../../../functions/sealer/sealer-service';
import { TriageService } from '../../../functions/triage/triage-service';
import { canonicalJson } from '../../../shared/canonical/canonical-json';
import type { TriageCompletedDetail } from '../../../shared/schemas/messages';
import { FakeMetrics, FakePublisher, fakeLogger, TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import {
  TEST_CLIENT_KEYS,
  TEST_LOG_KEY,
  TEST_LOG_NAME,
  testGuardSigner,
  testLogSigner,
} from '../../helpers/pipeline-keys';
import { testAnchor } from '../../helpers/seal-factories';

export * from '../../../client/index';

/** How the in-process stack behaves. */
export interface InProcessStackOptions {
  /** Where relative checkpoint store paths lead (the example's project directory). */
  readonly dir: string;
  /** Rewrites each triage answer after triage stored it, as a table writer could. */
  readonly forgeAnswer?: (answer: TriageCompletedDetail) => TriageCompletedDetail;
}

let stack: (InProcessStackOptions & { readonly store: InMemoryLineageStore; readonly clock: { now: number } }) | null =
  null;

/** Starts a fresh in-process stack (one table, kept across runs until the next call). */
export function startInProcessStack(options: InProcessStackOptions): InMemoryLineageStore {
  const store = new InMemoryLineageStore();
  stack = { ...options, store, clock: { now: Date.now() } };
  return store;
}

/** The package's `FileCheckpointStore`, a relative path resolved against the stack's directory. */
export class FileCheckpointStore extends PackageFileCheckpointStore {
  constructor(path: string) {
    if (!stack) throw new Error('startInProcessStack first');
    super(isAbsolute(path) ? path : join(stack.dir, path));
  }
}

/** `connectToStack` over the in-process stack: the options the example passes are honoured. */
export async function connectToStack(options: ConnectOptions = {}): Promise<StackConnection> {
  if (!stack) throw new Error('startInProcessStack first');
  const { store, clock, forgeAnswer } = stack;
  const nowMs = () => clock.now;
  const common = { store, publisher: new FakePublisher(), metrics: new FakeMetrics(), logger: fakeLogger() };
  const anchor = testAnchor();
  const sealer = new SealerService({ ...common, anchor, signer: testLogSigner(), clock: nowMs });
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
      const messageId = `m-${Date.now()}-${++sent}`;
      inFlight.push({ messageId, body: command.input.MessageBody as string, sentAtMs: nowMs() });
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
  const client = new ResealClient(TEST_CLIENT_OUTPUTS, {
    ...TEST_CLIENT_KEYS,
    store,
    anchor,
    sqs: sqs as never,
    eventBridge: eventBridge as never,
    nowMs,
    // The queue delivers while the client waits, as a real one would.
    sleep: async (ms) => {
      for (const message of inFlight.splice(0)) await guard.handle(message);
      clock.now += ms;
    },
    ...(options.checkpointStore ? { checkpointStore: options.checkpointStore } : {}),
  });
  return { client, outputs: TEST_CLIENT_OUTPUTS, store, anchor };
}
