import { Transform, type Writable } from 'node:stream';
import { parseStrictJson } from '../shared/canonical/strict-json';
import { StrictJsonError, StrictJsonFailure } from '../shared/canonical/strict-json-error';

/** JSON-RPC 2.0 "Invalid Request": the answer to a message that repeats a member name. */
export const INVALID_REQUEST_CODE = -32600;

/**
 * The MCP stdio input with every JSON-RPC message that repeats a member name taken out and
 * answered (docs/canonical-form.md, "Hostile-input policy: duplicate member names"; docs/mcp.md).
 *
 * The MCP SDK parses each line with `JSON.parse`, which keeps a repeated name's last value, so a
 * tool call whose `env` names `REGION` twice would be recalled against one of the two without a
 * word. This is the last place the raw text is visible: each complete line is read with
 * `parseStrictJson` first; one that repeats a name is not passed on, and when it is a request
 * (it has an `id`) a JSON-RPC error naming each repeated name and its path is written to
 * `output`. Every other line (valid, or invalid JSON the SDK answers itself) goes through as is.
 *
 * @param input - the host's messages, newline-delimited (MCP stdio transport)
 * @param output - where the server writes its messages (the same stream the transport writes to)
 * @returns the stream to hand the `StdioServerTransport` as its input
 */
export function strictJsonLines(input: NodeJS.ReadableStream, output: Writable): Transform {
  let pending = '';
  const filter = new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      pending += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      let end = pending.indexOf('\n');
      while (end !== -1) {
        const line = pending.slice(0, end + 1);
        pending = pending.slice(end + 1);
        const refusal = repeatedNames(line);
        if (refusal === null) this.push(line);
        else if (refusal.id !== undefined) output.write(`${JSON.stringify(refusal.answer)}\n`);
        end = pending.indexOf('\n');
      }
      done();
    },
    flush(done) {
      if (pending.length > 0 && repeatedNames(pending) === null) this.push(pending);
      done();
    },
  });
  input.pipe(filter);
  return filter;
}

/** The error answer for a line that repeats a member name, or `null` when it does not. */
function repeatedNames(line: string): { id: unknown; answer: unknown } | null {
  try {
    parseStrictJson(line.replace(/\r?\n$/, ''), 'MCP message');
    return null;
  } catch (error) {
    if (!(error instanceof StrictJsonError) || error.failure !== StrictJsonFailure.DUPLICATE_KEY) return null;
    const { id } = JSON.parse(line) as { id?: unknown };
    const where = error.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    return {
      id,
      answer: {
        jsonrpc: '2.0',
        id: typeof id === 'string' || typeof id === 'number' ? id : null,
        error: { code: INVALID_REQUEST_CODE, message: `Invalid Request: ${where}` },
      },
    };
  }
}
