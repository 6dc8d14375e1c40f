import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOL_NAMES } from '../../helpers/mcp-fixtures';
import { noAwsEnv } from '../../helpers/no-aws-env';

// `reseal mcp` as a host starts it, with no stack reachable (nothing here reaches the network), fed a
// line that is not JSON: JSON-RPC 2.0 asks for a Parse error answer, and the host must not wait.
const ROOT = join(import.meta.dirname, '..', '..', '..');

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reseal-mcp-parse-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('reseal mcp (stdio): a line that is not JSON', () => {
  it('is answered -32700 with id null and named on stderr, escaped; a message of no JSON-RPC shape is named too; the next tools/list is answered', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'reseal.mjs'), 'mcp'], {
      cwd: dir,
      env: noAwsEnv(dir),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const messages = () =>
      stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 600 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    try {
      child.stdin.write('{"jsonrpc":"2.0","id":1,\u001b[2J not json\n');
      // JSON, but no JSON-RPC message: the SDK's read buffer reports it to onerror, and answers nothing.
      child.stdin.write('{"hello":"world"}\n');
      const initialize = {
        jsonrpc: '2.0',
        id: 2,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } },
      };
      child.stdin.write(`${JSON.stringify(initialize)}\n`);
      await until(() => messages().some((m) => m.id === 2));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' })}\n`);
      await until(() => messages().some((m) => m.id === 3));
      expect(messages().find((m) => m.id === null)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error' },
      });
      const listed = messages().find((m) => m.id === 3)?.result as { tools: { name: string }[] } | undefined;
      expect(listed?.tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES]);
      const named = stderr.split('\n').filter((line) => line.includes('not JSON'));
      expect(named).toEqual([
        'reseal mcp: a line that is not JSON was answered Parse error (-32700): {"jsonrpc":"2.0","id":1,\\u001b[2J not json',
      ]);
      const reported = stderr
        .split('\n')
        .filter((line) => line.startsWith('reseal mcp: ') && !line.includes('not JSON'));
      expect(reported).toHaveLength(1);
      // One short line, no control character in it (a schema error runs to pages as the SDK words it).
      expect([...(reported[0] ?? '')].every((c) => c >= ' ')).toBe(true);
      expect(reported[0]?.length).toBeLessThanOrEqual('reseal mcp: '.length + 301);
    } finally {
      child.stdin.end();
      child.kill();
    }
  }, 60_000);
});
