import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  type CallToolResult,
  Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { sigV4Fetch } from '../../adapters/sigv4-fetch';
import { connectToStack } from '../../client/connect';
import { soleWriterLineageId, soleWriterPolicy } from '../../client/sole-writer-policy';
import { clientOutputsFrom, type StackOutputs } from '../../client/stack-outputs';
import { writeRequest } from '../../client/write-request';
import { writerKeyFile } from '../../client/writer-key-file';
import { createResealMcpServer } from '../../mcp/server';
import { writeRequestFor } from '../../mcp/tools/write';
import { clientConfig, deployStack, EMULATOR_REGION } from '../../scripts/emulator/deploy';
import { type Emulator, startEmulator } from '../../scripts/emulator/emulator';
import { LocalWriterSigner } from '../../shared/authorship/local-writer-signer';
import { signWriteRequest } from '../../shared/authorship/write-signature';
import { TenantMismatchError, TenantRequiredError } from '../../shared/errors';
import { createIamUser, type IamUser } from '../helpers/emulator-iam-user';
import { expectGuarantee } from '../helpers/guarantees';
import { until } from '../helpers/until';
import { runCli } from '../unit/cli/run-cli';

// Tenancy on the emulator (docs/authorship.md, "Tenancy"; docs/mcp.md, "Tenants"): a stack with
// the `tenants` option, two tenants whose senders are IAM users of the emulator, deployed on an
// emulator of its own (kept apart from the run's default stack). The emulator runs without
// AUTH=true, so IAM itself refuses nothing here: what these tests show is what Reseal's functions
// enforce behind IAM, the guard's tenant binding from the queue, triage's tenant binding from the
// recall's source and the remote MCP server's scoping of each caller. The queue, bus and key
// policies are asserted on the template (test/infra/tenant-queues.test.ts).
const ROOT = { accessKeyId: 'test', secretAccessKey: 'test' };
const RUN = randomUUID().slice(0, 8);
const TENANT_STACK = 'ResealTenancy';
let emulator: Emulator | undefined;
let endpoint = '';
let sqs: SQSClient;

type AccessKey = IamUser['keys'];
/** A tenant's sender: an IAM user of the emulator. */
interface TenantAgent extends IamUser {
  readonly id: string;
}

let outputs: StackOutputs;
let queueUrls: Record<string, string>;
let acme: TenantAgent;
let beta: TenantAgent;
let store: DynamoDBLineageStore;

beforeAll(async () => {
  emulator = await startEmulator();
  endpoint = emulator.endpoint;
  sqs = new SQSClient({ ...clientConfig(endpoint), useQueueUrlAsEndpoint: false });
  acme = { ...(await createIamUser(endpoint, `reseal-acme-${RUN}`)), id: 'acme' };
  beta = { ...(await createIamUser(endpoint, `reseal-beta-${RUN}`)), id: 'beta' };
  const tenants = [acme, beta].map((t) => ({ id: t.id, senderPrincipals: [t.arn] }));
  outputs = await deployStack(endpoint, {
    embedded: emulator.embedded,
    stackName: TENANT_STACK,
    context: { tenants: JSON.stringify(tenants) },
  });
  const cfn = new CloudFormationClient(clientConfig(endpoint));
  const { Stacks = [] } = await cfn.send(new DescribeStacksCommand({ StackName: TENANT_STACK }));
  const raw = Stacks[0]?.Outputs?.find((o) => o.OutputKey === 'TenantQueueUrls')?.OutputValue;
  queueUrls = JSON.parse(raw ?? '{}') as Record<string, string>;
  expect(Object.keys(queueUrls).sort()).toEqual(['acme', 'beta']);
  store = new DynamoDBLineageStore(new DynamoDBClient(clientConfig(endpoint)), outputs.TableName);
}, 900_000);
afterAll(async () => {
  await emulator?.stop();
}, 120_000);

const MANIFEST = {
  env: { ARCH: 'arm64', REGION: 'eu-west-1' },
  structuralKeys: ['ARCH'],
  claimDependencyMap: { region: ['REGION'] },
};
const unsigned = (lineageId: string, residualId: string) =>
  writeRequest({
    residualId,
    lineageId,
    sessionId: 's-1',
    generationEpoch: 1,
    payload: { note: residualId },
    boundaryAtMs: Date.now() - 1_000,
    manifest: MANIFEST,
  });

