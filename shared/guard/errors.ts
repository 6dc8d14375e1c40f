import { ResealError } from '../errors';

/**
 * A write the stale-state guard judged unsafe was about to proceed (seed 004, fail-closed
 * `assert_write_safe`). Carries the rejected variable names and violated request fields,
 * sorted and unique, and the verdict digest, so callers branch on fields, not on the message.
 */
export class StaleWriteError extends ResealError {
  /** Names of the rejected variables, sorted, unique. */
  readonly rejectedVariables: readonly string[];
  /** Dotted fields of the request-level violations, sorted, unique. */
  readonly violatedFields: readonly string[];
  /** Digest of the verdict that refused the write. */
  readonly verdictDigest: string;
  constructor(
    rejectedVariables: readonly string[],
    violatedFields: readonly string[],
    verdictDigest: string,
    options?: ErrorOptions,
  ) {
    const parts: string[] = [];
    if (rejectedVariables.length > 0) {
      parts.push(`stale variables ${JSON.stringify(rejectedVariables)} lack fresh verification`);
    }
    if (violatedFields.length > 0) parts.push(`request fields ${JSON.stringify(violatedFields)} are violated`);
    super(`residual write rejected: ${parts.join('; ')} (verdict ${verdictDigest})`, options);
    this.name = 'StaleWriteError';
    this.rejectedVariables = rejectedVariables;
    this.violatedFields = violatedFields;
    this.verdictDigest = verdictDigest;
  }
}
