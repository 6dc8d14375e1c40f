import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { StackOutputsError } from '../../../client/errors';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import { ResealClient } from '../../../client/reseal-client';
import { mcpConfigFrom } from '../../../mcp/config';
import { connectMcpDeps } from '../../../mcp/connect-mcp-deps';
import { loadPolicy } from '../../../mcp/load-policy';
import { loadWriterKey } from '../../../mcp/load-writer-key';
import { MissingPart } from '../../../mcp/missing-part';
import { readStackOutputsFile } from '../../../mcp/read-stack-outputs-file';
import { resolveMcpClient } from '../../../mcp/resolve-mcp-client';
import { StackUnavailableError } from '../../../mcp/stack-unavailable';
import { LocalWriterSigner } from '../../../shared/authorship/local-writer-signer';
import { InvalidInputError } from '../../../shared/errors';
import { formatVerifierKey } from '../../../shared/log/note-key';
import { TEST_LOG_KEY } from '../../helpers/pipeline-keys';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reseal-mcp-config-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const OUTPUTS = {
  TableName: 't',
  ResidualWritesQueueUrl: 'http://q',
  EventBusName: 'b',
  MacKeyArn: 'arn:k',
  LogKeyArn: 'arn:log',
  GuardKeyArn: 'arn:guard',
  SealerKeyArn: 'arn:sealer',
  LogName: 'reseal/Stack',
};
const CLIENT_OUTPUTS = {
  tableName: 't',
  residualWritesQueueUrl: 'http://q',
  eventBusName: 'b',
  macKeyArn: 'arn:k',
  logKeyArn: 'arn:log',
  guardKeyArn: 'arn:guard',
  sealerKeyArn: 'arn:sealer',
  logName: 'reseal/Stack',
};