/**
 * A client of `tenant` as a tenant's agent configures it: the tenant's queue as
 * `ResidualWritesQueueUrl`, and with `tenantId` its recalls under the tenant's source.
 */
const tenantClient = async (tenant: string, writer: LocalWriterSigner, tenantId?: string) =>
  (
    await connectToStack({
      outputs: clientOutputsFrom({ ...outputs, ResidualWritesQueueUrl: queueUrls[tenant] ?? '' }),
      endpoint,
      region: EMULATOR_REGION,
      credentials: ROOT,
      writer,
      ...(tenantId === undefined ? {} : { tenantId }),
    })
  ).client;

/** An MCP client of the remote server, every request signed with `keys` (SigV4, execute-api). */
async function remoteAs(keys: AccessKey): Promise<Client> {
  const client = new Client({ name: 'reseal-tenancy', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${endpoint}/_aws/execute-api/${outputs.McpApiId}/mcp`), {
      fetch: sigV4Fetch({ region: EMULATOR_REGION, credentials: keys }),
    }),
  );
  return client;
}

describe('tenancy on the deployed stack (two tenants)', () => {
  it("a write into a lineage of another tenant's namespace, sent to the writer's own tenant queue, is refused TENANT_MISMATCH, unsigned; the tenant's own write is sealed", async (context) => {
    const acmeWriter = LocalWriterSigner.generate('acme-writer').signer;
    const betaWriter = LocalWriterSigner.generate('beta-writer').signer;
    const acmeLineage = soleWriterLineageId(`acme/agent-${RUN}`, acmeWriter);
    const acmeClient = await tenantClient('acme', acmeWriter);
    const first = await acmeClient.publishWrite(unsigned(acmeLineage, 'r-0'));
    const sealed = await acmeClient.waitForOutcome(acmeLineage, 'r-0', { request: first.request, timeoutMs: 120_000 });
    expect(sealed.kind).toBe('SEALED');

    // beta's writer starts a lineage in acme's namespace with its own key: admitted by its own
    // policy (writer keys alone would seal it), sent to beta's queue.
    const squatLineage = soleWriterLineageId(`acme/squat-${RUN}`, betaWriter);
    const squat = await signWriteRequest(
      { ...unsigned(squatLineage, 'r-squat'), policy: soleWriterPolicy(betaWriter) },
      betaWriter,
      Date.now(),
    );
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrls.beta, MessageBody: JSON.stringify(squat) }));
    const refused = await until(
      'the refusal of the cross-tenant write',
      async () => (await store.listRejections(squatLineage, { residualId: 'r-squat' })).at(-1),
      { timeoutMs: 120_000 },
    );
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'write (another tenant)',
        attack: "a write starting a lineage in another tenant's namespace, sent to the writer's own tenant queue",
        reader: 'the guard (rejection item)',
        expected: 'refused TENANT_MISMATCH, unsigned, nothing sealed',
      },
      `refused ${refused.reason}, ${refused.statement === null ? 'unsigned' : 'signed'}, ${(await store.head(squatLineage)) === null ? 'nothing sealed' : 'sealed'}`,
    );
    expect(refused).toMatchObject({ stage: 'GUARD', reason: 'TENANT_MISMATCH', statement: null });
    expect(refused.issues[0]?.message).toContain("tenant beta's queue must name a lineage id beginning beta/");
    expect(await store.head(squatLineage)).toBeNull();
  }, 300_000);

  it("the remote MCP server serves a tenant's caller its own lineages (its writes through its own queue) and answers TENANT_MISMATCH for another tenant's; a caller of no tenant is refused", async (context) => {
    const acmeWriter = LocalWriterSigner.generate('acme-remote').signer;
    const lineageId = soleWriterLineageId(`acme/remote-${RUN}`, acmeWriter);
    const now = Date.now();
    const request = await signWriteRequest(
      {
        ...writeRequestFor(
          {
            lineageId,
            residualId: 'r-1',
            sessionId: 's-1',
            generationEpoch: 1,
            claims: { 'node-builds': { content: 'npm run build passes', causalKeys: ['tool:node'] } },
            structuralKeys: ['tool:os'],
          },
          { 'tool:node': 'v20.0.0', 'tool:os': 'ubuntu-24.04' },
          now,
          now - 60_000,
        ),
        policy: soleWriterPolicy(acmeWriter),
      },
      acmeWriter,
      now,
    );
    const asAcme = await remoteAs(acme.keys);
    const asBeta = await remoteAs(beta.keys);
    try {
      let written = (await asAcme.callTool({ name: 'reseal_write', arguments: { request } })) as CallToolResult;
      for (let i = 0; i < 4 && (written.structuredContent as { error?: string }).error === 'TIMEOUT'; i++) {
        written = (await asAcme.callTool({ name: 'reseal_write', arguments: { request } })) as CallToolResult;
      }
      expect(written.isError, JSON.stringify(written.structuredContent)).not.toBe(true);
      expect(written.structuredContent).toMatchObject({ outcome: 'SEALED', lineageId, seq: 0 });
      // docs/mcp.md, "Remote MCP": the walk is tied to the tree head the index holds (the head
      // carries no signed lineage checkpoint); until the record is integrated the answer is
      // AWAITING_INTEGRATION, never TAMPER_DETECTED, then VERIFIED_INTACT.
      const interim: string[] = [];
      const own = await until(
        'the remote inspect of the integrated lineage',
        async () => {
          const answer = (await asAcme.callTool({
            name: 'reseal_inspect',
            arguments: { lineageId },
          })) as CallToolResult;
          const error = (answer.structuredContent as { error?: string }).error;
          if (error === undefined) return answer;
          interim.push(error);
          expect(error, JSON.stringify(answer.structuredContent)).toBe('AWAITING_INTEGRATION');
          return undefined;
        },
        { timeoutMs: 120_000, pollIntervalMs: 1_000, state: () => `answers so far: ${interim.join(', ')}` },
      );
      expect(own.structuredContent).toMatchObject({
        lineageId,
        verdict: 'VERIFIED_INTACT',
        treeHead: { size: 1, vouchedBy: 'index' },
        awaitingIntegrationFromSeq: null,
      });

      const inspect = (await asBeta.callTool({ name: 'reseal_inspect', arguments: { lineageId } })) as CallToolResult;
      const verify = (await asBeta.callTool({ name: 'reseal_verify', arguments: { lineageId } })) as CallToolResult;
      expectGuarantee(
        context,
        {
          section: 'tampering',
          target: 'remote MCP (another tenant)',
          attack: "tenant beta's IAM user inspects and verifies a lineage of tenant acme",
          reader: 'reseal_inspect, reseal_verify (remote)',
          expected: 'TENANT_MISMATCH, TENANT_MISMATCH',
        },
        [inspect, verify].map((r) => (r.structuredContent as { error?: string }).error ?? 'served').join(', '),
      );
      for (const answer of [inspect, verify]) {
        expect(answer.isError).toBe(true);
        expect(answer.structuredContent).toMatchObject({ error: 'TENANT_MISMATCH', lineageId, tenantId: 'beta' });
        expect(JSON.stringify(answer.structuredContent)).not.toContain('npm run build passes');
      }
    } finally {
      await asAcme.close();
      await asBeta.close();
    }
    // The emulator's root key is no tenant's sender: refused before any tool.
    await expect(remoteAs(ROOT)).rejects.toThrow(/not a sender of any tenant/);
  }, 300_000);

  it("a recall put under tenant acme's source naming a lineage of beta is refused with nothing stored under beta's lineage; acme's own recall is triaged", async (context) => {
    const acmeWriter = LocalWriterSigner.generate('acme-recall').signer;
    const betaWriter = LocalWriterSigner.generate('beta-recall').signer;
    const acmeLineage = soleWriterLineageId(`acme/recall-${RUN}`, acmeWriter);
    const betaLineage = soleWriterLineageId(`beta/recall-${RUN}`, betaWriter);
    const acmeClient = await tenantClient('acme', acmeWriter, 'acme');
    const betaClient = await tenantClient('beta', betaWriter, 'beta');
    for (const [client, lineageId] of [
      [acmeClient, acmeLineage],
      [betaClient, betaLineage],
    ] as const) {
      const published = await client.publishWrite(unsigned(lineageId, 'r-0'));
      const outcome = await client.waitForOutcome(lineageId, 'r-0', { request: published.request, timeoutMs: 120_000 });
      expect(outcome.kind).toBe('SEALED');
    }
    const own = await acmeClient.recall(
      { lineageId: acmeLineage, target: { latest: true }, currentEnv: MANIFEST.env },
      { timeoutMs: 120_000 },
    );
    expect(own.end).toBe('TRIAGED');

    // acme's principal puts the recall itself (no client check in the way), under its own source.
    const requestId = `cross-${RUN}`;
    const eventBridge = new EventBridgeClient(clientConfig(endpoint));
    const put = await eventBridge.send(
      new PutEventsCommand({
        Entries: [
          {
            Source: 'reseal.tenant.acme',
            DetailType: 'RecallRequested',
            EventBusName: outputs.EventBusName,
            Detail: JSON.stringify({
              requestId,
              lineageId: betaLineage,
              target: { latest: true },
              currentEnv: MANIFEST.env,
            }),
          },
        ],
      }),
    );
    expect(put.FailedEntryCount ?? 0).toBe(0);
    // Put after it, acme's own recall is answered once triage has taken both events; beta's slot
    // must then still be free (a refusal there would answer beta's own recall of that id first).
    const after = await acmeClient.recall(
      { lineageId: acmeLineage, target: { latest: true }, currentEnv: MANIFEST.env },
      { timeoutMs: 120_000 },
    );
    expect(after.end).toBe('TRIAGED');
    const stored = await store.getTriageReport(betaLineage, requestId);
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'recall (another tenant)',
        attack: 'tenant acme puts a RecallRequested under its own source naming a lineage of tenant beta',
        reader: 'triage',
        expected: "refused, nothing stored under beta's lineage",
      },
      stored
        ? `a report stored under beta's lineage: ${JSON.stringify(stored).slice(0, 120)}`
        : "refused, nothing stored under beta's lineage",
    );
    // The client of acme says so before putting anything.
    await expect(
      acmeClient.requestRecall({ lineageId: betaLineage, target: { latest: true }, currentEnv: MANIFEST.env }),
    ).rejects.toBeInstanceOf(TenantMismatchError);
  }, 300_000);

  it("a tenant's client and CLI are refused TENANT_MISMATCH for a write or recall into another tenant's lineage, before anything is sent; nothing reaches that lineage", async (context) => {
    const acmeWriter = LocalWriterSigner.generate('acme-owner').signer;
    const betaWriter = LocalWriterSigner.generate('beta-stranger').signer;
    const acmeLineage = soleWriterLineageId(`acme/owned-${RUN}`, acmeWriter);
    const acmeClient = await tenantClient('acme', acmeWriter, 'acme');
    const first = await acmeClient.publishWrite(unsigned(acmeLineage, 'r-0'));
    expect(
      (await acmeClient.waitForOutcome(acmeLineage, 'r-0', { request: first.request, timeoutMs: 120_000 })).kind,
    ).toBe('SEALED');

    const betaClient = await tenantClient('beta', betaWriter, 'beta');
    const write = betaClient.publishWrite(unsigned(acmeLineage, 'r-stranger'));
    const recall = betaClient.recall({ lineageId: acmeLineage, target: { latest: true }, currentEnv: MANIFEST.env });
    const wait = betaClient.waitForOutcome(acmeLineage, 'r-0', { timeoutMs: 1_000 });
    const refusals = await Promise.allSettled([write, recall, wait]);
    const codes = refusals.map((r) =>
      r.status === 'rejected' && r.reason instanceof TenantMismatchError ? r.reason.code : r.status,
    );

    const dir = mkdtempSync(join(tmpdir(), 'reseal-tenant-cli-'));
    writeFileSync(join(dir, 'env.json'), JSON.stringify(MANIFEST.env));
    process.env.AWS_ACCESS_KEY_ID ??= ROOT.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY ??= ROOT.secretAccessKey;
    const cli = await runCli(
      ['recall', '--stack', TENANT_STACK, '--lineage', acmeLineage, '--env', 'env.json', '--timeout-ms', '5000'],
      {
        cwd: dir,
        env: {
          AWS_ENDPOINT_URL: endpoint,
          AWS_REGION: EMULATOR_REGION,
          AWS_ACCESS_KEY_ID: ROOT.accessKeyId,
          AWS_SECRET_ACCESS_KEY: ROOT.secretAccessKey,
          RESEAL_TENANT: 'beta',
        },
      },
    );
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'write and recall (another tenant)',
        attack: "tenant beta's agent writes into, waits on and recalls a lineage of tenant acme",
        reader: 'client publishWrite, recall, waitForOutcome; reseal recall',
        expected: 'TENANT_MISMATCH ×3; exit 2 TENANT_MISMATCH',
      },
      `${codes.join(', ').replace(/^(TENANT_MISMATCH, ){2}TENANT_MISMATCH$/, 'TENANT_MISMATCH ×3')}; exit ${cli.exitCode} ${/TENANT_MISMATCH/.test(cli.stderr) ? 'TENANT_MISMATCH' : cli.stderr.trim()}`,
    );
    expect(cli.exitCode, cli.stderr).toBe(2);
    expect(cli.stderr).toContain(`TENANT_MISMATCH: lineage ${acmeLineage} is not of tenant beta`);
    // Nothing of beta's reached acme's lineage: no refusal filed under it, the head unmoved.
    expect(await store.listRejections(acmeLineage)).toEqual([]);
    expect((await store.head(acmeLineage))?.seq).toBe(0);
  }, 300_000);

  it("a caller naming no tenant of the stack is refused TENANT_REQUIRED at once by the client, the CLI and the MCP tools, nothing sent; a tenant's CLI writes through its own queue", async (context) => {
    const dir = mkdtempSync(join(tmpdir(), 'reseal-no-tenant-'));
    const keyFile = join(dir, 'acme.pem');
    const writer = await writerKeyFile(keyFile);
    const lineageId = soleWriterLineageId(`acme/cli-${RUN}`, writer);
    writeFileSync(join(dir, 'env.json'), JSON.stringify(MANIFEST.env));
    writeFileSync(join(dir, 'write.json'), JSON.stringify(unsigned(lineageId, 'r-0')));
    writeFileSync(join(dir, 'write-1.json'), JSON.stringify(unsigned(lineageId, 'r-1')));
    process.env.AWS_ACCESS_KEY_ID ??= ROOT.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY ??= ROOT.secretAccessKey;
    const env = {
      AWS_ENDPOINT_URL: endpoint,
      AWS_REGION: EMULATOR_REGION,
      AWS_ACCESS_KEY_ID: ROOT.accessKeyId,
      AWS_SECRET_ACCESS_KEY: ROOT.secretAccessKey,
    };
    const publish = (file: string) => ['publish', '--stack', TENANT_STACK, '--request', file, '--writer-key', keyFile];
    // With $RESEAL_TENANT the CLI finds its tenant's queue in the stack's outputs (TenantQueueUrls).
    const own = await runCli(publish('write.json'), {
      cwd: dir,
      env: { ...env, RESEAL_TENANT: 'acme' },
      nowMs: Date.now,
    });
    expect(own.exitCode, own.stderr).toBe(0);
    await until('the tenant write sealed', async () => ((await store.head(lineageId))?.seq === 0 ? true : undefined), {
      timeoutMs: 120_000,
    });

    // Without a tenant: refused before anything is signed or sent (the stack would refuse it where the caller cannot read).
    const cliWrite = await runCli(publish('write-1.json'), { cwd: dir, env, nowMs: Date.now });
    const cliRecall = await runCli(
      ['recall', '--stack', TENANT_STACK, '--lineage', lineageId, '--env', 'env.json', '--timeout-seconds', '5'],
      { cwd: dir, env },
    );
    const { client } = await connectToStack({
      stackName: TENANT_STACK,
      endpoint,
      region: EMULATOR_REGION,
      credentials: ROOT,
      writer,
    });
    const clientRefusals = await Promise.allSettled([
      client.publishWrite(unsigned(lineageId, 'r-1')),
      client.recall({ lineageId, target: { latest: true }, currentEnv: MANIFEST.env }, { timeoutMs: 5_000 }),
    ]);
    const server = createResealMcpServer({ client, snapshots: null });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const mcp = new Client({ name: 'reseal-no-tenant', version: '1.0.0' });
    await mcp.connect(clientSide);
    const tools = await Promise.all([
      mcp.callTool({
        name: 'reseal_write',
        arguments: {
          lineageId,
          sessionId: 's-1',
          generationEpoch: 1,
          payload: { note: 'r-mcp' },
          env: MANIFEST.env,
          timeoutMs: 5_000,
        },
      }) as Promise<CallToolResult>,
      mcp.callTool({
        name: 'reseal_recall',
        arguments: { lineageId, target: { latest: true }, env: MANIFEST.env, timeoutMs: 5_000 },
      }) as Promise<CallToolResult>,
    ]);
    await mcp.close();
    await server.close();

    const required = (text: string) => (/TENANT_REQUIRED/.test(text) ? 'TENANT_REQUIRED' : text.slice(0, 200));
    const observed = [
      ...clientRefusals.map((r) =>
        r.status === 'rejected' && r.reason instanceof TenantRequiredError ? r.reason.code : r.status,
      ),
      ...[cliWrite, cliRecall].map((run) => `exit ${run.exitCode} ${required(run.stderr)}`),
      ...tools.map((t) => {
        const out = t.structuredContent as { error?: string };
        return `${out.error ?? 'served'} ${required(JSON.stringify(out))}`;
      }),
    ];
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'write and recall (no tenant)',
        attack: 'a caller naming no tenant writes into and recalls a lineage of a stack with tenants',
        reader: 'client publishWrite, recall; reseal publish --wait, recall; mcp reseal_write, reseal_recall',
        expected:
          'TENANT_REQUIRED, TENANT_REQUIRED; exit 2 TENANT_REQUIRED, exit 2 TENANT_REQUIRED; INVALID_INPUT TENANT_REQUIRED, INVALID_INPUT TENANT_REQUIRED',
      },
      `${observed.slice(0, 2).join(', ')}; ${observed.slice(2, 4).join(', ')}; ${observed.slice(4).join(', ')}`,
    );
    // Nothing of it reached the stack: no refusal filed, the head unmoved.
    expect(await store.listRejections(lineageId)).toEqual([]);
    expect((await store.head(lineageId))?.seq).toBe(0);

    // Past its client, on the emulator (no IAM): the guard refuses a write from the queue of no tenant, unsigned.
    // On AWS the send itself is AccessDenied (the residual-writes queue policy's NoWritesOutsideATenant).
    const raw = await signWriteRequest(unsigned(lineageId, 'r-raw'), writer, Date.now());
    await sqs.send(
      new SendMessageCommand({ QueueUrl: outputs.ResidualWritesQueueUrl, MessageBody: JSON.stringify(raw) }),
    );
    const refused = await until(
      'the refusal of the write of no tenant',
      async () => (await store.listRejections(lineageId, { residualId: 'r-raw' })).at(-1),
      { timeoutMs: 120_000 },
    );
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'write (no tenant)',
        attack:
          'a signed write sent past its client to the residual-writes queue of a stack with tenants (emulator: no IAM)',
        reader: 'the guard (rejection item)',
        expected: 'refused GUARD TENANT_MISMATCH, unsigned, nothing sealed',
      },
      `refused ${refused.stage} ${refused.reason}, ${refused.statement === null ? 'unsigned' : 'signed'}, ${(await store.head(lineageId))?.seq === 0 ? 'nothing sealed' : 'sealed'}`,
    );
    expect(refused.issues[0]?.message).toContain('the write came from a queue of no tenant');
  }, 300_000);
});
