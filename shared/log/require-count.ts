import { InvalidInputError } from '../errors';
import { isCount } from './is-count';

/**
 * Argument check of the RFC 9162 §2.1 proof builders and compact ranges, which throw
 * {@link InvalidInputError} on invalid arguments (the verifiers answer `false` instead).
 */

/** @throws {InvalidInputError} naming `path` unless `n` is a safe non-negative integer */
export function requireCount(what: string, path: string, n: unknown): asserts n is number {
  if (!isCount(n)) {
    throw new InvalidInputError(what, [{ path, message: `expected a safe non-negative integer, got ${String(n)}` }]);
  }
}
