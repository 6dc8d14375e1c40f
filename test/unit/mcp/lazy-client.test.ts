import { describe, expect, it } from 'vitest';
import { lazyMcpClient } from '../../../mcp/lazy-client';
import { MissingPart } from '../../../mcp/missing-part';
import type { McpClient } from '../../../mcp/reseal-mcp-deps';
import { type StackPlace, StackUnavailableError } from '../../../mcp/stack-unavailable';

const PLACE: StackPlace = { stackName: 'ResealStack', outputsFile: null, region: 'eu-west-1', endpoint: null };
const noCredentials = () =>
  Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });

/** A client whose `logKey` answers `answer()` (or throws what it throws); counts the connects. */
function counted(results: (() => Promise<McpClient>)[]) {
  let connects = 0;
  const client = lazyMcpClient(() => {
    const next = results[Math.min(connects, results.length - 1)] as () => Promise<McpClient>;
    connects++;
    return next();
  }, PLACE);
  return { client, connects: () => connects };
}
const answering = (logKey: () => Promise<unknown>) => async () => ({ logKey }) as unknown as McpClient;

describe('lazyMcpClient: connects at the first call, again after a failure, and after a call finds a part missing', () => {
  it('a failed connect is not kept: the next call connects again, and a connected client is kept', async () => {
    const { client, connects } = counted([async () => Promise.reject(noCredentials()), answering(async () => 'key')]);
    expect(connects()).toBe(0);
    await expect(client.logKey()).rejects.toMatchObject({ missing: MissingPart.CREDENTIALS, place: PLACE });
    await expect(client.logKey()).resolves.toBe('key');
    await expect(client.logKey()).resolves.toBe('key');
    expect(connects()).toBe(2);
  });

  it('concurrent first calls share one connect', async () => {
    const { client, connects } = counted([answering(async () => 'key')]);
    await Promise.all([client.logKey(), client.logKey(), client.logKey()]);
    expect(connects()).toBe(1);
  });

  it('a call that finds a part missing drops the client (UNAVAILABLE until it resolves again); other errors keep it', async () => {
    let answer: () => Promise<unknown> = async () => Promise.reject(new Error('AccessDeniedException'));
    const { client, connects } = counted([answering(() => answer())]);
    await expect(client.logKey()).rejects.toThrow('AccessDeniedException');
    await expect(client.logKey()).rejects.not.toBeInstanceOf(StackUnavailableError);
    expect(connects()).toBe(1);
    answer = async () =>
      Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4566'), { code: 'ECONNREFUSED' }));
    await expect(client.logKey()).rejects.toMatchObject({ missing: MissingPart.ENDPOINT });
    answer = async () => 'key';
    await expect(client.logKey()).resolves.toBe('key');
    expect(connects()).toBe(2);
  });
});
