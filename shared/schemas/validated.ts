/**
 * Values that crossed a trust boundary: validated once, then passed inward by type.
 *
 * The core keeps a checked entry point for every untrusted input (`isolateDelta(unknown, …)`,
 * `sealRecord`, `verifyChain`) and offers an entry point for values it has already validated
 * (`isolateValidatedDelta`, `sealValidated`), which does not validate again. {@link Validated}
 * makes the difference visible to the compiler: only a parser (`parseManifest`,
 * `parseEnvSnapshot`, `parseSealInput`, …) returns one, so an unvalidated value cannot reach an
 * unchecked path without a cast a reviewer sees.
 *
 * A validated value is the parser's output and is treated as immutable (the type is deeply
 * `readonly` where it matters): mutating one after validation voids the guarantee.
 */

declare const validatedBrand: unique symbol;

/** `T` as a parser returned it: valid by its schema (docs/canonical-form.md, "Hostile-string policy"). */
export type Validated<T> = T & { readonly [validatedBrand]: true };

/**
 * Marks `value` as validated. For parsers only: call it on a value that has just passed the
 * schema of `T` (or a check proven to accept nothing the schema refuses).
 */
export function markValidated<T>(value: T): Validated<T> {
  return value as Validated<T>;
}
