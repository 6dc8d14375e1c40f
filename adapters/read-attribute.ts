import { convertToNative } from '@aws-sdk/util-dynamodb';
import type { z } from 'zod';
import { parseStrictJson } from '../shared/canonical/strict-json';
import { StrictJsonError } from '../shared/canonical/strict-json-error';
import type { Item } from './item';

/**
 * Reading an attribute of a lineage-table item (docs/pipeline.md, "Data layout"). The table is not
 * trusted (the table writer of the threat model can put any attribute of any type). Each attribute
 * is read as an own property of the item and converted by the SDK (`convertToNative`,
 * `@aws-sdk/util-dynamodb`), then kept only when it has the type the field needs: a string field
 * holding a number, a set, a map or a binary reads as absent, and a number field holding a string
 * reads as absent: junk is refused, never coerced. Numbers convert with `Number`, as DynamoDB
 * numbers always did here (no BigInt, no throw on an imprecise number: the verifier judges the
 * value). Stored JSON is read with the strict parser ({@link parseStrictJson}): text that repeats
 * a member name, like text that does not parse, reads as the field's fallback, never as whichever
 * value a parser kept (the Python reader refuses it the same way; docs/canonical-form.md,
 * "Hostile-input policy: duplicate member names").
 */

/** The native value of attribute `name`, as the SDK converts it; `undefined` when the item lacks it. */
export function readAttribute(item: Item | undefined, name: string): unknown {
  if (!item || !Object.hasOwn(item, name)) return undefined;
  const value = item[name];
  if (value === null || typeof value !== 'object') return undefined;
  try {
    return convertToNative(value, { wrapNumbers: Number });
  } catch {
    return undefined; // an AttributeValue of no type the SDK knows
  }
}

/** String attribute `name`, or `undefined` when absent or of another type. */
export function readString(item: Item | undefined, name: string): string | undefined {
  const value = readAttribute(item, name);
  return typeof value === 'string' ? value : undefined;
}

/** Binary attribute `name`, or `undefined` when absent or of another type. */
export function readBinary(item: Item | undefined, name: string): Uint8Array | undefined {
  const value = readAttribute(item, name);
  return value instanceof Uint8Array ? value : undefined;
}

/** Number attribute `name` (`Number` of its text), or `undefined` when absent or of another type. */
export function readNumber(item: Item | undefined, name: string): number | undefined {
  const value = readAttribute(item, name);
  return typeof value === 'number' ? value : undefined;
}

/**
 * Number attribute `name` when it is a sequence number (a safe integer ≥ 0), else `undefined`: a
 * seq such as `1e100` or `-3` is malformed, never a bound a reader walks towards.
 */
export function readSeq(item: Item | undefined, name: string): number | undefined {
  const value = readNumber(item, name);
  return value !== undefined && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** Marks stored text that is not strict JSON (it does not parse, or it repeats a member name). */
export const NOT_JSON: unique symbol = Symbol('not strict JSON');

/** The strict JSON of stored `text`, or {@link NOT_JSON}. */
export function readStoredJson(text: string): unknown {
  try {
    return parseStrictJson(text, 'stored JSON');
  } catch (error) {
    if (!(error instanceof StrictJsonError)) throw error;
    return NOT_JSON;
  }
}

/** The JSON held by string attribute `name`, or `fallback` when absent, of another type or not strict JSON. */
export function readJson<T>(item: Item, name: string, fallback: T): T {
  const text = readString(item, name);
  if (text === undefined) return fallback;
  const value = readStoredJson(text);
  return value === NOT_JSON ? fallback : (value as T);
}

/**
 * The JSON list or object of attribute `name` read with `schema`: its value, or `fallback` with
 * the reason pushed onto `unreadable` when the attribute is there but does not parse or fit. Junk
 * in a refusal item is named once here, so no formatter ever walks it.
 */
export function readJsonAs<T>(item: Item, name: string, schema: z.ZodType<T>, fallback: T, unreadable: string[]): T {
  if (readAttribute(item, name) === undefined) return fallback;
  const text = readString(item, name);
  const stored = text === undefined ? undefined : readStoredJson(text);
  const parsed = schema.safeParse(stored === NOT_JSON ? undefined : stored);
  if (parsed.success) return parsed.data;
  unreadable.push(name);
  return fallback;
}

/**
 * The hashes attribute `name` holds, hex (tree nodes, a frontier; docs/verifiable-log.md, "Stored
 * state"): binary, 32 bytes a hash, or a JSON array as stored before binary (each reader checks
 * its entries). `null` when malformed: binary not a whole number of hashes, text that is not a list.
 */
export function readHashes(item: Item, name: string): unknown[] | null {
  const bytes = readBinary(item, name);
  if (bytes !== undefined) return bytes.byteLength % 32 === 0 ? hashesOf(bytes) : null;
  const text = readJson<unknown>(item, name, null);
  return Array.isArray(text) ? text : null;
}

/** `bytes` (a whole number of 32-byte hashes) as hex hashes, in order. */
function hashesOf(bytes: Uint8Array): string[] {
  const hashes: string[] = [];
  for (let at = 0; at < bytes.byteLength; at += 32)
    hashes.push(Buffer.from(bytes.subarray(at, at + 32)).toString('hex'));
  return hashes;
}
