import { hash } from 'node:crypto';
import { canonicalString } from '../canonical/canonical-json';
import type { HexDigest } from '../canonical/digest';
import { hashCanonical } from '../canonical/hash-canonical';
import { FORMAT_VERSION, HashDomain } from '../canonical/hash-domain';
import { hasExactKeys } from '../schemas/has-exact-keys';
import { isPlainObject } from '../schemas/is-plain-record';
import { WireFields } from '../schemas/wire-fields';
import type { SessionVariable } from '../write/session-variable';

/**
 * Digest of a record's `variablesUsed` (the guard's session variables with their freshness
 * receipts, docs/guard.md): `hashCanonical(HashDomain.VARIABLES, { v: 1, variablesUsed })`, i.e.
 * SHA-256 over `"reseal/v1/variables" || 0x00 || RFC 8785 bytes`. Order of the array counts.
 *
 * @param variablesUsed - the variables as stored with the record (not validated here)
 * @returns 64 lowercase hex characters
 * @throws {CanonicalizationError} when the variables are not exactly representable as JSON
 */
export function variablesDigest(variablesUsed: readonly SessionVariable[]): HexDigest {
  if (!Array.isArray(variablesUsed)) return hashCanonical(HashDomain.VARIABLES, { v: FORMAT_VERSION, variablesUsed });
  let text = VARIABLES_PREFIX;
  for (let i = 0; i < variablesUsed.length; i++) {
    const member = plainVariableText(variablesUsed[i]);
    // Anything else (a receipt, a hole, a value to refuse) takes the generic writer, whose error names the path.
    if (member === null) return hashCanonical(HashDomain.VARIABLES, { v: FORMAT_VERSION, variablesUsed });
    text += i === 0 ? member : `,${member}`;
  }
  return hash('sha256', `${text}]}`, 'hex');
}

/** `HashDomain.VARIABLES`, NUL and the canonical text of `{ v: 1, variablesUsed }` up to the list's first member. */
const VARIABLES_PREFIX = `${HashDomain.VARIABLES}\0{"v":${FORMAT_VERSION},"variablesUsed":[`;
const PLAIN_VARIABLE_FIELDS = WireFields.sessionVariable.required;

/**
 * RFC 8785 text of a session variable with no receipt (the common case, one per record), written
 * in sorted member order (`freshness` < `name` < `sourceEpoch` < `value`): the bytes the generic
 * writer gives, without its walk. `null` for anything else.
 */
function plainVariableText(variable: unknown): string | null {
  if (!isPlainObject(variable) || !hasExactKeys(variable, PLAIN_VARIABLE_FIELDS)) return null;
  const { name, value, freshness, sourceEpoch } = variable;
  if (
    typeof name !== 'string' ||
    typeof value !== 'string' ||
    typeof freshness !== 'string' ||
    !Number.isSafeInteger(sourceEpoch) ||
    !name.isWellFormed() ||
    !value.isWellFormed() ||
    !freshness.isWellFormed()
  ) {
    return null;
  }
  return `{"freshness":${canonicalString(freshness)},"name":${canonicalString(name)},"sourceEpoch":${String(sourceEpoch)},"value":${canonicalString(value)}}`;
}
