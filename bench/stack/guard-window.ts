/**
 * The guard's batching window, emulated for the emulator bench (docs/infrastructure.md, "The
 * guard's batching window"). On AWS the stack's event source on `residual-writes` waits up to its
 * `MaximumBatchingWindowInSeconds`, or until a batch of 10 is full, before invoking the guard.
 * MiniStack ignores the window: its poller hands the guard whatever one pass finds, one message at
 * a time under sparse traffic. So the bench pauses the guard's event source mapping
 * (`UpdateEventSourceMapping`, `Enabled: false`), lets writes gather in the queue, and every window
 * re-enables it until the poller has taken what gathered (in batches of up to 10, as MiniStack's
 * poller takes them), then pauses it again.
 *
 * What this is not: AWS invokes a full batch as soon as it is full, so above 10 writes per window
 * its writes wait less than the window; here every write waits for the window's end. Messages
 * that arrive while the mapping is open may be taken in batches of their own, smaller than AWS's
 * would be. The batches the guard really got are read from MiniStack's log
 * (bench/stack/event-source-batches.ts), never assumed.
 *
 * The AWS SDK has no Lambda client in this project's dependencies, so the two Lambda calls are
 * plain REST requests (the emulator does not check signatures), as bench/stack/function-logs.ts
 * does for CloudWatch Logs.
 */
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';

/** Options of {@link startGuardWindow}. */
export interface GuardWindowOptions {
  /** The emulator's endpoint (the bench's own calls, not counted). */
  readonly endpoint: string;
  /** The guard's physical function name (`GuardFunctionName`). */
  readonly functionName: string;
  /** The `residual-writes` queue the mapping reads (`ResidualWritesQueueUrl`). */
  readonly queueUrl: string;
  /** The window, whole seconds, at least 1. */
  readonly windowSeconds: number;
  /** Progress lines. */
  readonly log?: (line: string) => void;
}

/** A running window emulation. */
export interface GuardWindow {
  /** Windows opened so far. */
  readonly windows: number;
  /**
   * Ends the emulation: opens the guard's event source for good, so the rest of the run (and
   * anything still queued) is consumed as before. Idempotent.
   * @throws {Error} when the emulation failed on the way (the source was opened at once then, so
   *   the scenario's writes went on, but not in emulated windows: its figures are not the window's)
   */
  stop(): Promise<void>;
}

/** How often the queue's visible messages are read while a window drains, ms. */
const DRAIN_POLL_MS = 50;
/** The longest a window stays open for the poller to take what gathered, as a share of the window. */
const DRAIN_SHARE = 0.5;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function lambdaCall<T>(endpoint: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(new URL(path, endpoint), {
    method,
    headers: {
      'content-type': 'application/json',
      authorization:
        'AWS4-HMAC-SHA256 Credential=test/20261206/us-east-1/lambda/aws4_request, SignedHeaders=host, Signature=0',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`Lambda ${method} ${path} failed: HTTP ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/**
 * The UUID of the guard's event source mapping on `queueUrl`.
 * @throws {Error} when there is none, or more than one
 */
async function guardMappingId(endpoint: string, functionName: string, queueArn: string): Promise<string> {
  type Page = { EventSourceMappings?: { UUID?: string; EventSourceArn?: string }[] };
  const page = await lambdaCall<Page>(
    endpoint,
    'GET',
    `/2015-03-31/event-source-mappings/?FunctionName=${encodeURIComponent(functionName)}`,
  );
  const ids = (page.EventSourceMappings ?? []).filter((m) => m.EventSourceArn === queueArn).map((m) => m.UUID);
  if (ids.length !== 1 || !ids[0]) {
    throw new Error(`expected one event source mapping of ${functionName} on ${queueArn}, found ${ids.length}`);
  }
  return ids[0];
}

/**
 * Starts emulating a batching window of `windowSeconds` on the guard's event source: pauses it
 * now, then opens it once a window until the queue shows no visible message (or half a window
 * has passed), and pauses it again.
 *
 * @throws {Error} for a window that is not a whole number of seconds ≥ 1, or when the mapping
 *   cannot be found or paused
 */
export async function startGuardWindow(options: GuardWindowOptions): Promise<GuardWindow> {
  const { endpoint, functionName, queueUrl, windowSeconds } = options;
  if (!Number.isSafeInteger(windowSeconds) || windowSeconds < 1) {
    throw new Error(`guard window: expected whole seconds, 1 or more, got ${windowSeconds}`);
  }
  const sqs = new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    useQueueUrlAsEndpoint: false,
  });
  const attributes = async (names: ('QueueArn' | 'ApproximateNumberOfMessages')[]) =>
    (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: names }))).Attributes ?? {};
  const queueArn = (await attributes(['QueueArn'])).QueueArn;
  if (!queueArn) throw new Error(`queue ${queueUrl} has no QueueArn`);
  const mappingId = await guardMappingId(endpoint, functionName, queueArn);
  const setEnabled = (enabled: boolean) =>
    lambdaCall(endpoint, 'PUT', `/2015-03-31/event-source-mappings/${mappingId}`, { Enabled: enabled });

  await setEnabled(false);
  let stopped = false;
  let windows = 0;
  let failure: unknown;
  const windowMs = windowSeconds * 1000;
  const loop = (async () => {
    let next = Date.now() + windowMs;
    while (!stopped) {
      while (!stopped && Date.now() < next) await sleep(Math.min(DRAIN_POLL_MS * 4, next - Date.now()));
      if (stopped) return;
      next += windowMs;
      windows += 1;
      await setEnabled(true);
      const closeBy = Date.now() + windowMs * DRAIN_SHARE;
      while (!stopped && Date.now() < closeBy) {
        await sleep(DRAIN_POLL_MS);
        if (Number((await attributes(['ApproximateNumberOfMessages'])).ApproximateNumberOfMessages ?? 0) === 0) break;
      }
      if (stopped) return;
      await setEnabled(false);
    }
  })().catch(async (error: unknown) => {
    // Never leave the guard's source paused: the scenario's writes would wait out their timeout.
    failure = error;
    options.log?.(`guard window: the emulation failed, the source is opened: ${(error as Error).message ?? error}`);
    await setEnabled(true).catch(() => undefined);
  });
  options.log?.(`guard window: ${windowSeconds} s emulated on ${functionName}'s event source (mapping ${mappingId})`);
  let stopping: Promise<void> | undefined;
  return {
    get windows() {
      return windows;
    },
    stop() {
      stopping ??= (async () => {
        stopped = true;
        await loop;
        try {
          await setEnabled(true);
        } finally {
          sqs.destroy();
        }
        if (failure !== undefined) {
          throw new Error(`guard window emulation failed after ${windows} windows`, { cause: failure });
        }
      })();
      return stopping;
    },
  };
}
