import { CanonicalizationError } from '../errors';

/** A JSON value that RFC 8785 can represent exactly in JavaScript. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Maximum nesting depth accepted; deeper input is refused rather than risking the stack. */
export const MAX_JSON_DEPTH = 64;

const encoder = new TextEncoder();

/**
 * RFC 8785 (JSON Canonicalization Scheme) text of `value`, checked and written in one pass.
 *
 * - Objects (RFC 8785 §3.2.3): members sorted by UTF-16 code units (the default
 *   `Array.prototype.sort` order), no white space.
 * - Strings (§3.2.2.2): for well-formed strings the bytes are exactly `JSON.stringify`'s output
 *   (`\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, other U+0000–U+001F as lowercase `\u00xx`,
 *   nothing else escaped), so a string with none of those characters is quoted as is.
 * - Numbers (§3.2.2.3): ECMAScript Number-to-String, which is what `String(n)` gives for a
 *   finite number; `-0` is written `0`.
 *
 * Refused, each with a {@link CanonicalizationError} naming the JSON-pointer-like path (`/a/0/b`,
 * `~` → `~0`, `/` → `~1`): `NaN` and `±Infinity`; integers beyond ±(2^53 − 1) (not the integer a
 * sender meant, only the nearest double); strings or keys holding a lone UTF-16 surrogate (no
 * UTF-8 form); `undefined`, functions, symbols, `bigint`; holes in arrays; cycles; nesting deeper
 * than {@link MAX_JSON_DEPTH}; objects whose prototype is neither `Object.prototype` nor `null`
 * (class instances, `Date`, `Map`). Nothing is coerced: no `toJSON`, no dropped members. A key
 * spelled `__proto__` is an ordinary own key (as `JSON.parse` makes it); Unicode is never
 * normalized. The text and its check come from one pass that reads each value once, so a getter
 * cannot show the check one value and the text another (a lean pass writes the common case; at
 * the first doubt a careful pass starts over, reading again, and decides: a getter may then be
 * read twice, and the careful pass's reads decide).
 *
 * @throws {CanonicalizationError} on the first offending value, depth first, members in
 *   canonical (sorted) order
 */
export function canonicalJson(value: unknown): string {
  const text = writePlain(value);
  return text ?? write(value, { ancestors: [], trail: [], depth: 0, reservedKey: false });
}

/**
 * {@link canonicalJson}, also telling whether any object in `value` has an own key spelled
 * `__proto__` (which the text then carries as an ordinary key): the one pass a payload check
 * needs to refuse such keys (the hostile-key policy) without walking the value a second time.
 *
 * @throws {CanonicalizationError} as {@link canonicalJson}
 */
export function canonicalJsonNotingReservedKey(value: unknown): { text: string; reservedKey: boolean } {
  const plain = writePlain(value);
  if (plain !== null) return { text: plain, reservedKey: false };
  const walk: Walk = { ancestors: [], trail: [], depth: 0, reservedKey: false };
  const text = write(value, walk);
  return { text, reservedKey: walk.reservedKey };
}

/**
 * RFC 8785 text of a JSON string (§3.2.2.2) for a string known to be well-formed (validated):
 * `JSON.stringify`'s bytes, which are exactly the RFC's for such strings.
 */
export function canonicalString(text: string): string {
  return quote(text);
}

/**
 * RFC 8785 text of a map of strings whose keys and values are known to be well-formed (a
 * validated environment, key-hash map or claim list): members in UTF-16 code-unit order, no
 * white space. The same bytes as {@link canonicalJson} of the map, without its generic walk
 * (the hot path of triage's composite seal and of a large manifest's digest).
 */
export function canonicalStringMap(map: Readonly<Record<string, string>>): string {
  const keys = sortedKeys(map);
  let text = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    text += `${i === 0 ? '' : ','}${quote(key)}:${quote(map[key] as string)}`;
  }
  return `${text}}`;
}

/**
 * UTF-8 bytes of {@link canonicalJson}: the exact bytes Reseal hashes and MACs (a fresh array).
 *
 * @throws {CanonicalizationError} when `value` is not exactly representable
 */
export function canonicalBytes(value: unknown): Uint8Array {
  return encoder.encode(canonicalJson(value));
}

/**
 * The common case first: a value with nothing to refuse and no `__proto__` key is written by a
 * lean pass ({@link writePlainValue}) that keeps no path. At the first value it would have to
 * refuse, or anything unusual, it gives up (`null`), and the careful pass ({@link write}) starts
 * over and decides, with the error and path it always gave. The text returned is the work of
 * one pass, which read each value in it once; a getter is read again by the careful pass when
 * the lean one gave up (values from `JSON.parse` or a parsed item have no getters).
 */
function writePlain(value: unknown): string | null {
  try {
    return writePlainValue(value, [], 0);
  } catch (error) {
    if (error === GIVE_UP) return null;
    throw error;
  }
}

/** Thrown inside {@link writePlainValue} to hand the value to the careful pass (never escapes). */
const GIVE_UP: unique symbol = Symbol('canonical-json: take the careful pass');

/**
 * Characters after which a string is not written as it is: those JSON escapes, and any UTF-16
 * surrogate (a pair is fine, a lone one is refused; the test tells them apart only when one is seen).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters JSON escapes
const NEEDS_ATTENTION = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as a JSON string literal, giving up on a lone surrogate. */
function quotePlain(text: string): string {
  if (!NEEDS_ATTENTION.test(text)) return `"${text}"`;
  if (!text.isWellFormed()) throw GIVE_UP;
  return JSON.stringify(text);
}

