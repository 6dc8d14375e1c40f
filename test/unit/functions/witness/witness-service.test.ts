import { describe, expect, it } from 'vitest';
import { ADD_CHECKPOINT_PATH, createWitnessHandler } from '../../../../functions/witness/create-handler';
import { WitnessService } from '../../../../functions/witness/witness-service';
import { proveConsistency } from '../../../../shared/log/consistency-proof';
import { formatVerifierKey } from '../../../../shared/log/note-key';
import { formatAddCheckpointRequest } from '../../../../shared/witness/add-checkpoint-request';
import { attachCosignatures } from '../../../../shared/witness/attach-cosignatures';
import { formatCosignerKey } from '../../../../shared/witness/cosigner-key';
import { checkPolicy } from '../../../../shared/witness/policy-check';
import { formatReAnchorRequest, RE_ANCHOR_PATH } from '../../../../shared/witness/re-anchor-request';
import { parsePolicy } from '../../../../shared/witness/tlog-policy';
import { parseTrustedLogs } from '../../../../shared/witness/trusted-logs';
import { InMemoryWitnessStore } from '../../../helpers/in-memory-witness-store';
import { testNoteVerifierKey, testTree } from '../../../helpers/log-factories';
import {
  TEST_DEPLOYMENT_ORIGIN,
  testCosignerKey,
  testDeploymentCheckpoint,
  testWitnessSigner,
} from '../../../helpers/witness-factories';

const NOW_MS = 1_800_000_000_000;
const quietLogger = { appendKeys() {}, info() {}, warn() {}, error() {} };

async function witness(store = new InMemoryWitnessStore()) {
  const service = new WitnessService({
    store,
    signer: testWitnessSigner(),
    trusted: parseTrustedLogs(formatVerifierKey(await testNoteVerifierKey())),
    logger: quietLogger,
    clock: () => NOW_MS,
  });
  return { service, store };
}

async function body(oldSize: number, size: number): Promise<string> {
  const proof = oldSize === 0 ? [] : await proveConsistency(oldSize, size, testTree(size).nodes);
  return formatAddCheckpointRequest({ oldSize, proof, note: await testDeploymentCheckpoint(size) });
}

describe('WitnessService.addCheckpoint', () => {
  it('cosigns the first and a consistent larger checkpoint; each cosignature meets a 1-of-1 policy', async () => {
    const { service, store } = await witness();
    const policy = parsePolicy(
      `log ${formatVerifierKey(await testNoteVerifierKey())}\nwitness w ${formatCosignerKey(await testCosignerKey())}\nquorum w\n`,
    );
    for (const [oldSize, size] of [
      [0, 3],
      [3, 8],
    ] as const) {
      const answer = await service.addCheckpoint(await body(oldSize, size));
      expect(answer.status).toBe(200);
      const note = attachCosignatures(await testDeploymentCheckpoint(size), answer.body);
      const check = checkPolicy({ note, policy, maxAgeSeconds: 60, nowSeconds: NOW_MS / 1000 });
      expect(check).toMatchObject({ kind: 'ACCEPTED', quorumTime: NOW_MS / 1000 });
    }
    expect(store.states.get(TEST_DEPLOYMENT_ORIGIN)?.size).toBe(8);
  });

  it('answers 400 and 409 without touching the state', async () => {
    const { service, store } = await witness();
    expect((await service.addCheckpoint('not a request')).status).toBe(400);
    await service.addCheckpoint(await body(0, 5));
    expect(await service.addCheckpoint(await body(3, 8))).toMatchObject({
      status: 409,
      body: '5\n',
      contentType: 'text/x.tlog.size',
    });
    expect(store.states.get(TEST_DEPLOYMENT_ORIGIN)?.size).toBe(5);
    expect(store.replaces).toBe(1);
  });

  it('two requests from the same old size, interleaved between read and save: exactly one is cosigned', async () => {
    const { service, store } = await witness();
    await service.addCheckpoint(await body(0, 2));
    const [a, b] = [await body(2, 6), await body(2, 9)];
    let second: Promise<{ status: number; body: string }> | undefined;
    store.beforeReplace = async () => {
      second = service.addCheckpoint(b);
      await second;
    };
    const first = await service.addCheckpoint(a);
    const answers = [first, await (second as Promise<{ status: number; body: string }>)];
    expect(answers.map((x) => x.status).sort()).toEqual([200, 409]);
    expect(first).toMatchObject({ status: 409, body: '9\n' });
    expect(store.states.get(TEST_DEPLOYMENT_ORIGIN)?.size).toBe(9);
  });
});

describe('createWitnessHandler: POST /add-checkpoint on a function URL', () => {
  const event = (method: string, path: string, text: string, base64 = false) => ({
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'text/plain' },
    requestContext: {
      accountId: 'anonymous',
      apiId: 'abc',
      domainName: 'abc.lambda-url.us-east-1.on.aws',
      domainPrefix: 'abc',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'r',
      routeKey: '$default',
      stage: '$default',
      time: '01/Jan/2026:00:00:00 +0000',
      timeEpoch: 1,
    },
    body: base64 ? Buffer.from(text, 'utf8').toString('base64') : text,
    isBase64Encoded: base64,
  });
  const context = { functionName: 'witness', awsRequestId: 'r', getRemainingTimeInMillis: () => 1000 } as never;

  it('routes POST /add-checkpoint (base64 bodies decoded), 404 elsewhere, 405 for other methods', async () => {
    const { Logger } = await import('@aws-lambda-powertools/logger');
    const { service } = await witness();
    const handler = createWitnessHandler(service, new Logger({ logLevel: 'SILENT' }));
    const ok = await handler(event('POST', ADD_CHECKPOINT_PATH, await body(0, 4), true) as never, context);
    expect(ok).toMatchObject({ statusCode: 200 });
    expect((ok as { body: string }).body.startsWith('\u2014 reseal/test-witness ')).toBe(true);
    expect(await handler(event('POST', '/other', '') as never, context)).toMatchObject({ statusCode: 404 });
    expect(await handler(event('GET', ADD_CHECKPOINT_PATH, '') as never, context)).toMatchObject({
      statusCode: 405,
      headers: { allow: 'POST' },
    });
  });
  it('routes POST /re-anchor to the re-anchor decision (docs/witness.md, "re-anchor"): a witness without recovery keys refuses it', async () => {
    const { Logger } = await import('@aws-lambda-powertools/logger');
    const { service } = await witness();
    const handler = createWitnessHandler(service, new Logger({ logLevel: 'SILENT' }));
    const request = formatReAnchorRequest({ statement: 'x', checkpoint: await testDeploymentCheckpoint(4), proof: [] });
    const refused = await handler(event('POST', RE_ANCHOR_PATH, request) as never, context);
    expect(refused).toMatchObject({ statusCode: 403 });
    expect((refused as { body: string }).body).toMatch(/no recovery key/);
    expect(await handler(event('POST', RE_ANCHOR_PATH, '{') as never, context)).toMatchObject({ statusCode: 400 });
  });
});
