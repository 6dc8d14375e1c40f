import { type InputIssue, InvalidInputError } from '../errors';

/** Why `parseStrictJson` (shared/canonical/strict-json.ts) refused a text. */
export const StrictJsonFailure = {
  /** Not JSON at all (RFC 8259 grammar), incl. a raw control character in a string. */
  SYNTAX: 'SYNTAX',
  /** Valid JSON, but an object repeats a member name (I-JSON RFC 7493 §2.3). */
  DUPLICATE_KEY: 'DUPLICATE_KEY',
  /** Valid JSON nested deeper than `MAX_PARSE_DEPTH` (or than the AST parser's stack allows). */
  TOO_DEEP: 'TOO_DEEP',
} as const;
/** One of {@link StrictJsonFailure}. */
export type StrictJsonFailure = (typeof StrictJsonFailure)[keyof typeof StrictJsonFailure];

/**
 * A JSON text refused by `parseStrictJson`. An {@link InvalidInputError}, so callers that
 * only know "invalid input" need no new branch; `failure` tells syntax errors apart from
 * duplicate names and excessive nesting.
 */
export class StrictJsonError extends InvalidInputError {
  readonly failure: StrictJsonFailure;
  constructor(what: string, failure: StrictJsonFailure, issues: readonly InputIssue[], options?: ErrorOptions) {
    super(what, issues, options);
    this.name = 'StrictJsonError';
    this.failure = failure;
  }
}
