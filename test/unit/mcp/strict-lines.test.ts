import { PassThrough } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { INVALID_REQUEST_CODE, PARSE_ERROR_CODE } from '../../../mcp/json-rpc-refusal';
import { createResealMcpServer } from '../../../mcp/server';
import { MAX_MCP_LINE_BYTES, strictJsonLines } from '../../../mcp/strict-lines';
import { expectGuarantee } from '../../helpers/guarantees';
import { pipeline } from './pipeline';

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

/** The server on stdio-like streams behind {@link strictJsonLines}; `send` writes raw lines, `answer` awaits a response by id. */
async function stdioServer() {
  const p = pipeline();
  const input = new PassThrough();
  const output = new PassThrough();
  const server = createResealMcpServer(p.deps({ 'tool:node': 'v20.0.0' }));
  const logged: string[] = [];
  await server.connect(
    new StdioServerTransport(
      strictJsonLines(input, output, (line) => logged.push(line)),
      output,
    ),
  );
  close = () => server.close();
  const answers = new Map<unknown, Record<string, unknown>>();
  let buffered = '';
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let end = buffered.indexOf('\n');
    while (end !== -1) {
      const message = JSON.parse(buffered.slice(0, end)) as Record<string, unknown>;
      answers.set(message.id, message);
      buffered = buffered.slice(end + 1);
      end = buffered.indexOf('\n');
    }
  });
  const answer = async (id: number | null) => {
    for (let i = 0; i < 200 && !answers.has(id); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    return answers.get(id);
  };
  const send = (line: string) => input.write(`${line}\n`);
  /** Writes `chunk` `times` times, waiting whenever the input is backed up, as a pipe would. */
  const sendRepeated = async (chunk: Buffer, times: number) => {
    for (let i = 0; i < times; i++) {
      if (!input.write(chunk)) await new Promise((resolve) => input.once('drain', resolve));
    }
  };
  const sendRaw = (text: string) => input.write(text);
  send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } },
    }),
  );
  await answer(1);
  send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return { p, send, sendRaw, sendRepeated, answer, logged };
}

