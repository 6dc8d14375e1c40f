import type { z } from 'zod';
import { type InputIssue, InvalidInputError } from '../errors';

/**
 * Parses `input` with `schema`, or throws an {@link InvalidInputError} naming every bad field.
 *
 * @param what - what the input is, for the message (e.g. `"write request"`)
 * @throws {InvalidInputError} listing each zod issue as `{ path, message }`
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new InvalidInputError(what, flattenIssues(result.error.issues, []), { cause: result.error });
}

/** Minimal view of a zod issue: nested `issues` appear on `invalid_key` / `invalid_element`. */
interface IssueLike {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly code?: string;
  readonly issues?: readonly IssueLike[];
}

/**
 * Flattens zod issues into `{ path, message }`, replacing zod's generic "Invalid key in record"
 * by the reason the key failed (e.g. "key holds a control character"), with the key as path.
 */
function flattenIssues(issues: readonly IssueLike[], prefix: readonly PropertyKey[]): InputIssue[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if ((issue.code === 'invalid_key' || issue.code === 'invalid_element') && issue.issues?.length) {
      return flattenIssues(issue.issues, path);
    }
    return [{ path: path.map(String).join('.'), message: issue.message }];
  });
}