/**
 * The lean pass: the same text as {@link write} for every value it does not give up on. It gives
 * up on every value `write` refuses (a cycle included, through `ancestors`, the containers open
 * at each depth) and on a `__proto__` key, so it never refuses one itself.
 */
function writePlainValue(value: unknown, ancestors: object[], depth: number): string {
  switch (typeof value) {
    case 'string':
      return quotePlain(value);
    case 'number':
      if (Number.isSafeInteger(value) || (Number.isFinite(value) && !Number.isInteger(value))) return String(value);
      throw GIVE_UP;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      throw GIVE_UP;
  }
  if (value === null) return 'null';
  if (depth >= MAX_JSON_DEPTH) throw GIVE_UP;
  for (let i = 0; i < depth; i++) if (ancestors[i] === value) throw GIVE_UP;
  ancestors[depth] = value;
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item === undefined) throw GIVE_UP; // a hole, or undefined: the careful pass tells which
      text += i === 0 ? writePlainValue(item, ancestors, depth + 1) : `,${writePlainValue(item, ancestors, depth + 1)}`;
    }
    return `${text}]`;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw GIVE_UP;
  const keys = sortedKeys(value);
  let text = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (key === '__proto__') throw GIVE_UP;
    const member = `${quotePlain(key)}:${writePlainValue((value as Record<string, unknown>)[key], ancestors, depth + 1)}`;
    text += i === 0 ? member : `,${member}`;
  }
  return `${text}}`;
}

/** State of one serialization: the open containers and the path to them, indexed by depth. */
interface Walk {
  /** `ancestors[d]` is the container open at depth `d` (for cycle detection). */
  readonly ancestors: object[];
  /** `trail[d]` is the key or index taken from `ancestors[d]` (for error paths, built on failure only). */
  readonly trail: (string | number)[];
  /** Number of containers open. */
  depth: number;
  /** Set once an object with an own `__proto__` key was written. */
  reservedKey: boolean;
}

/** Characters `JSON.stringify` escapes in a well-formed string. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

/** A well-formed string as a JSON string literal (RFC 8785 §3.2.2.2). */
function quote(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

function write(value: unknown, walk: Walk): string {
  switch (typeof value) {
    case 'string':
      if (!value.isWellFormed()) throw refusal(walk, 'string holds a lone UTF-16 surrogate');
      return quote(value);
    case 'number':
      if (Number.isSafeInteger(value)) return String(value);
      if (!Number.isFinite(value)) throw refusal(walk, `number ${value} is not finite`);
      if (Number.isInteger(value)) {
        throw refusal(walk, `integer ${value} is beyond ±(2^53 − 1); send it as a string`);
      }
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return value === null ? 'null' : writeContainer(value, walk);
    default:
      throw refusal(walk, `${typeof value} is not a JSON value`);
  }
}

function writeContainer(value: object, walk: Walk): string {
  const { ancestors, trail, depth } = walk;
  for (let i = 0; i < depth; i++) if (ancestors[i] === value) throw refusal(walk, 'circular reference');
  if (depth >= MAX_JSON_DEPTH) throw refusal(walk, `nested deeper than ${MAX_JSON_DEPTH}`);
  let text: string;
  if (Array.isArray(value)) {
    ancestors[depth] = value;
    walk.depth = depth + 1;
    text = '[';
    for (let i = 0; i < value.length; i++) {
      trail[depth] = i;
      const item: unknown = value[i];
      if (item === undefined && !(i in value)) throw refusal(walk, 'array hole is not a JSON value');
      text += i === 0 ? write(item, walk) : `,${write(item, walk)}`;
    }
    text += ']';
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw refusal(walk, 'only plain objects and arrays are JSON');
    }
    ancestors[depth] = value;
    walk.depth = depth + 1;
    const keys = sortedKeys(value);
    text = '{';
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      trail[depth] = key;
      if (!key.isWellFormed()) throw refusal(walk, 'key holds a lone UTF-16 surrogate');
      if (key === '__proto__') walk.reservedKey = true;
      const member = `${quote(key)}:${write((value as Record<string, unknown>)[key], walk)}`;
      text += i === 0 ? member : `,${member}`;
    }
    text += '}';
  }
  walk.depth = depth;
  return text;
}

/** Up to this many members, an insertion sort beats `Array.prototype.sort`'s set-up (measured on Node 20). */
const INSERTION_SORT_MAX = 16;

/**
 * Own enumerable keys in UTF-16 code-unit order (`<` on strings, the order of the default
 * `Array.prototype.sort`). Small objects are insertion-sorted; larger ones already in order
 * (manifests, maps built sorted) skip the sort.
 */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  if (keys.length <= INSERTION_SORT_MAX) {
    for (let i = 1; i < keys.length; i++) {
      const key = keys[i] as string;
      let j = i - 1;
      for (; j >= 0 && (keys[j] as string) > key; j--) keys[j + 1] = keys[j] as string;
      keys[j + 1] = key;
    }
    return keys;
  }
  for (let i = 1; i < keys.length; i++) if (!((keys[i - 1] as string) < (keys[i] as string))) return keys.sort();
  return keys;
}

/** The error for the value at the walk's current position. */
function refusal(walk: Walk, reason: string): CanonicalizationError {
  let path = '';
  for (let i = 0; i < walk.depth; i++) {
    const segment = walk.trail[i];
    path += `/${typeof segment === 'number' ? segment : (segment as string).replaceAll('~', '~0').replaceAll('/', '~1')}`;
  }
  return new CanonicalizationError(path, reason);
}
