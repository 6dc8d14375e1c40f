import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StackOutputsError } from '../../../client/errors';
import { FileCheckpoints, MemoryCheckpoints } from '../../../mcp/checkpoint-file';
import { mcpConfigFrom, readStackOutputsFile } from '../../../mcp/config';
import { InvalidInputError } from '../../../shared/errors';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reseal-mcp-config-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const hash = (c: string) => c.repeat(64);
const OUTPUTS = { TableName: 't', ResidualWritesQueueUrl: 'http://q', EventBusName: 'b', MacKeyArn: 'arn:k' };
const CLIENT_OUTPUTS = { tableName: 't', residualWritesQueueUrl: 'http://q', eventBusName: 'b', macKeyArn: 'arn:k' };

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

describe('checkpoint keepers: the latest verified head per lineage', () => {
  it.each([
    ['in memory', () => new MemoryCheckpoints()],
    ['in a file', () => new FileCheckpoints(join(dir, `cp-${Math.random()}.json`), () => 42)],
  ])('%s: a later seq replaces, an earlier one does not', async (_name, make) => {
    const keeper = make();
    expect(await keeper.get('lin-1')).toBeNull();
    await keeper.keep('lin-1', { seq: 2, recordHash: hash('b') });
    await keeper.keep('lin-1', { seq: 1, recordHash: hash('a') });
    await keeper.keep('lin-2', { seq: 0, recordHash: hash('c') });
    expect(await keeper.get('lin-1')).toEqual({ seq: 2, recordHash: hash('b') });
    await keeper.keep('lin-1', { seq: 3, recordHash: hash('d') });
    expect(await keeper.get('lin-1')).toEqual({ seq: 3, recordHash: hash('d') });
    expect(await keeper.get('lin-2')).toEqual({ seq: 0, recordHash: hash('c') });
  });

  it('a file outlives the keeper; a corrupt file is an error, never reset', async () => {
    const path = join(dir, 'kept.json');
    await new FileCheckpoints(path, () => 42).keep('lin-1', { seq: 5, recordHash: hash('e') });
    expect(await new FileCheckpoints(path).get('lin-1')).toEqual({ seq: 5, recordHash: hash('e') });
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      formatVersion: 1,
      lineages: { 'lin-1': { seq: 5, recordHash: hash('e'), keptAtMs: 42 } },
    });
    await writeFile(path, '{"formatVersion":1,"lineages":{"lin-1":{"seq":"five"}}}');
    await expect(new FileCheckpoints(path).get('lin-1')).rejects.toThrow(InvalidInputError);
    await expect(new FileCheckpoints(path).keep('lin-1', { seq: 6, recordHash: hash('f') })).rejects.toThrow(
      InvalidInputError,
    );
  });
});
