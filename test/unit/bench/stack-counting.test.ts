import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pricesFile from '../../../bench/prices.json';
import {
  addCounts,
  CallTally,
  capacityOf,
  countsSince,
  itemReadUnits,
  serviceOf,
} from '../../../bench/stack/call-tally';
import { countCalls } from '../../../bench/stack/counting-middleware';
import { type CountingProxy, callName, startCountingProxy } from '../../../bench/stack/counting-proxy';
import { activityOf, functionLabel } from '../../../bench/stack/function-logs';
import { directRecallTargetRow, guardBatchesRow, quantile } from '../../../bench/stack/stack-report';
import { guardReceiveUnits, lambdaUsage } from '../../../bench/stack/stack-usage';
import { PriceTableSchema } from '../../../shared/cost/price-table';

describe('call tally', () => {
  it('reads DynamoDB capacity as the service reports it: split units, else by the kind of operation', () => {
    expect(capacityOf('TransactWriteItems', [{ TableName: 't', CapacityUnits: 10, WriteCapacityUnits: 10 }])).toEqual({
      readUnits: 0,
      writeUnits: 10,
    });
    expect(capacityOf('PutItem', { TableName: 't', CapacityUnits: 2 })).toEqual({ readUnits: 0, writeUnits: 2 });
    expect(capacityOf('Query', { TableName: 't', CapacityUnits: 0.5 })).toEqual({ readUnits: 0.5, writeUnits: 0 });
    expect(capacityOf('GetItem', undefined)).toEqual({ readUnits: 0, writeUnits: 0 });
  });

  it('counts calls, bytes, billed 64 KiB chunks and batch entries by operation, and differences of snapshots', () => {
    const tally = new CallTally();
    tally.record({ service: 'SQS', operation: 'SendMessage', requestBytes: 100, responseBytes: 50 });
    const before = tally.snapshot();
    tally.record({ service: 'SQS', operation: 'SendMessage', requestBytes: 70_000, responseBytes: 50 });
    tally.record({ service: 'EventBridge', operation: 'PutEvents', requestBytes: 10, responseBytes: 5, entries: 3 });
    const since = countsSince(tally.snapshot(), before);
    expect(since['SQS.SendMessage']).toMatchObject({ calls: 1, requestBytes: 70_000, billedUnits: 2 });
    expect(since['EventBridge.PutEvents']).toMatchObject({ calls: 1, billedUnits: 3 });
    expect(addCounts(since, before)['SQS.SendMessage']).toMatchObject({ calls: 2, billedUnits: 3, entries: 2 });
    // SQS bills a batch of small messages as one request; EventBridge bills each entry.
    tally.record({
      service: 'SQS-FIFO',
      operation: 'SendMessageBatch',
      requestBytes: 9_000,
      responseBytes: 5,
      entries: 10,
    });
    expect(tally.snapshot()['SQS-FIFO.SendMessageBatch']).toMatchObject({ calls: 1, billedUnits: 1, entries: 10 });
  });

  it('prices the items of a BatchGetItem by their size when the emulator reports no capacity: 4 KB a unit, half when eventually consistent', () => {
    const small = { pk: { S: 'LINEAGE#a' }, sk: { S: 'RECORD#1' }, n: { N: '12' } };
    const large = { pk: { S: 'x' }, body: { B: new Uint8Array(5000) } };
    expect(itemReadUnits({ t: [small, small, large] }, true)).toBe(1 + 1 + 2);
    expect(itemReadUnits({ t: [small, large] }, false)).toBe(1.5);
    expect(itemReadUnits(undefined, true)).toBe(0);
    const tally = new CallTally();
    tally.record({
      service: 'DynamoDB',
      operation: 'BatchGetItem',
      requestBytes: 1,
      responseBytes: 1,
      estimatedReadUnits: 4,
    });
    const before = tally.snapshot();
    tally.record({
      service: 'DynamoDB',
      operation: 'BatchGetItem',
      requestBytes: 1,
      responseBytes: 1,
      estimatedReadUnits: 3,
    });
    expect(countsSince(tally.snapshot(), before)['DynamoDB.BatchGetItem']).toMatchObject({ estimatedReadUnits: 3 });
  });

  it('a recall without triage is held to $0.50 a million with its BatchGetItem items priced: 3 RCU reported and 1 estimated meet it, 1 more does not', () => {
    const stats = (readUnits: number, estimatedReadUnits = 0) => ({
      calls: 1,
      requestBytes: 1,
      responseBytes: 1,
      readUnits,
      writeUnits: 0,
      maxRequestBytes: 1,
      billedUnits: 1,
      estimatedReadUnits,
    });
    const measured = (estimated: number) => ({
      name: 'recall latest, no triage',
      operations: 1,
      client: { 'DynamoDB.GetItem': stats(3), 'DynamoDB.BatchGetItem': stats(0, estimated) },
      functions: null,
      lambda: null,
      seconds: 1,
      latenciesMs: [1],
    });
    const prices = PriceTableSchema.parse(pricesFile);
    expect(directRecallTargetRow(measured(1), prices)).toMatch(/\| 0\.50 \| 0\.50 \| ✓ \|$/);
    expect(directRecallTargetRow(measured(2), prices)).toMatch(/\| 0\.63 \| 0\.50 \| ✗ \|$/);
  });

  it('tells a FIFO queue from a standard one by its URL', () => {
    expect(serviceOf('SQS', 'http://127.0.0.1:1/000000000000/q.fifo')).toBe('SQS-FIFO');
    expect(serviceOf('SQS', 'http://127.0.0.1:1/000000000000/q')).toBe('SQS');
    expect(serviceOf('KMS', undefined)).toBe('KMS');
  });
});

