import { StaleWriteError } from '../errors';
import { parseInput } from '../schemas/parse';
import { WriteVerdictSchema } from './verdict';

/**
 * Fail-closed enforcement (docs/guard.md, rule M3): returns when the verdict is safe,
 * throws otherwise.
 *
 * @param verdict - a {@link WriteVerdict}, validated again (a verdict whose `isSafe`
 *   contradicts its lists is refused as malformed)
 * @throws {StaleWriteError} listing the rejected variable names and violated fields (sorted, unique)
 * @throws {InvalidInputError} when `verdict` is not a well-formed WriteVerdict
 */
export function assertWriteSafe(verdict: unknown): void {
  const parsed = parseInput(WriteVerdictSchema, verdict, 'write verdict');
  if (parsed.isSafe) return;
  const names = [...new Set(parsed.rejectedVariables.map((r) => r.name))].sort();
  const fields = [...new Set(parsed.requestViolations.map((v) => v.field))].sort();
  throw new StaleWriteError(names, fields, parsed.verdictDigest);
}
