import type { z } from 'zod';
import { InvalidInputError } from '../errors';

/**
 * Parses `input` with `schema`, or throws an {@link InvalidInputError} naming every bad field.
 *
 * @param what - what the input is, for the message (e.g. `"write request"`)
 * @throws {InvalidInputError} listing each zod issue as `{ path, message }`
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new InvalidInputError(
    what,
    result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
    { cause: result.error },
  );
}