describe('MCP stdio: a message that repeats a member name never reaches a tool (RFC 7493 §2.3)', () => {
  it('a reseal_recall whose env repeats a key is answered Invalid Request naming the key; other messages pass', async (context) => {
    const { p, send, answer } = await stdioServer();
    // Only text can repeat a name: the host's JSON-RPC line as written.
    send(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"reseal_recall","arguments":{"lineageId":"agent-7","env":{"tool:node":"v20.0.0","tool:node":"v22.0.0"}}}}',
    );
    send('{"jsonrpc":"2.0","id":3,"method":"tools/list"}');
    const refused = await answer(2);
    const listed = await answer(3);
    const error = refused?.error as { code: number; message: string } | undefined;
    expectGuarantee(
      context,
      {
        section: 'faults',
        target: 'reseal_recall env',
        attack: 'currentEnv repeats a key (JSON-RPC text on the MCP stdio transport)',
        reader: 'MCP tool call',
        expected: `JSON-RPC error ${INVALID_REQUEST_CODE} naming params.arguments.env "tool:node"; no recall requested`,
      },
      `${error ? `JSON-RPC error ${error.code}` : 'answered by the tool'}${error?.message.includes('params.arguments.env') && error.message.includes('"tool:node"') ? ' naming params.arguments.env "tool:node"' : ''}; ${p.store.triageReports.size === 0 ? 'no recall requested' : 'recalled'}`,
    );
    expect(error?.message).toMatch(/duplicate key "tool:node"/);
    expect((listed?.result as { tools: unknown[] } | undefined)?.tools).toHaveLength(4);
  });

  it('a notification that repeats a name is dropped without an answer; a line split across chunks is reassembled', async () => {
    const { send, sendRaw, answer } = await stdioServer();
    send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"requestId":10}}');
    sendRaw('{"jsonrpc":"2.0","id":4,"method":"pi');
    sendRaw('ng"}\n');
    expect(await answer(4)).toMatchObject({ id: 4, result: {} });
  });

  it('a message nested too deep to check for repeated names is refused, not passed on unchecked', async () => {
    const { p, send, answer } = await stdioServer();
    // 600 nested arrays put the line past the strict parser's depth: it cannot be checked.
    const padding = `${'['.repeat(600)}${']'.repeat(600)}`;
    send(
      `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"reseal_recall","arguments":{"lineageId":"agent-7","pad":${padding},"env":{"tool:node":"v20.0.0","tool:node":"v22.0.0"}}}}`,
    );
    send('{"jsonrpc":"2.0","id":9,"method":"tools/list"}');
    expect(await answer(8)).toMatchObject({ id: 8, error: { code: INVALID_REQUEST_CODE } });
    expect(((await answer(9))?.result as { tools: unknown[] } | undefined)?.tools).toHaveLength(4);
    expect(p.store.triageReports.size).toBe(0);
  });

  it('a character split across chunks reaches the server whole', async () => {
    const input = new PassThrough();
    const passed: string[] = [];
    const filter = strictJsonLines(input, new PassThrough(), () => {});
    filter.on('data', (chunk: Buffer | string) => passed.push(chunk.toString()));
    const line = Buffer.from(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { t: 'café 😀' } })}\n`,
    );
    const cut = line.indexOf(Buffer.from('😀')) + 2;
    input.write(line.subarray(0, cut));
    input.write(line.subarray(cut));
    await new Promise((resolve) => setImmediate(resolve));
    expect(passed.join('')).toBe(line.toString('utf8'));
  });
});

describe('MCP stdio: a line that is not JSON is answered Parse error, and the server keeps serving (JSON-RPC 2.0, 5.1)', () => {
  it('answers -32700 with id null, names the line escaped on the log, then answers the next tools/list', async () => {
    const { send, answer, logged } = await stdioServer();
    send('{"jsonrpc":"2.0","id":5,"method":"tools/list"\u001b[31m');
    send('{"jsonrpc":"2.0","id":6,"method":"tools/list"}');
    expect(await answer(null)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: PARSE_ERROR_CODE, message: 'Parse error' },
    });
    expect(((await answer(6))?.result as { tools: unknown[] } | undefined)?.tools).toHaveLength(4);
    expect(PARSE_ERROR_CODE).toBe(-32700);
    expect(logged).toEqual([
      'reseal mcp: a line that is not JSON was answered Parse error (-32700): {"jsonrpc":"2.0","id":5,"method":"tools/list"\\u001b[31m',
    ]);
  });

  it('a long line is shown cut; blank lines and a last line without a newline are no parse error', async () => {
    const { send, sendRaw, answer, logged } = await stdioServer();
    send('');
    send(`x${'y'.repeat(500)}`);
    expect(await answer(null)).toMatchObject({ error: { code: -32700 } });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/: xy{199}… \(501 characters\)$/);
    sendRaw('{"jsonrpc":"2.0","id":7,"method":"ping"}\n');
    expect(await answer(7)).toMatchObject({ id: 7, result: {} });
    expect(logged).toHaveLength(1);
  });
});

describe('MCP stdio: a line over MAX_MCP_LINE_BYTES is answered and discarded, never held whole', () => {
  it('a line ten times the bound is answered Invalid Request naming the bound, then the next request is served', async () => {
    const { send, sendRepeated, answer, logged } = await stdioServer();
    const chunk = Buffer.alloc(1024 * 1024, 'z');
    send('{"jsonrpc":"2.0","id":10,"method":"tools/list"}');
    const head = '{"jsonrpc":"2.0","id":11,"method":"ping","params":{"pad":"';
    await sendRepeated(Buffer.from(head), 1);
    await sendRepeated(chunk, (10 * MAX_MCP_LINE_BYTES) / chunk.length);
    send('"}}');
    send('{"jsonrpc":"2.0","id":12,"method":"ping"}');
    expect(await answer(12)).toMatchObject({ id: 12, result: {} });
    expect(((await answer(10))?.result as { tools: unknown[] } | undefined)?.tools).toHaveLength(4);
    expect(await answer(null)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: INVALID_REQUEST_CODE,
        message:
          'Invalid Request: the line is over 10,485,760 bytes (MAX_MCP_LINE_BYTES, newline included); it was discarded up to its newline, unread',
      },
    });
    expect(await answer(11)).toBeUndefined();
    expect(logged).toEqual([
      `reseal mcp: a line over 10,485,760 bytes was answered Invalid Request (-32600) and discarded: ${head}${'z'.repeat(200 - head.length)}…`,
    ]);
  });

  it('reads no more input while the host does not read its answers', async () => {
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 1024 });
    const filter = strictJsonLines(input, output, () => {});
    filter.resume();
    for (let i = 0; i < 2000; i++) input.write('not json\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Answers stop piling up once the output is backed up: the rest wait in the input.
    expect(output.writableLength).toBeLessThan(4096);
    const answers = (
      await new Promise<string>((resolve) => {
        let text = '';
        output.on('data', (data: Buffer) => {
          text += data.toString('utf8');
          if (text.split('\n').length > 2000) resolve(text);
        });
      })
    )
      .trim()
      .split('\n');
    expect(answers).toHaveLength(2000);
    expect(JSON.parse(answers[1999] ?? '')).toMatchObject({ id: null, error: { code: PARSE_ERROR_CODE } });
  });

  it('goes on reading once the output is gone: nothing is left waiting on a stream that will never drain', async () => {
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 64 });
    const passed: string[] = [];
    const filter = strictJsonLines(input, output, () => {});
    filter.on('data', (chunk: Buffer) => passed.push(chunk.toString('utf8')));
    for (let i = 0; i < 50; i++) input.write('not json\n');
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(passed).toEqual([]);
    output.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(passed).toEqual(['{"jsonrpc":"2.0","id":1,"method":"ping"}\n']);
  });
});
