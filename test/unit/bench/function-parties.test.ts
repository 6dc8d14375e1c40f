import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallStats, CallTally, partyCountsSince, snapshotParties } from '../../../bench/stack/call-tally';
import { type CountingProxy, startCountingProxy } from '../../../bench/stack/counting-proxy';
import { partyEndpoints, partyOfPath, UNATTRIBUTED_PARTY } from '../../../bench/stack/party-endpoints';
import type { Measured } from '../../../bench/stack/stack-bench';
import { callsTable, FUNCTIONS_TOTAL_PARTY, outcomeReadsRow } from '../../../bench/stack/stack-report';

const stats = (calls: number, extra: Partial<CallStats> = {}): CallStats => ({
  calls,
  requestBytes: 100 * calls,
  responseBytes: 10 * calls,
  readUnits: 0,
  writeUnits: 0,
  maxRequestBytes: 100,
  billedUnits: calls,
  ...extra,
});

describe('party endpoints: each function its own path on the proxy', () => {
  it("gives each function, by service name, the proxy's endpoint under its name", () => {
    const endpoints = partyEndpoints('http://127.0.0.2:4566/');
    expect(endpoints['reseal-guard']).toBe('http://127.0.0.2:4566/_party/guard');
    expect(endpoints['reseal-integrator']).toBe('http://127.0.0.2:4566/_party/integrator');
    expect(Object.keys(endpoints)).toEqual([
      'reseal-guard',
      'reseal-sealer',
      'reseal-integrator',
      'reseal-triage',
      'reseal-mcp',
    ]);
  });

  it('reads the party off a path and forwards the rest; other paths are left as they are', () => {
    expect(partyOfPath('/_party/guard/')).toEqual({ party: 'guard', path: '/' });
    expect(partyOfPath('/_party/sealer')).toEqual({ party: 'sealer', path: '/' });
    expect(partyOfPath('/_party/triage/000000000000/q?Action=SendMessage')).toEqual({
      party: 'triage',
      path: '/000000000000/q?Action=SendMessage',
    });
    expect(partyOfPath('/_party/mcp?x=1')).toEqual({ party: 'mcp', path: '/?x=1' });
    expect(partyOfPath('/000000000000/q')).toEqual({ party: undefined, path: '/000000000000/q' });
    expect(partyOfPath('/_party//')).toEqual({ party: undefined, path: '/_party//' });
  });
});

describe('party counts', () => {
  it('differences per party: a party first seen after the mark counts from nothing, one without calls is left out', () => {
    const guard = new CallTally();
    const tallies = new Map([['guard', guard]]);
    guard.record({ service: 'KMS', operation: 'Sign', requestBytes: 1, responseBytes: 1 });
    const before = snapshotParties(tallies);
    const integrator = new CallTally();
    tallies.set('integrator', integrator);
    integrator.record({ service: 'DynamoDB', operation: 'Query', requestBytes: 1, responseBytes: 1 });
    const since = partyCountsSince(snapshotParties(tallies), before);
    expect(Object.keys(since)).toEqual(['integrator']);
    expect(since.integrator?.['DynamoDB.Query']).toMatchObject({ calls: 1 });
  });
});