describe('MCP server configuration from the environment', () => {
  it('defaults: ResealStack, checkpoints in memory, no snapshot config unless reseal.config.json is there', () => {
    expect(mcpConfigFrom({}, {}, dir)).toEqual({
      stackName: 'ResealStack',
      outputsFile: null,
      checkpointsFile: null,
      configFile: null,
      region: null,
      endpoint: null,
      writerKeyFile: null,
      writerKmsKey: null,
      policyFile: null,
      policyMaxAgeSeconds: null,
      tenantId: null,
    });
  });

  it('reads the variables (empty ones count as absent), resolves paths, and lets the options win', async () => {
    await writeFile(join(dir, 'reseal.config.json'), '{}');
    const env = {
      RESEAL_STACK: 'Prod',
      RESEAL_CHECKPOINTS: 'state/checkpoints.json',
      AWS_DEFAULT_REGION: 'eu-west-1',
      AWS_ENDPOINT_URL: 'http://127.0.0.1:4566',
      RESEAL_STACK_OUTPUTS: '',
    };
    expect(mcpConfigFrom(env, { stackName: 'Staging' }, dir)).toEqual({
      stackName: 'Staging',
      outputsFile: null,
      checkpointsFile: join(dir, 'state', 'checkpoints.json'),
      configFile: join(dir, 'reseal.config.json'),
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:4566',
      writerKeyFile: null,
      writerKmsKey: null,
      policyFile: null,
      policyMaxAgeSeconds: null,
      tenantId: null,
    });
    await rm(join(dir, 'reseal.config.json'));
  });

  it('reads the writer key variables: the key file resolved, the KMS key ARN as given', () => {
    const arn = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    expect(mcpConfigFrom({ RESEAL_WRITER_KEY: 'keys/agent.pem', RESEAL_WRITER_KMS_KEY: arn }, {}, dir)).toMatchObject({
      writerKeyFile: join(dir, 'keys', 'agent.pem'),
      writerKmsKey: arn,
    });
  });

  it('RESEAL_POLICY and RESEAL_POLICY_MAX_AGE (docs/mcp.md, "Freshness"): loadPolicy reads the tlog-policy once; a bad one, or a maximum age without a policy, is refused naming the variable', async () => {
    const log = formatVerifierKey(TEST_LOG_KEY);
    await writeFile(join(dir, 'policy.txt'), `log ${log}\nquorum none\n`);
    const config = mcpConfigFrom({ RESEAL_POLICY: 'policy.txt', RESEAL_POLICY_MAX_AGE: '90' }, {}, dir);
    expect(config).toMatchObject({ policyFile: join(dir, 'policy.txt'), policyMaxAgeSeconds: 90 });
    expect(await loadPolicy(config)).toMatchObject({ maxAgeSeconds: 90, witnessing: 'UNWITNESSED' });
    expect(await loadPolicy(mcpConfigFrom({}, {}, dir))).toBeNull();
    await writeFile(join(dir, 'bad-policy.txt'), `log ${log}\nquorum w9\n`);
    await expect(loadPolicy(mcpConfigFrom({ RESEAL_POLICY: 'bad-policy.txt' }, {}, dir))).rejects.toMatchObject({
      issues: [{ path: 'RESEAL_POLICY' }],
    });
    await expect(loadPolicy(mcpConfigFrom({ RESEAL_POLICY_MAX_AGE: '90' }, {}, dir))).rejects.toMatchObject({
      issues: [{ path: 'RESEAL_POLICY_MAX_AGE' }],
    });
    expect(() => mcpConfigFrom({ RESEAL_POLICY_MAX_AGE: '0' }, {}, dir)).toThrow(/RESEAL_POLICY_MAX_AGE/);
  });

  it('loadWriterKey: a PEM key file signs as its base name; an unreadable or non-key file is refused, naming RESEAL_WRITER_KEY', async () => {
    const pemFile = join(dir, 'agent-7-writer.pem');
    const generated = LocalWriterSigner.generate('ignored');
    await writeFile(pemFile, generated.pem);
    const signer = await loadWriterKey(mcpConfigFrom({ RESEAL_WRITER_KEY: pemFile }, {}, dir));
    expect(signer).toMatchObject({ keyId: 'agent-7-writer', publicKey: generated.signer.publicKey });
    expect(await loadWriterKey(mcpConfigFrom({}, {}, dir))).toBeNull();
    const notAKey = join(dir, 'not-a-key.pem');
    await writeFile(notAKey, 'hello');
    for (const file of [notAKey, join(dir, 'missing.pem')]) {
      const loading = loadWriterKey(mcpConfigFrom({ RESEAL_WRITER_KEY: file }, {}, dir));
      await expect(loading).rejects.toThrow(InvalidInputError);
      await expect(loading).rejects.toMatchObject({ issues: [{ path: 'RESEAL_WRITER_KEY' }] });
    }
    // connectMcpDeps loads it at start-up, before any tool call.
    await expect(connectMcpDeps(mcpConfigFrom({ RESEAL_WRITER_KEY: notAKey }, {}, dir))).rejects.toThrow(
      /RESEAL_WRITER_KEY/,
    );
  });

  it('refuses a malformed variable, naming it', () => {
    expect(() => mcpConfigFrom({ AWS_ENDPOINT_URL: 'not a url' }, {}, dir)).toThrow(InvalidInputError);
    expect(() => mcpConfigFrom({ AWS_ENDPOINT_URL: 'not a url' }, {}, dir)).toThrow(/AWS_ENDPOINT_URL/);
  });

  it('reads a cdk --outputs-file document (the stack entry) or flat outputs; names a missing output', async () => {
    const nested = join(dir, 'nested.json');
    await writeFile(nested, JSON.stringify({ ResealStack: { ...OUTPUTS, Extra: 'x' } }));
    expect(await readStackOutputsFile(nested, 'ResealStack')).toEqual(CLIENT_OUTPUTS);
    const flat = join(dir, 'flat.json');
    await writeFile(flat, JSON.stringify(OUTPUTS));
    expect(await readStackOutputsFile(flat, 'ResealStack')).toEqual(CLIENT_OUTPUTS);
    const partial = join(dir, 'partial.json');
    await writeFile(partial, JSON.stringify({ TableName: 't' }));
    await expect(readStackOutputsFile(partial, 'ResealStack')).rejects.toThrow(StackOutputsError);
    await expect(readStackOutputsFile(partial, 'ResealStack')).rejects.toThrow(/MacKeyArn/);
  });

  it("reads the stack's integration interval when the file has it, and refuses a malformed one", async () => {
    const ten = join(dir, 'interval.json');
    await writeFile(ten, JSON.stringify({ ResealStack: { ...OUTPUTS, IntegrationIntervalSeconds: '10' } }));
    expect(await readStackOutputsFile(ten, 'ResealStack')).toEqual({
      ...CLIENT_OUTPUTS,
      integrationIntervalSeconds: 10,
    });
    const bad = join(dir, 'bad-interval.json');
    await writeFile(bad, JSON.stringify({ ...OUTPUTS, IntegrationIntervalSeconds: '0' }));
    await expect(readStackOutputsFile(bad, 'ResealStack')).rejects.toThrow(/IntegrationIntervalSeconds/);
  });
});

/** An environment where the SDK finds credentials and the region only where a test puts them. */
function isolateAwsEnvironment(): void {
  for (const name of [
    'AWS_PROFILE',
    'AWS_REGION',
    'AWS_DEFAULT_REGION',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
  ]) {
    vi.stubEnv(name, undefined);
  }
  vi.stubEnv('AWS_SESSION_TOKEN', undefined);
  vi.stubEnv('AWS_CONFIG_FILE', join(dir, 'no-aws-config'));
  vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', join(dir, 'no-aws-credentials'));
  vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
  vi.stubEnv('AWS_CONTAINER_CREDENTIALS_RELATIVE_URI', undefined);
  vi.stubEnv('AWS_CONTAINER_CREDENTIALS_FULL_URI', undefined);
  vi.stubEnv('AWS_WEB_IDENTITY_TOKEN_FILE', undefined);
}