describe('callName: the proxy names calls as their protocol does', () => {
  const auth = (service: string) => ({
    authorization: `AWS4-HMAC-SHA256 Credential=test/20261205/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=0`,
  });
  it('JSON protocols by X-Amz-Target, the service by the credential scope', () => {
    expect(callName({ ...auth('kms'), 'x-amz-target': 'TrentService.GenerateMac' }, '{}', '/')).toEqual({
      service: 'KMS',
      operation: 'GenerateMac',
    });
    expect(callName({ 'x-amz-target': 'DynamoDB_20120810.TransactWriteItems' }, '{}', '/')).toEqual({
      service: 'DynamoDB',
      operation: 'TransactWriteItems',
    });
  });
  it('query protocols by Action', () => {
    expect(callName(auth('cloudformation'), 'Action=DescribeStacks&Version=2010-05-15', '/')).toEqual({
      service: 'CloudFormation',
      operation: 'DescribeStacks',
    });
  });
});

describe('activityOf: invocations, GB-s and log bytes from Lambda log lines', () => {
  it('counts REPORT lines and their billed duration × memory', () => {
    const lines = [
      'START RequestId: a Version: $LATEST',
      '{"level":"INFO","message":"sealed"}',
      'END RequestId: a',
      'REPORT RequestId: a\tDuration: 200 ms\tBilled Duration: 200 ms\tMemory Size: 512 MB\tMax Memory Used: 90 MB',
      'REPORT RequestId: b\tDuration: 1000 ms\tBilled Duration: 1000 ms\tMemory Size: 1024 MB\tMax Memory Used: 90 MB',
    ];
    const activity = activityOf(lines);
    expect(activity.invocations).toBe(2);
    expect(activity.gbSeconds).toBeCloseTo(0.2 * 0.5 + 1, 9);
    expect(activity.logBytes).toBe(lines.reduce((sum, line) => sum + Buffer.byteLength(line), 0));
  });
});

describe('the queue pollers\' requests (docs/infrastructure.md, "The guard\'s batching window")', () => {
  const activity = {
    guard: { invocations: 4, gbSeconds: 0, logBytes: 0 },
    sealer: { invocations: 1, gbSeconds: 0, logBytes: 0 },
  };
  const sends = (calls: number, requestBytes: number) => ({
    'SQS.SendMessage': {
      calls,
      requestBytes,
      responseBytes: 0,
      readUnits: 0,
      writeUnits: 0,
      maxRequestBytes: requestBytes / calls,
      billedUnits: calls,
    },
  });

  it('one ReceiveMessage and one DeleteMessageBatch an invocation, unless the receives are known', () => {
    expect(lambdaUsage(activity)).toMatchObject({ sqsStandardRequest: 8, sqsFifoRequest: 2, lambdaRequest: 5 });
    expect(lambdaUsage(activity, { guard: 9 })).toMatchObject({ sqsStandardRequest: 13, sqsFifoRequest: 2 });
  });

  it("bills each of the guard's receives by the 64 KiB chunks of its batch, from the client's mean message", () => {
    // 13,200-byte messages: a batch of 10 is 132,000 bytes, three chunks; of 4, 52,800, one.
    const client = sends(14, 14 * 13_200);
    const guardBatches = { batches: 2, records: 14, perInvocation: 7, sizes: [10, 4], windowSeconds: 1 };
    expect(guardReceiveUnits({ client, guardBatches })).toBe(3 + 1);
    expect(guardReceiveUnits({ client })).toBeUndefined();
    expect(guardReceiveUnits({ client: {}, guardBatches })).toBeUndefined();
  });

  it('the report names the rate the writes came at, the window emulated and the batches MiniStack logged', () => {
    const measured = {
      name: 'sparse',
      operations: 14,
      seconds: 9,
      publishSeconds: 2,
      latenciesMs: [],
      client: sends(14, 14 * 13_200),
      functions: null,
      lambda: null,
      guardBatches: { batches: 2, records: 14, perInvocation: 7, sizes: [4, 10], windowSeconds: 1 },
    };
    expect(guardBatchesRow(measured)).toBe(
      '| sparse | 7.00 | 1 s, emulated | 2 | 14 | 7.00 | 0.14 | 0.29 | 10×1, 4×1 |',
    );
    expect(guardBatchesRow({ ...measured, guardBatches: undefined })).toBe(
      '| sparse | 7.00 | – | – | – | – | – | – | not read |',
    );
  });
});