describe("the functions' proxy tells each function's calls apart by the path of its endpoint", () => {
  let upstream: Server;
  let proxy: CountingProxy;
  const paths: string[] = [];
  beforeAll(async () => {
    upstream = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        paths.push(req.url ?? '');
        res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify({ __type: 'com.amazonaws.bench#Refused', message: 'stand-in' }));
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    proxy = await startCountingProxy({ target: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((r) => upstream.close(r));
  });

  it("a function's SDK clients, given its endpoint as AWS_ENDPOINT_URL, arrive under its path, SQS too when the queue URL has the proxy's origin; the service sees no path", async () => {
    const endpoints = partyEndpoints(proxy.endpoint);
    const saved = process.env.AWS_ENDPOINT_URL;
    const credentials = { accessKeyId: 't', secretAccessKey: 't' };
    const call = async (service: string, send: () => Promise<unknown>) => {
      process.env.AWS_ENDPOINT_URL = endpoints[service];
      try {
        await send().catch(() => undefined);
      } finally {
        if (saved === undefined) delete process.env.AWS_ENDPOINT_URL;
        else process.env.AWS_ENDPOINT_URL = saved;
      }
    };
    // As a function builds them: no endpoint in the code, the environment's, queue URLs followed.
    await call('reseal-guard', () =>
      new SQSClient({ region: 'us-east-1', credentials, maxAttempts: 1 }).send(
        new SendMessageCommand({
          QueueUrl: `${proxy.endpoint}/000000000000/seal-requests.fifo`,
          MessageBody: 'x',
          MessageGroupId: 'g',
        }),
      ),
    );
    await call('reseal-integrator', () =>
      new DynamoDBClient({ region: 'us-east-1', credentials, maxAttempts: 1 }).send(
        new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }),
      ),
    );
    const byParty = snapshotParties(proxy.byParty);
    expect(Object.keys(byParty).sort()).toEqual(['guard', 'integrator']);
    expect(byParty.guard?.['SQS-FIFO.SendMessage']).toMatchObject({ calls: 1 });
    expect(byParty.integrator?.['DynamoDB.GetItem']).toMatchObject({ calls: 1 });
    expect(proxy.tally.snapshot()['DynamoDB.GetItem']).toMatchObject({ calls: 1 });
    expect(paths.every((path) => !path.includes('_party'))).toBe(true);
  });

  it('a call under no path is counted for the functions, unattributed', async () => {
    await fetch(`${proxy.endpoint}/`, {
      method: 'POST',
      headers: { 'x-amz-target': 'TrentService.GenerateMac' },
      body: '{}',
    });
    expect(proxy.byParty.get(UNATTRIBUTED_PARTY)?.snapshot()['KMS.GenerateMac']).toMatchObject({ calls: 1 });
  });
});

describe("the report's calls per function and the client's outcome reads", () => {
  const measured: Measured = {
    name: 'sparse, paced',
    operations: 10,
    seconds: 12,
    publishSeconds: 2,
    latenciesMs: [900, 1100, 1300],
    client: {
      'DynamoDB.GetItem': stats(20, { readUnits: 20 }),
      'DynamoDB.Query': stats(10, { readUnits: 5 }),
      'DynamoDB.BatchGetItem': stats(10, { estimatedReadUnits: 15 }),
    },
    functions: { 'DynamoDB.GetItem': stats(30, { readUnits: 30 }), 'KMS.GenerateMac': stats(4) },
    byFunction: {
      integrator: { 'DynamoDB.GetItem': stats(20, { readUnits: 20 }) },
      sealer: { 'DynamoDB.GetItem': stats(10, { readUnits: 10 }), 'KMS.GenerateMac': stats(4) },
    },
    lambda: null,
  };

  it('prints each function in pipeline order, then the functions together', () => {
    const rows = callsTable(measured)
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.startsWith('| party'))
      .map((line) => line.split(' | ').slice(0, 3).join(' | '));
    expect(rows).toEqual([
      '| client | DynamoDB.BatchGetItem | 1.000',
      '| client | DynamoDB.GetItem | 2.000',
      '| client | DynamoDB.Query | 1.000',
      '| sealer | DynamoDB.GetItem | 1.000',
      '| sealer | KMS.GenerateMac | 0.400',
      '| integrator | DynamoDB.GetItem | 2.000',
      `| ${FUNCTIONS_TOTAL_PARTY} | DynamoDB.GetItem | 3.000`,
      `| ${FUNCTIONS_TOTAL_PARTY} | KMS.GenerateMac | 0.400`,
    ]);
  });

  it('without calls told apart, the functions are one party, as before', () => {
    expect(callsTable({ ...measured, byFunction: null })).toContain('| functions | KMS.GenerateMac | 0.400 |');
  });

  it("sets the client's reads per write beside the p50 they were taken at", () => {
    expect(outcomeReadsRow(measured)).toBe('| sparse, paced | 5.00 | 1100 | 2.00 | 1.00 | 1.00 | 2.50 | 1.50 |');
  });
});
