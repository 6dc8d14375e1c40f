import { Transform, type Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { parseStrictJson } from '../shared/canonical/strict-json';
import { StrictJsonError, StrictJsonFailure } from '../shared/canonical/strict-json-error';
import { escapedText } from '../shared/schemas/escaped-text';

/** JSON-RPC 2.0 "Invalid Request": the answer to a message that repeats a member name, or is nested too deep to tell. */
export const INVALID_REQUEST_CODE = -32600;

/** JSON-RPC 2.0 "Parse error": the answer to a line that is not JSON. */
export const PARSE_ERROR_CODE = -32700;

/** The JSON-RPC 2.0 answer to a line that is not JSON: no id can be read from it, so `id` is `null`. */
const PARSE_ERROR_ANSWER = { jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR_CODE, message: 'Parse error' } };

/** How much of a line that is not JSON the log line shows, characters. */
const SHOWN_CHARS = 200;

/**
 * The MCP stdio input with every JSON-RPC message that repeats a member name taken out and
 * answered (docs/canonical-form.md, "Hostile-input policy: duplicate member names"; docs/mcp.md).
 *
 * The MCP SDK parses each line with `JSON.parse`, which keeps a repeated name's last value, so a
 * tool call whose `env` names `REGION` twice would be recalled against one of the two without a
 * word. This is the last place the raw text is visible: each complete line is read with
 * `parseStrictJson` first; one that repeats a name, or is nested deeper than it checks
 * (`TOO_DEEP`: `JSON.parse` would take it with its repeats unseen), is not passed on, and when it
 * is a request (it has an `id`) a JSON-RPC error naming each repeated name and its path, or the
 * depth, is written to `output`. A line that is not JSON at all, which the SDK drops without a word (its read buffer
 * skips it, and the host would wait for an answer forever), is not passed on either: it is
 * answered `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` (JSON-RPC
 * 2.0, section 5.1) and named on `log`, escaped, in one line. Every other line (valid JSON, or
 * blank) goes through as is, and the next line is served as before. Bytes are decoded across
 * chunks, so a character split between two reads reaches the SDK whole.
 *
 * @param input - the host's messages, newline-delimited (MCP stdio transport)
 * @param output - where the server writes its messages (the same stream the transport writes to)
 * @param log - where a line that is not JSON is named, never `output` (default: standard error)
 * @returns the stream to hand the `StdioServerTransport` as its input
 */
export function strictJsonLines(
  input: NodeJS.ReadableStream,
  output: Writable,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Transform {
  const answer = (line: string): boolean => {
    const refusal = refusalOf(line);
    if (refusal === null) return false;
    if (refusal.kind === 'PARSE_ERROR') {
      const text = line.replace(/\r?\n$/, '');
      const shown = text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}… (${text.length} characters)` : text;
      log(`reseal mcp: a line that is not JSON was answered Parse error (${PARSE_ERROR_CODE}): ${escapedText(shown)}`);
      output.write(`${JSON.stringify(PARSE_ERROR_ANSWER)}\n`);
    } else if (refusal.id !== undefined) output.write(`${JSON.stringify(refusal.answer)}\n`);
    return true;
  };
  let pending = '';
  const decoder = new StringDecoder('utf8');
  const filter = new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      pending += typeof chunk === 'string' ? chunk : decoder.write(chunk);
      let end = pending.indexOf('\n');
      while (end !== -1) {
        const line = pending.slice(0, end + 1);
        pending = pending.slice(end + 1);
        if (!answer(line)) this.push(line);
        end = pending.indexOf('\n');
      }
      done();
    },
    flush(done) {
      pending += decoder.end();
      if (pending.length > 0 && !answer(pending)) this.push(pending);
      done();
    },
  });
  input.pipe(filter);
  return filter;
}

/** Whether `text` is not JSON to `JSON.parse` either (what the SDK reads with): only then is it refused as such. */
function notJson(text: string): boolean {
  try {
    JSON.parse(text);
    return false;
  } catch {
    return true;
  }
}

/**
 * What a line is refused as: not JSON (`PARSE_ERROR`), or a message that repeats a member name or
 * is nested too deep to check (`UNCHECKED_NAMES`, with its id and the error answer); `null` when
 * it is passed on (a blank line too, which the SDK skips).
 */
function refusalOf(
  line: string,
): { kind: 'PARSE_ERROR' } | { kind: 'UNCHECKED_NAMES'; id: unknown; answer: unknown } | null {
  const text = line.replace(/\r?\n$/, '');
  if (text.trim() === '') return null;
  try {
    parseStrictJson(text, 'MCP message');
    return null;
  } catch (error) {
    if (!(error instanceof StrictJsonError)) return null;
    if (error.failure === StrictJsonFailure.SYNTAX) return notJson(text) ? { kind: 'PARSE_ERROR' } : null;
    // Too deep to check: JSON.parse (the SDK's reader) would take it, a repeated name unseen.
    if (error.failure === StrictJsonFailure.TOO_DEEP && notJson(text)) return { kind: 'PARSE_ERROR' };
    const { id } = JSON.parse(line) as { id?: unknown };
    const where = error.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    return {
      kind: 'UNCHECKED_NAMES',
      id,
      answer: {
        jsonrpc: '2.0',
        id: typeof id === 'string' || typeof id === 'number' ? id : null,
        error: { code: INVALID_REQUEST_CODE, message: `Invalid Request: ${where}` },
      },
    };
  }
}
