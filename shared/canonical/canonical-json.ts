import canonicalizeJcs from 'canonicalize';
import { CanonicalizationError } from '../errors';

/** A JSON value that RFC 8785 can represent exactly in JavaScript. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const encoder = new TextEncoder();

/**
 * Checks that `value` is exactly representable as RFC 8785 (JCS) JSON and throws otherwise.
 *
 * Refused, each with a {@link CanonicalizationError} naming the path: `NaN`, `±Infinity`,
 * integers beyond ±(2^53 − 1) (they cannot round-trip through JSON numbers here), `-0`'s sign
 * is dropped as RFC 8785 §3.2.2.3 requires (not refused), strings or keys holding a lone UTF-16
 * surrogate (RFC 8785 §3.2.2.2 requires well-formed Unicode), `undefined`, functions, symbols,
 * `bigint`, cycles, nesting deeper than {@link MAX_JSON_DEPTH}, and objects whose prototype is neither `Object.prototype` nor `null` (class
 * instances, `Date`, `Map`). A key spelled `__proto__` is an ordinary own key (as
 * `JSON.parse` produces it) and is kept; Unicode normalization is never applied, so NFC and
 * NFD spellings of one text are different keys.
 *
 * @throws {CanonicalizationError} on the first offending value, depth first
 */
export function assertCanonicalizable(value: unknown): asserts value is JsonValue {
  check(value, '', new Set());
}

/** Maximum nesting depth accepted; deeper input is refused rather than risking the stack. */
export const MAX_JSON_DEPTH = 64;

function check(value: unknown, path: string, ancestors: Set<object>): void {
  switch (typeof value) {
    case 'string':
      if (!value.isWellFormed()) throw new CanonicalizationError(path, 'string holds a lone UTF-16 surrogate');
      return;
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalizationError(path, `number ${value} is not finite`);
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
        throw new CanonicalizationError(path, `integer ${value} is beyond ±(2^53 − 1); send it as a string`);
      }
      return;
    case 'object': {
      if (value === null) return;
      if (ancestors.has(value)) throw new CanonicalizationError(path, 'circular reference');
      if (ancestors.size >= MAX_JSON_DEPTH)
        throw new CanonicalizationError(path, `nested deeper than ${MAX_JSON_DEPTH}`);
      ancestors.add(value);
      if (Array.isArray(value)) {
        value.forEach((item, index) => {
          check(item, `${path}/${index}`, ancestors);
        });
        ancestors.delete(value);
        return;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new CanonicalizationError(path, 'only plain objects and arrays are JSON');
      }
      for (const key of Object.keys(value)) {
        const child = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        if (!key.isWellFormed()) throw new CanonicalizationError(child, 'key holds a lone UTF-16 surrogate');
        check((value as Record<string, unknown>)[key], child, ancestors);
      }
      ancestors.delete(value);
      return;
    }
    default:
      throw new CanonicalizationError(path, `${typeof value} is not a JSON value`);
  }
}

/**
 * RFC 8785 (JSON Canonicalization Scheme) text of `value`.
 *
 * Object members sorted by UTF-16 code units, no insignificant white space, numbers in the
 * ECMAScript shortest round-trip form (RFC 8785 §3.2.2.3), strings with the minimal escapes.
 * Produced by the `canonicalize` library (by an author of RFC 8785), after
 * {@link assertCanonicalizable} has refused what it cannot carry exactly.
 *
 * @throws {CanonicalizationError} when `value` is not exactly representable
 */
export function canonicalJson(value: unknown): string {
  assertCanonicalizable(value);
  const text = canonicalizeJcs(value);
  /* c8 ignore next 3 -- unreachable after assertCanonicalizable; kept as a fail-closed guard */
  if (text === undefined) throw new CanonicalizationError('', 'value has no JSON form');
  return text;
}

/**
 * UTF-8 bytes of {@link canonicalJson}: the exact bytes Reseal hashes and MACs.
 *
 * @throws {CanonicalizationError} when `value` is not exactly representable
 */
export function canonicalBytes(value: unknown): Uint8Array {
  return encoder.encode(canonicalJson(value));
}
