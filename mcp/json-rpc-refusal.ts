import { parseStrictJson } from '../shared/canonical/strict-json';
import { StrictJsonError, StrictJsonFailure } from '../shared/canonical/strict-json-error';

/** JSON-RPC 2.0 "Invalid Request": the answer to a message that repeats a member name, or is nested too deep to tell. */
export const INVALID_REQUEST_CODE = -32600;

/** JSON-RPC 2.0 "Parse error": the answer to a message that is not JSON. */
export const PARSE_ERROR_CODE = -32700;

/** A JSON-RPC 2.0 error response (section 5.1): `id` is `null` when none can be read from the message. */
export interface JsonRpcErrorAnswer {
  readonly jsonrpc: '2.0';
  readonly id: string | number | null;
  readonly error: { readonly code: number; readonly message: string };
}

/**
 * Why a JSON-RPC message text is refused before the MCP SDK reads it: `PARSE_ERROR` (not JSON,
 * to `JSON.parse` either), or `UNCHECKED_NAMES` (JSON that repeats a member name, or is nested
 * deeper than `parseStrictJson` checks), with the message's raw `id` (`undefined` for a
 * notification, which gets no answer on stdio) and the error answer naming each repeated name.
 */
export type JsonRpcRefusal =
  | { readonly kind: 'PARSE_ERROR' }
  | { readonly kind: 'UNCHECKED_NAMES'; readonly id: unknown; readonly answer: JsonRpcErrorAnswer };

/**
 * Whether one JSON-RPC message text (a stdio line without its line ending, or an HTTP body) may
 * reach the MCP SDK (docs/mcp.md; docs/canonical-form.md, "Hostile-input policy: duplicate member
 * names"). The SDK reads with `JSON.parse`, which keeps a repeated name's last value, so a tool
 * call whose `env` names `REGION` twice would be served with one of the two without a word: the
 * text is read with `parseStrictJson` first. The one check both MCP front doors apply (`reseal
 * mcp` and `reseal mcp --remote` through `strictJsonLines`, the remote MCP function through
 * `createMcpHttpHandler`), so they refuse the same messages.
 *
 * @param text - the message as received (UTF-8 decoded)
 * @returns the refusal, or `null` when the text is passed on (a blank text too: the stdio SDK
 *   skips it, and the HTTP SDK answers an empty body itself)
 */
export function jsonRpcRefusal(text: string): JsonRpcRefusal | null {
  if (text.trim() === '') return null;
  try {
    parseStrictJson(text, 'MCP message');
    return null;
  } catch (error) {
    if (!(error instanceof StrictJsonError)) return null;
    if (error.failure === StrictJsonFailure.SYNTAX) return notJson(text) ? { kind: 'PARSE_ERROR' } : null;
    // Too deep to check: JSON.parse (the SDK's reader) would take it, a repeated name unseen.
    if (error.failure === StrictJsonFailure.TOO_DEEP && notJson(text)) return { kind: 'PARSE_ERROR' };
    const { id } = JSON.parse(text) as { id?: unknown };
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

/** Whether `text` is not JSON to `JSON.parse` either (what the SDK reads with): only then is it refused as such. */
function notJson(text: string): boolean {
  try {
    JSON.parse(text);
    return false;
  } catch {
    return true;
  }
}