describe('connectMcpDeps and resolveMcpClient: the server starts with no stack reachable', () => {
  beforeEach(isolateAwsEnvironment);
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const configOf = (outputsFile: string, region: string | null = 'eu-west-1') => ({
    ...mcpConfigFrom({}, { outputsFile, checkpointsFile: join(dir, 'kept', 'checkpoints.json') }, dir),
    region,
  });

  it('connectMcpDeps reaches nothing: its client resolves the stack at its first call, naming what is missing', async () => {
    const outputsFile = join(dir, 'outputs-later.json');
    const deps = await connectMcpDeps(configOf(outputsFile), { nowMs: () => 42 });
    expect(deps.client).not.toBeInstanceOf(ResealClient);
    expect(deps.snapshots).toBeNull();
    expect(deps.nowMs?.()).toBe(42);
    const first = deps.client.latestCheckpoint('agent-7');
    await expect(first).rejects.toThrow(StackUnavailableError);
    await expect(first).rejects.toMatchObject({
      missing: MissingPart.OUTPUTS,
      place: { stackName: 'ResealStack', outputsFile, region: 'eu-west-1', endpoint: null },
    });
    // Deployed meanwhile: the next call resolves again and gets further (no credentials yet).
    await writeFile(outputsFile, JSON.stringify({ ResealStack: OUTPUTS }));
    await expect(deps.client.latestCheckpoint('agent-7')).rejects.toMatchObject({ missing: MissingPart.CREDENTIALS });
  });

  it('RESEAL_TENANT (docs/mcp.md, "Tenants"): every tool naming a lineage of another tenant is TENANT_MISMATCH before the stack is reached; a value that is no tenant id is refused', async () => {
    expect(() => mcpConfigFrom({ RESEAL_TENANT: 'Acme Corp' }, {}, dir)).toThrow(/RESEAL_TENANT/);
    const outputsFile = join(dir, 'outputs-tenant.json');
    const config = {
      ...configOf(outputsFile),
      ...mcpConfigFrom({ RESEAL_TENANT: 'acme' }, {}, dir),
      region: 'eu-west-1',
    };
    expect(config.tenantId).toBe('acme');
    const deps = await connectMcpDeps({ ...config, outputsFile }, { nowMs: () => 42 });
    await expect(deps.client.latestCheckpoint('beta/agent-7')).rejects.toMatchObject({
      code: 'TENANT_MISMATCH',
      lineageId: 'beta/agent-7',
      tenantId: 'acme',
    });
    // Its own tenant's lineage goes on to the stack (no outputs file yet: UNAVAILABLE).
    await expect(deps.client.latestCheckpoint('acme/agent-7')).rejects.toMatchObject({ missing: MissingPart.OUTPUTS });
  });

  it('resolveMcpClient: a client of the outputs file, without calling AWS, once region and credentials are there', async () => {
    const outputsFile = join(dir, 'outputs-connect.json');
    await writeFile(outputsFile, JSON.stringify({ ResealStack: OUTPUTS }));
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'example');
    const client = await resolveMcpClient(configOf(outputsFile), { checkpointStore: new MemoryCheckpointStore() });
    expect(client).toBeInstanceOf(ResealClient);
    expect(client.outputs).toEqual(CLIENT_OUTPUTS);
  });

  it.each([
    ['outputs', 'an outputs file that does not exist', 'missing.json', 'eu-west-1', MissingPart.OUTPUTS, /ENOENT/],
    ['outputs', 'an outputs file that lacks an output', 'partial.json', 'eu-west-1', MissingPart.OUTPUTS, /MacKeyArn/],
    ['region', 'no region anywhere', 'full.json', null, MissingPart.REGION, /Region is missing/],
    ['credentials', 'no credentials in the chain', 'full.json', 'eu-west-1', MissingPart.CREDENTIALS, /credentials/],
  ])('resolveMcpClient: %s missing (%s)', async (_part, _why, file, region, missing, reason) => {
    await writeFile(join(dir, 'partial.json'), JSON.stringify({ TableName: 't' }));
    await writeFile(join(dir, 'full.json'), JSON.stringify(OUTPUTS));
    const resolving = resolveMcpClient(configOf(join(dir, file), region), {
      checkpointStore: new MemoryCheckpointStore(),
    });
    await expect(resolving).rejects.toThrow(StackUnavailableError);
    await expect(resolving).rejects.toMatchObject({ missing, message: expect.stringMatching(reason) });
  });
});
