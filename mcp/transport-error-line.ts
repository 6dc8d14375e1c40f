import { describeError } from '../shared/describe-error';
import { escapedText } from '../shared/schemas/escaped-text';

/** How much of a transport error's message is shown, characters (the SDK's schema errors run to pages). */
const SHOWN_CHARS = 300;

/**
 * An MCP transport's error (`onerror`: a message the SDK cannot read, JSON but no JSON-RPC
 * message, which it otherwise drops in silence) in one short line for standard error: whitespace
 * runs collapsed, cut to 300 characters, control characters escaped (docs/mcp.md, "Untrusted data").
 */
export function transportErrorLine(error: unknown): string {
  const text = describeError(error).replace(/\s+/g, ' ').trim();
  return escapedText(text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text);
}