describe('functionLabel', () => {
  it("names each function's log group by the construct that owns it", () => {
    expect(functionLabel('ResidualWritesConsumerLogGroup252CA9A1')).toBe('guard');
    expect(functionLabel('SealRequestsConsumerLogGroup9A41737F')).toBe('sealer');
    expect(functionLabel('TriageLogGroup0D2E4C1A')).toBe('triage');
    expect(functionLabel('IntegrationConsumerLogGroup88532B14')).toBe('integrator');
    expect(functionLabel('SomethingElse')).toBe('SomethingElse');
  });
});

describe('quantile', () => {
  it('takes the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(quantile(values, 0.5)).toBe(50);
    expect(quantile(values, 0.99)).toBe(99);
    expect(quantile([], 0.5)).toBeNaN();
  });
});

describe('the SDK middleware and the proxy count the same calls', () => {
  // A stand-in service: answers DynamoDB with the capacity it was asked to report, and SQS with an id.
  let upstream: Server;
  let proxy: CountingProxy;
  const seen: unknown[] = [];
  beforeAll(async () => {
    upstream = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const parsed = JSON.parse(body || '{}') as { ReturnConsumedCapacity?: string };
        seen.push(parsed);
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(
          String(req.headers['x-amz-target']).startsWith('DynamoDB')
            ? JSON.stringify(
                parsed.ReturnConsumedCapacity === 'TOTAL'
                  ? { ConsumedCapacity: { TableName: 't', CapacityUnits: 1 } }
                  : {},
              )
            : JSON.stringify({
                MessageId: 'm-1',
                MD5OfMessageBody: createHash('md5')
                  .update(JSON.parse(body).MessageBody ?? '')
                  .digest('hex'),
              }),
        );
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    proxy = await startCountingProxy({ target: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((r) => upstream.close(r));
  });

  it('asks DynamoDB for consumed capacity and records it, once per call, on both sides', async () => {
    const tally = new CallTally();
    const config = {
      endpoint: proxy.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 't', secretAccessKey: 't' },
    };
    const dynamodb = countCalls(new DynamoDBClient(config), tally);
    const sqs = countCalls(new SQSClient({ ...config, useQueueUrlAsEndpoint: false }), tally);
    await dynamodb.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }));
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: `${proxy.endpoint}/000000000000/q.fifo`,
        MessageBody: 'hello',
        MessageGroupId: 'g',
      }),
    );
    const viaMiddleware = tally.snapshot();
    const viaProxy = proxy.tally.snapshot();
    expect(Object.keys(viaMiddleware).sort()).toEqual(['DynamoDB.GetItem', 'SQS-FIFO.SendMessage']);
    expect(Object.keys(viaProxy).sort()).toEqual(['DynamoDB.GetItem', 'SQS-FIFO.SendMessage']);
    expect(viaMiddleware['DynamoDB.GetItem']).toMatchObject({ calls: 1, readUnits: 1 });
    expect(viaProxy['DynamoDB.GetItem']).toMatchObject({ calls: 1, readUnits: 1 });
    expect(viaMiddleware['SQS-FIFO.SendMessage']?.requestBytes).toBe(viaProxy['SQS-FIFO.SendMessage']?.requestBytes);
    expect(seen[0]).toMatchObject({ ReturnConsumedCapacity: 'TOTAL' });
  });
});
