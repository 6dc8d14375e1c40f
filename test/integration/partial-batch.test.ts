import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { clientConfig, EMULATOR_REGION } from '../../scripts/emulator/deploy';
import { expectGuarantee } from '../helpers/guarantees';
import { until } from '../helpers/until';

// Emulators have differed from AWS on partial batch failures, so this file asserts them on the
// emulator of this run instead of assuming them, and runs the sealer's own handler on a FIFO event
// source there (its message-group ordering is what keeps a lineage's writes in order). It owns every
// resource it uses (its own queues, a tiny function, event source mappings) and never touches
// the deployed stack's. Each function also reports every invocation (records, what it processed,
// what it reported failed) to an observation queue, so a failure shows what the emulator did.
const endpoint = inject('endpoint');
const sqs = new SQSClient({ ...clientConfig(endpoint), useQueueUrlAsEndpoint: false });
const runId = randomUUID().slice(0, 8);
const workDir = mkdtempSync(join(tmpdir(), 'reseal-partial-batch-'));
// Generous: the emulator's event source mapping polls on a loaded machine too.
const DEADLINE_MS = 90_000;
const VISIBILITY_TIMEOUT_S = 2;
const MAX_RECEIVE_COUNT = 2;

/** What a test function sends to the observation queue once per invocation. */
interface Invocation {
  atMs: number;
  records: { body: string; receiveCount: number }[];
  processed: { body: string; receiveCount: number }[];
  reportedFailed: string[];
}

// Sends one observation with the SQS JSON protocol through fetch, so the function needs no SDK.
// The emulator sets AWS_ENDPOINT_URL in each function's environment (docs/infrastructure.md).
const OBSERVE_SOURCE = `
async function observe(entry) {
  const endpoint = process.env.OBSERVE_ENDPOINT || process.env.AWS_ENDPOINT_URL;
  const region = process.env.AWS_REGION || 'us-east-1';
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'AmazonSQS.SendMessage',
      authorization: 'AWS4-HMAC-SHA256 Credential=test/20260101/' + region + '/sqs/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: JSON.stringify({ QueueUrl: process.env.OBSERVE_QUEUE_URL, MessageBody: JSON.stringify({ atMs: Date.now(), ...entry }) }),
  });
  if (!response.ok) throw new Error('observation not sent: HTTP ' + response.status + ' ' + (await response.text()));
}
const view = (record) => ({ body: record.body, receiveCount: Number(record.attributes.ApproximateReceiveCount) });
`;

// Standard queue: a hand-written handler, so only the emulator is under test. Reports every
// record whose body starts with "fail".
const STANDARD_HANDLER = `'use strict';
${OBSERVE_SOURCE}
exports.handler = async (event) => {
  const failed = event.Records.filter((r) => r.body.startsWith('fail'));
  const processed = event.Records.filter((r) => !r.body.startsWith('fail'));
  await observe({
    records: event.Records.map(view),
    processed: processed.map(view),
    reportedFailed: failed.map((r) => r.body),
  });
  return { batchItemFailures: failed.map((r) => ({ itemIdentifier: r.messageId })) };
};
`;

// FIFO queue: the sealer's own handler (functions/sealer/create-handler.ts, which splits a batch by
// message group and reports a group that throws failed whole), bundled into one file around a
// stand-in for SealerService: `beginInvocation` (once per batch: no index here), `handleGroup` and
// `endInvocation` (no notices, no events here) are all the handler calls. The stand-in handles a
// group's messages in order, and a body starting with "fail-once" throws on its first receive
// only, as a KMS or DynamoDB failure would.
const SEALER_HANDLER = `
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { createSealerHandler } from './functions/sealer/create-handler';
${OBSERVE_SOURCE}
let current = { byId: new Map(), processed: [] };
const service = {
  beginInvocation() {
    return { index: null };
  },
  async handleGroup(messages) {
    const outcomes = [];
    for (const message of messages) {
      const record = view(current.byId.get(message.messageId));
      if (message.body.startsWith('fail-once') && record.receiveCount === 1) throw new Error('transient failure of ' + message.body);
      current.processed.push(record);
      // Shaped as the service's: the handler's \`batch handled\` line names each sealed write.
      outcomes.push({ kind: 'SEALED', residualId: message.body, head: { lineageId: 'stand-in' } });
    }
    return outcomes;
  },
  // Every event put: no message id comes back unannounced.
  async endInvocation() {
    return { messageIds: new Set(), error: null };
  },
};
const logger = new Logger({ serviceName: 'reseal-partial-batch', logLevel: 'SILENT' });
const metrics = new Metrics({ namespace: 'ResealPartialBatchTest', serviceName: 'reseal-partial-batch' });
const sealerHandler = createSealerHandler(service, logger, metrics);
export const handler = async (event, context) => {
  current = { byId: new Map(event.Records.map((r) => [r.messageId, r])), processed: [] };
  const response = await sealerHandler(event, context);
  const bodyOf = new Map(event.Records.map((r) => [r.messageId, r.body]));
  await observe({
    records: event.Records.map(view),
    processed: current.processed,
    reportedFailed: response.batchItemFailures.map((f) => bodyOf.get(f.itemIdentifier)),
  });
  return response;
};
`;

