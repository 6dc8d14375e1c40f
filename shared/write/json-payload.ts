import { z } from 'zod';
import { canonicalJsonNotingReservedKey, type JsonValue } from '../canonical/canonical-json';
import { CanonicalizationError } from '../errors';
import { RESERVED_KEY } from '../schemas/safe-record';

/** Largest payload, in bytes of its RFC 8785 canonical UTF-8 form (256 KiB). */
export const MAX_PAYLOAD_BYTES = 262_144;

/** Splits a JSON-pointer-like path (`/a/0/b`, `~1` and `~0` escaped) into zod path segments. */
function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Path of the first `__proto__` own key in an (acyclic, depth-bounded) JSON value, or null. */
function findReservedKey(value: unknown, path: string[]): string[] | null {
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findReservedKey(item, [...path, String(index)]);
      if (found) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    if (key === RESERVED_KEY) return [...path, key];
    const found = findReservedKey(item, [...path, key]);
    if (found) return found;
  }
  return null;
}

/**
 * A residual's payload: any JSON value RFC 8785 can carry exactly (see `assertCanonicalizable`),
 * with no `__proto__` key at any depth (the project's hostile-key policy: such a key does not
 * survive common JSON and DynamoDB libraries, so the payload hash would not survive a round
 * trip), at most {@link MAX_PAYLOAD_BYTES} canonical bytes.
 */
export const JsonPayloadSchema = z.custom<JsonValue>().superRefine((value, ctx) => {
  const checked = checkPayload(value);
  if ('issue' in checked) ctx.addIssue({ code: 'custom', ...checked.issue });
});

/** A payload {@link checkPayload} accepted, with its RFC 8785 text (what `payloadHash` hashes). */
export interface CheckedPayload {
  readonly value: JsonValue;
  readonly canonicalText: string;
}

/**
 * The checks of {@link JsonPayloadSchema} in one canonicalization pass: the value is
 * canonicalized once, which checks it, measures it and yields the text the payload hash is
 * taken of, so a caller that seals or verifies it never serializes it again. A `__proto__` key
 * is noted during the pass and located afterwards (rare), so the issue and its path are the
 * ones the schema always reported.
 *
 * @returns the payload with its canonical text, or the issue the schema reports (message and path)
 */
export function checkPayload(value: unknown): CheckedPayload | { issue: { message: string; path: string[] } } {
  if (value === undefined)
    return { issue: { message: 'payload is required (any JSON value, null included)', path: [] } };
  let written: { text: string; reservedKey: boolean };
  try {
    written = canonicalJsonNotingReservedKey(value);
  } catch (error) {
    if (!(error instanceof CanonicalizationError)) throw error;
    return { issue: { message: error.message, path: pointerSegments(error.path) } };
  }
  const reserved = written.reservedKey ? findReservedKey(value, []) : null;
  if (reserved) return { issue: { message: `key "${RESERVED_KEY}" is reserved and refused`, path: reserved } };
  // UTF-8 is at most 3 bytes per UTF-16 unit (a surrogate pair is 4 bytes for 2 units).
  const { text } = written;
  const size = text.length * 3 <= MAX_PAYLOAD_BYTES ? 0 : Buffer.byteLength(text, 'utf8');
  if (size > MAX_PAYLOAD_BYTES) {
    return { issue: { message: `payload is ${size} canonical bytes; the limit is ${MAX_PAYLOAD_BYTES}`, path: [] } };
  }
  return { value: value as JsonValue, canonicalText: text };
}
