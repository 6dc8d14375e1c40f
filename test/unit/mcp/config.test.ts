import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StackOutputsError } from '../../../client/errors';
import { ResealClient } from '../../../client/reseal-client';
import { connectMcpDeps, mcpConfigFrom, readStackOutputsFile } from '../../../mcp/config';
import { InvalidInputError } from '../../../shared/errors';

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
  LogName: 'reseal/Stack',
};
const CLIENT_OUTPUTS = {
  tableName: 't',
  residualWritesQueueUrl: 'http://q',
  eventBusName: 'b',
  macKeyArn: 'arn:k',
  logKeyArn: 'arn:log',
  guardKeyArn: 'arn:guard',
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
    });
    await rm(join(dir, 'reseal.config.json'));
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
});

describe('connectMcpDeps', () => {
  it('builds a client of the stack from an outputs file, without calling AWS, and no snapshot providers by default', async () => {
    const outputsFile = join(dir, 'outputs-connect.json');
    await writeFile(outputsFile, JSON.stringify({ ResealStack: OUTPUTS }));
    const config = {
      ...mcpConfigFrom({}, { outputsFile, checkpointsFile: join(dir, 'kept', 'checkpoints.json') }, dir),
      region: 'eu-west-1',
    };
    const deps = await connectMcpDeps(config, { nowMs: () => 42 });
    expect(deps.client).toBeInstanceOf(ResealClient);
    expect((deps.client as ResealClient).outputs).toEqual(CLIENT_OUTPUTS);
    expect(deps.snapshots).toBeNull();
    expect(deps.nowMs?.()).toBe(42);
  });
});