/** A deployment zip holding `index.js` (no zip library is installed; python3's zipfile is). */
function zipOf(name: string, source: string): string {
  const js = join(workDir, `${name}.js`);
  const zip = join(workDir, `${name}.zip`);
  writeFileSync(js, source);
  execFileSync('python3', [
    '-c',
    'import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z: z.write(sys.argv[2], "index.js")',
    zip,
    js,
  ]);
  return readFileSync(zip).toString('base64');
}

/** One CommonJS file of `source` and the packages it imports (resolved from the repository). */
async function bundle(source: string): Promise<string> {
  const result = await build({
    stdin: { contents: source, resolveDir: process.cwd(), loader: 'ts', sourcefile: 'handler.ts' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

/**
 * The Lambda REST API through fetch (`@aws-sdk/client-lambda` is not a dependency). Requests are
 * not signed: the emulators this runs against do not check signatures.
 */
async function lambdaApi(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(new URL(`/2015-03-31${path}`, endpoint), {
    method,
    headers: {
      'content-type': 'application/json',
      authorization: `AWS4-HMAC-SHA256 Credential=test/20260101/${EMULATOR_REGION}/lambda/aws4_request, SignedHeaders=host, Signature=0`,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`Lambda API ${method} ${path}: HTTP ${response.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

const cleanups: (() => Promise<unknown>)[] = [];

/** A queue this file owns, deleted in afterAll. */
async function createQueue(name: string, attributes: Record<string, string> = {}): Promise<string> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  const url = QueueUrl as string;
  cleanups.push(() => sqs.send(new DeleteQueueCommand({ QueueUrl: url })));
  return url;
}

async function attributesOf(queueUrl: string): Promise<Record<string, string>> {
  return (
    (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }))).Attributes ?? {}
  );
}

/** Messages in `queueUrl` in any state (visible, in flight, delayed). */
async function depthOf(queueUrl: string): Promise<number> {
  const a = await attributesOf(queueUrl);
  return (
    Number(a.ApproximateNumberOfMessages ?? 0) +
    Number(a.ApproximateNumberOfMessagesNotVisible ?? 0) +
    Number(a.ApproximateNumberOfMessagesDelayed ?? 0)
  );
}

/** Receives and deletes everything visible in a queue nobody else consumes (DLQ, observations). */
async function drain(queueUrl: string): Promise<{ body: string; receiveCount: number }[]> {
  const drained: { body: string; receiveCount: number }[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
    );
    if (Messages.length === 0) return drained;
    for (const m of Messages) {
      drained.push({ body: m.Body ?? '', receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 0) });
    }
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );
  }
}

/**
 * A work queue (visibility 2 s, redrive to its own DLQ after 2 receives), an observation queue,
 * and a function consuming the work queue with `ReportBatchItemFailures`, batch size 10. The
 * messages are sent before the mapping exists, so the first poll sees them all together.
 */
async function consumerFixture(kind: 'standard' | 'fifo', code: string, messages: { id: string; body: string }[]) {
  const fifo = kind === 'fifo';
  const suffix = fifo ? '.fifo' : '';
  const base = `reseal-pb-${kind}-${runId}`;
  const fifoAttributes: Record<string, string> = fifo ? { FifoQueue: 'true' } : {};
  const dlqUrl = await createQueue(`${base}-dlq${suffix}`, fifoAttributes);
  const queueUrl = await createQueue(`${base}${suffix}`, {
    ...fifoAttributes,
    VisibilityTimeout: String(VISIBILITY_TIMEOUT_S),
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: (await attributesOf(dlqUrl)).QueueArn,
      maxReceiveCount: MAX_RECEIVE_COUNT,
    }),
  });
  const observationsUrl = await createQueue(`${base}-observations`);

  // The queue as the emulator keeps it (emulators have dropped redrive policies: docs/infrastructure.md, "Emulator notes").
  const kept = await attributesOf(queueUrl);
  expect(kept.FifoQueue ?? 'false', 'FifoQueue of the test queue').toBe(String(fifo));
  expect(Number(JSON.parse(kept.RedrivePolicy ?? '{}').maxReceiveCount), 'maxReceiveCount the emulator kept').toBe(
    MAX_RECEIVE_COUNT,
  );

  const { Failed = [] } = await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: messages.map((m) => ({
        Id: m.id,
        MessageBody: m.body,
        ...(fifo ? { MessageGroupId: 'group-1', MessageDeduplicationId: `${runId}-${m.id}` } : {}),
      })),
    }),
  );
  expect(Failed, 'SendMessageBatch failures').toEqual([]);

  const functionName = `${base}-consumer`;
  await lambdaApi('POST', '/functions', {
    FunctionName: functionName,
    Runtime: 'nodejs20.x',
    Role: 'arn:aws:iam::000000000000:role/reseal-partial-batch-test',
    Handler: 'index.handler',
    Code: { ZipFile: zipOf(functionName, code) },
    Timeout: VISIBILITY_TIMEOUT_S,
    MemorySize: 128,
    Environment: {
      Variables: {
        OBSERVE_QUEUE_URL: observationsUrl,
        ...(process.env.RESEAL_ENDPOINT_OVERRIDE ? { OBSERVE_ENDPOINT: process.env.RESEAL_ENDPOINT_OVERRIDE } : {}),
      },
    },
  });
  cleanups.push(() => lambdaApi('DELETE', `/functions/${functionName}`));
  await until(
    `function ${functionName} to become Active`,
    async () => {
      const { State } = await lambdaApi('GET', `/functions/${functionName}/configuration`);
      return State === undefined || State === 'Active' ? true : undefined;
    },
    { timeoutMs: DEADLINE_MS, state: () => 'function never became Active' },
  );

  const mapping = await lambdaApi('POST', '/event-source-mappings/', {
    FunctionName: functionName,
    EventSourceArn: kept.QueueArn,
    BatchSize: 10,
    FunctionResponseTypes: ['ReportBatchItemFailures'],
    Enabled: true,
  });
  const mappingId = mapping.UUID as string;
  // Runs first in afterAll (reversed), so nothing polls a queue that is being deleted.
  cleanups.push(() => lambdaApi('DELETE', `/event-source-mappings/${mappingId}`));

  const invocations: Invocation[] = [];
  const observe = async (): Promise<Invocation[]> => {
    for (const m of await drain(observationsUrl)) invocations.push(JSON.parse(m.body) as Invocation);
    invocations.sort((a, b) => a.atMs - b.atMs);
    return invocations;
  };
  const state = () => `invocations so far: ${JSON.stringify(invocations)}`;
  return { queueUrl, dlqUrl, observe, state };
}

beforeAll(() => {
  // python3 builds the zips; fail here, clearly, rather than in the middle of a fixture.
  execFileSync('python3', ['-c', 'import zipfile']);
});

afterAll(async () => {
  const results = await Promise.allSettled(cleanups.reverse().map((cleanup) => cleanup()));
  for (const r of results) if (r.status === 'rejected') console.warn(`partial-batch cleanup: ${String(r.reason)}`);
  rmSync(workDir, { recursive: true, force: true });
});

describe('SQS → Lambda with ReportBatchItemFailures on the emulator (emulators have differed from AWS here)', () => {
  it('standard queue: successful records of a batch are deleted, only the reported one is redelivered and dead-lettered after maxReceiveCount', async (context) => {
    const { queueUrl, dlqUrl, observe, state } = await consumerFixture('standard', STANDARD_HANDLER, [
      { id: 'ok-1', body: 'ok-1' },
      { id: 'fail-1', body: 'fail-1' },
      { id: 'ok-2', body: 'ok-2' },
    ]);

    // Done when nothing is left in the work queue (deleted or moved to the DLQ).
    await until('the work queue to empty', async () => ((await depthOf(queueUrl)) === 0 ? true : undefined), {
      timeoutMs: DEADLINE_MS,
      state,
    });
    const invocations = await observe();
    const dlq = await drain(dlqUrl);
    const what = `emulator did: invocations ${JSON.stringify(invocations)}; DLQ ${JSON.stringify(dlq)}`;
    const once = (body: string) =>
      invocations.flatMap((i) => i.records.filter((r) => r.body === body)).length === 1 ? 'once' : 'not once';
    expectGuarantee(
      context,
      {
        section: 'faults',
        target: 'SQS standard queue → Lambda (ReportBatchItemFailures)',
        attack: 'one record of a batch fails on every receive',
        reader: 'the queue and its DLQ (emulator)',
        expected: 'the others delivered once; the failing one redelivered, then only it in the DLQ',
      },
      `the others delivered ${once('ok-1') === 'once' && once('ok-2') === 'once' ? 'once' : 'more than once'}; the failing one ${dlq.map((m) => m.body).join() === 'fail-1' ? 'redelivered, then only it in the DLQ' : `DLQ ${JSON.stringify(dlq.map((m) => m.body))}`}`,
    );

    // The partial failure was exercised: fail-1 shared a batch with a successful record.
    expect(
      invocations.some(
        (i) => i.records.some((r) => r.body === 'fail-1') && i.records.some((r) => r.body.startsWith('ok')),
      ),
      `fail-1 never shared a batch with an ok record, so no partial batch was tested; ${what}`,
    ).toBe(true);
    // Reported records come back (receive count rising), successful ones never do.
    const deliveries = (body: string) =>
      invocations.flatMap((i) => i.records.filter((r) => r.body === body).map((r) => r.receiveCount));
    expect(deliveries('ok-1'), `ok-1 must be delivered exactly once (deleted after success); ${what}`).toEqual([1]);
    expect(deliveries('ok-2'), `ok-2 must be delivered exactly once (deleted after success); ${what}`).toEqual([1]);
    expect(
      deliveries('fail-1'),
      `fail-1 must be redelivered until maxReceiveCount (${MAX_RECEIVE_COUNT}); ${what}`,
    ).toEqual([1, 2]);
    // Only the reported record reaches the DLQ, with the receives it had.
    expect(
      dlq.map((m) => m.body),
      `the DLQ must hold fail-1 only; ${what}`,
    ).toEqual(['fail-1']);
    expect(dlq[0]?.receiveCount, `ApproximateReceiveCount of fail-1 in the DLQ; ${what}`).toBeGreaterThanOrEqual(
      MAX_RECEIVE_COUNT,
    );
  });

  it('FIFO queue with the sealer handler: a later record of the group is never processed ahead of a failed earlier one (docs/pipeline.md, the function table)', async (context) => {
    const order = ['ok-first', 'fail-once-middle', 'ok-last'];
    const { queueUrl, dlqUrl, observe, state } = await consumerFixture('fifo', await bundle(SEALER_HANDLER), [
      { id: 'first', body: 'ok-first' },
      { id: 'middle', body: 'fail-once-middle' },
      { id: 'last', body: 'ok-last' },
    ]);

    await until(
      'the whole group to be processed and the work queue to empty',
      async () => {
        const processed = (await observe()).flatMap((i) => i.processed);
        return processed.some((p) => p.body === 'ok-last') && (await depthOf(queueUrl)) === 0 ? true : undefined;
      },
      { timeoutMs: DEADLINE_MS, state },
    );
    const invocations = await observe();
    const dlq = await drain(dlqUrl);
    const what = `emulator did: invocations ${JSON.stringify(invocations)}; DLQ ${JSON.stringify(dlq)}`;
    const processed = invocations.flatMap((i) => i.processed);
    // Each body in the order it was first processed: a redelivery may process an earlier one again.
    const firstProcessed = [...new Set(processed.map((p) => p.body))];
    const failing = invocations.find((i) => i.reportedFailed.length > 0);

    expectGuarantee(
      context,
      {
        section: 'faults',
        target: 'SQS FIFO queue → the sealer handler (message groups sealed whole)',
        attack: 'the middle record of a group fails once',
        reader: 'the queue and its DLQ (emulator)',
        expected:
          'first processed in send order (ok-first, fail-once-middle, ok-last); the group reported failed whole; DLQ empty',
      },
      `first processed in ${firstProcessed.join() === order.join() ? 'send order' : 'another order'} (${firstProcessed.join(', ')}); the group reported failed ${failing?.reportedFailed.join() === order.join() ? 'whole' : `as ${JSON.stringify(failing?.reportedFailed ?? null)}`}; DLQ ${dlq.length === 0 ? 'empty' : 'not empty'}`,
    );

    // Every batch hands the group's records over in send order.
    for (const i of invocations) {
      const positions = i.records.map((r) => order.indexOf(r.body));
      expect(positions, `records of one group out of send order in a batch; ${what}`).toEqual(
        [...positions].sort((a, b) => a - b),
      );
    }
    // The invocation that met the failure reported the whole group failed, so nothing after the
    // failed record was processed ahead of it, and the group came back whole, in order.
    expect(failing?.reportedFailed, `what the sealer handler reported failed; ${what}`).toEqual(order);
    expect(failing?.processed, `processed before the failure; ${what}`).toEqual([
      { body: 'ok-first', receiveCount: 1 },
    ]);
    expect(firstProcessed, `first processing of each record; ${what}`).toEqual(order);
    // The failed record and the one after it were processed once each, on the redelivery.
    expect(
      processed.filter((p) => p.body !== 'ok-first'),
      `processing of the failed record and the one after it; ${what}`,
    ).toEqual([
      { body: 'fail-once-middle', receiveCount: 2 },
      { body: 'ok-last', receiveCount: 2 },
    ]);
    expect(dlq, `nothing dead-lettered; ${what}`).toEqual([]);
  });
});
