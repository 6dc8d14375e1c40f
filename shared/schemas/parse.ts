import type { z } from 'zod';
import { type InputIssue, InvalidInputError } from '../errors';
import { clipText } from './clip-text';

/**
 * The most UTF-16 units of one path segment an issue repeats: a map key is at most 512 (`MapKey`),
 * so only a refused key is ever cut, and a 100 MB key costs a line, not 100 MB of error text.
 */
export const MAX_ISSUE_PATH_SEGMENT = 600;

/** An issue path: segments joined by `.`, each clipped to {@link MAX_ISSUE_PATH_SEGMENT}. */
function pathText(path: readonly PropertyKey[]): string {
  // Only an over-long segment is cut (and made well-formed): any other stays exactly as given, so a
  // lone surrogate in a key is still shown escaped where the message is printed.
  return path
    .map(String)
    .map((segment) => (segment.length > MAX_ISSUE_PATH_SEGMENT ? clipText(segment, MAX_ISSUE_PATH_SEGMENT) : segment))
    .join('.');
}

/**
 * Parses `input` with `schema`, or throws an {@link InvalidInputError} naming every bad field.
 *
 * @param what - what the input is, for the message (e.g. `"write request"`)
 * @param options.unknownFieldPerKey - report each unknown field of a strict object as its own
 *   issue at the field's path, `unknown field (not part of the <what>)` (default: zod's one
 *   `Unrecognized keys: …` issue at the object's path, as the core's vectors record it)
 * @throws {InvalidInputError} listing each zod issue as `{ path, message }`
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
  options: { unknownFieldPerKey?: boolean } = {},
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const unknownField = options.unknownFieldPerKey ? `unknown field (not part of the ${what})` : null;
  throw new InvalidInputError(what, flattenIssues(result.error.issues, [], unknownField), { cause: result.error });
}

/** Minimal view of a zod issue: nested `issues` appear on `invalid_key` / `invalid_element`. */
interface IssueLike {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly code?: string;
  readonly issues?: readonly IssueLike[];
  readonly keys?: readonly string[];
}

/**
 * Flattens zod issues into `{ path, message }`, replacing zod's generic "Invalid key in record"
 * by the reason the key failed (e.g. "key holds a control character"), with the key as path, and
 * when `unknownField` is given, zod's `Unrecognized keys: "a", "b"` by one issue per key at its path.
 */
function flattenIssues(
  issues: readonly IssueLike[],
  prefix: readonly PropertyKey[],
  unknownField: string | null,
): InputIssue[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if ((issue.code === 'invalid_key' || issue.code === 'invalid_element') && issue.issues?.length) {
      return flattenIssues(issue.issues, path, unknownField);
    }
    if (unknownField !== null && issue.code === 'unrecognized_keys' && issue.keys?.length) {
      return issue.keys.map((key) => ({ path: pathText([...path, key]), message: unknownField }));
    }
    return [{ path: pathText(path), message: issue.message }];
  });
}
