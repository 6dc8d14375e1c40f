import { Transform, type Writable } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/server';
import { escapedText } from '../shared/schemas/escaped-text';
import { groupedCount } from '../shared/schemas/grouped-count';
import { type BoundedLine, BoundedLines } from './bounded-lines';
import { INVALID_REQUEST_CODE, jsonRpcRefusal, PARSE_ERROR_CODE } from './json-rpc-refusal';

/**
 * Longest line `reseal mcp` (and `reseal mcp --remote`) reads from the host, in bytes, its newline
 * included: 10,485,760 (10 MiB), the MCP SDK's own stdio read buffer (`STDIO_DEFAULT_MAX_BUFFER_SIZE`).
 * A longer line never reached a tool before this bound either: the SDK closes its transport on
 * one. None of Reseal's own bounds on the tools' arguments is tighter: the largest sealable write
 * is 350,000 bytes (the guard's `MAX_BODY_BYTES`), about 1 MiB with every character `\u`-escaped,
 * while an `env` argument has only the snapshot's key limit (a recall with `triage: false` puts it
 * on no event), so a tighter bound would refuse requests that are served today.
 */
export const MAX_MCP_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/** The JSON-RPC 2.0 answer to a line that is not JSON: no id can be read from it, so `id` is `null`. */
const PARSE_ERROR_ANSWER = { jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR_CODE, message: 'Parse error' } };

/** The JSON-RPC 2.0 answer to a line over {@link MAX_MCP_LINE_BYTES}: unread, so no id, `id` `null`. */
const OVER_BOUND_ANSWER = {
  jsonrpc: '2.0',
  id: null,
  error: {
    code: INVALID_REQUEST_CODE,
    message: `Invalid Request: the line is over ${groupedCount(MAX_MCP_LINE_BYTES)} bytes (MAX_MCP_LINE_BYTES, newline included); it was discarded up to its newline, unread`,
  },
};

/** How much of a refused line the log line shows, characters. */
const SHOWN_CHARS = 200;

/**
 * The MCP stdio input with every line the SDK must not read taken out and answered
 * (docs/mcp.md, "Hostile input"; docs/canonical-form.md, "Hostile-input policy:
 * duplicate member names").
 *
 * Lines are cut at most {@link MAX_MCP_LINE_BYTES} long ({@link BoundedLines}), so a host that
 * never sends a newline cannot grow memory without bound: a longer line is answered at once
 * `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,…}}` naming the bound, named on `log`
 * (escaped, its first 200 characters), and discarded up to its newline. Each whole line is then
 * checked by {@link jsonRpcRefusal}: one that repeats a member name, or is nested too deep to
 * check, is not passed on and, when it is a request (it has an `id`), answered with a JSON-RPC
 * error naming each repeated name and its path, or the depth. A line that is not JSON at all,
 * which the SDK drops without a word (the host would wait for an answer forever), is answered
 * `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` (JSON-RPC 2.0,
 * section 5.1) and named on `log`. Every other line (valid JSON, or blank) goes through as
 * received, and the next line is served as before. While `output` is backed up (a host that does
 * not read its answers), no more input is read, so answers cannot pile up in memory either.
 *
 * @param input - the host's messages, newline-delimited (MCP stdio transport)
 * @param output - where the server writes its messages (the same stream the transport writes to)
 * @param log - where a refused line is named, never `output` (default: standard error)
 * @returns the stream to hand the `StdioServerTransport` as its input
 */
export function strictJsonLines(
  input: NodeJS.ReadableStream,
  output: Writable,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Transform {
  const shown = (text: string) =>
    escapedText(text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}… (${text.length} characters)` : text);
  /** Whether `line` is answered here (and not passed on). */
  const answer = (line: BoundedLine): boolean => {
    if (line.kind === 'OVER_BOUND') {
      log(
        `reseal mcp: a line over ${groupedCount(MAX_MCP_LINE_BYTES)} bytes was answered Invalid Request (${INVALID_REQUEST_CODE}) and discarded: ${escapedText(line.head.slice(0, SHOWN_CHARS))}…`,
      );
      output.write(`${JSON.stringify(OVER_BOUND_ANSWER)}\n`);
      return true;
    }
    const text = line.bytes.toString('utf8').replace(/\r?\n$/, '');
    const refusal = jsonRpcRefusal(text);
    if (refusal === null) return false;
    if (refusal.kind === 'PARSE_ERROR') {
      log(`reseal mcp: a line that is not JSON was answered Parse error (${PARSE_ERROR_CODE}): ${shown(text)}`);
      output.write(`${JSON.stringify(PARSE_ERROR_ANSWER)}\n`);
    } else if (refusal.id !== undefined) output.write(`${JSON.stringify(refusal.answer)}\n`);
    return true;
  };
  const lines = new BoundedLines(MAX_MCP_LINE_BYTES);
  const filter = new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      const serve = () => {
        for (const line of lines.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk)) {
          if (!answer(line) && line.kind === 'LINE') this.push(line.bytes);
        }
        done();
      };
      // The server's answers (this filter's and the SDK's) wait in `output` while the host does
      // not read them: read on only once they have drained (or `output` is gone: nothing waits).
      if (!output.writableNeedDrain) serve();
      else {
        const resume = () => {
          for (const event of ['drain', 'close', 'error']) output.off(event, resume);
          serve();
        };
        for (const event of ['drain', 'close', 'error']) output.once(event, resume);
      }
    },
    flush(done) {
      for (const line of lines.end()) if (!answer(line) && line.kind === 'LINE') this.push(line.bytes);
      done();
    },
  });
  input.pipe(filter);
  return filter;
}
