/**
 * Domain errors of the Reseal core.
 *
 * Every error sets `name` to a string literal (so it survives minified bundles) and accepts
 * `ErrorOptions` so an underlying `cause` is kept. Outcomes the seeds name (verdicts such as
 * `UNVERIFIED_INHERITED`, `HASH_MISMATCH`, `PARTIAL_REPROBE_REQUIRED`) are return values, never
 * errors: an error means the input could not be evaluated at all.
 */

/** Base class of every error the Reseal core throws. */
export class ResealError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ResealError';
  }
}

/**
 * Shows a path as is when it is printable ASCII, else as a JSON string literal with every
 * character outside printable ASCII `\u`-escaped, so hostile keys (lone surrogates, control or
 * bidi characters) stay visible and cannot rewrite a terminal line.
 */
export function printable(path: string): string {
  if (/^[\x20-\x7e]*$/.test(path)) return path;
  return JSON.stringify(path).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One problem found in an input, located by its path (e.g. `variablesUsed.2.receipt.probedAt`). */
export interface InputIssue {
  /** Dotted path of the offending field; `""` for the input as a whole. */
  readonly path: string;
  /** Human-readable explanation. */
  readonly message: string;
}

/**
 * An input failed validation: a malformed request, manifest, record or environment.
 *
 * `issues` lists every problem found (at least one), each naming its field. Thrown by every
 * public core function before it evaluates anything, so malformed input never yields a verdict.
 */
export class InvalidInputError extends ResealError {
  readonly issues: readonly InputIssue[];
  constructor(what: string, issues: readonly InputIssue[], options?: ErrorOptions) {
    const first = issues[0];
    const where = first ? ` at ${printable(first.path || '<root>')}: ${first.message}` : '';
    const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : '';
    super(`invalid ${what}${where}${more}`, options);
    this.name = 'InvalidInputError';
    this.issues = issues;
  }
}

/**
 * A value cannot be put in RFC 8785 canonical form without losing information: `NaN`,
 * `±Infinity`, an integer beyond ±(2^53 − 1), a lone UTF-16 surrogate, `undefined`, a function,
 * a `bigint`, a symbol, or an object that is not a plain JSON object or array.
 */
export class CanonicalizationError extends ResealError {
  /** JSON-pointer-like path of the offending value (`/a/0/b`); `""` for the root. */
  readonly path: string;
  constructor(path: string, reason: string, options?: ErrorOptions) {
    super(`cannot canonicalize value at ${path || '<root>'}: ${reason}`, options);
    this.name = 'CanonicalizationError';
    this.path = path;
  }
}

/** A canonical MAC message (record header) exceeds the 4,096-byte KMS GenerateMac limit. */
export class HeaderTooLargeError extends ResealError {
  readonly headerBytes: number;
  constructor(headerBytes: number, options?: ErrorOptions) {
    super(`canonical record header is ${headerBytes} bytes; the MAC limit is 4096`, options);
    this.name = 'HeaderTooLargeError';
    this.headerBytes = headerBytes;
  }
}

/**
 * `text` with every lone UTF-16 surrogate written as the six characters `\uXXXX`: well-formed, so
 * it survives UTF-8 storage (DynamoDB) and a digest over it stays the same after a round trip,
 * while a hostile key stays recognisable in a refusal.
 */
export function escapeLoneSurrogates(text: string): string {
  return text.replace(
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
