import { hash } from 'node:crypto';
import { z } from 'zod';
import { canonicalString } from '../canonical/canonical-json';
import type { HexDigest } from '../canonical/digest';
import { HashDomain } from '../canonical/hash-domain';
import { MapKey } from '../schemas/map-key';
import { parseInput } from '../schemas/parse';
import { wellFormedString } from '../schemas/well-formed-string';

/**
 * Hash of one environment key with its value (one `baselineKeyHashes` entry).
 *
 * `SHA-256("reseal/v1/env-key" || 0x00 || JCS({ v: 1, key, value }))`, 64 lowercase hex. The key
 * is bound into the hash, so two keys' hashes cannot be swapped to pass off one value as another.
 *
 * @param key - environment key: 1–512 UTF-16 units, well-formed, no control characters, not `__proto__`
 * @param value - its value, a well-formed string (≤ 65,536 UTF-16 units)
 * @throws {InvalidInputError} naming `key` or `value` when either is malformed
 * @example envKeyHash('ARCH', 'arm64') // → 64 hex chars
 */
export function envKeyHash(key: string, value: string): HexDigest {
  const input = parseInput(EnvKeyInput, { key, value }, 'environment key');
  return envKeyHashUnchecked(input.key, input.value);
}

const EnvKeyInput = z.strictObject({
  key: MapKey.refine((k) => k !== '__proto__', { message: 'key "__proto__" is reserved and refused' }),
  value: wellFormedString(65_536),
});

const ENV_KEY_PREFIX = `${HashDomain.ENV_KEY}\0{"key":`;

/**
 * {@link envKeyHash} for a key and value already validated (hot path of triage). The canonical
 * text of `{ v: 1, key, value }` is written directly (members sorted: `key` < `v` < `value`),
 * the bytes `canonicalJson` would give, so a key costs one SHA-256 and two string checks.
 */
export function envKeyHashUnchecked(key: string, value: string): HexDigest {
  return hash('sha256', `${ENV_KEY_PREFIX}${canonicalString(key)},"v":1,"value":${canonicalString(value)}}`, 'hex');
}

/**
 * {@link envKeyHashUnchecked} of a key and value that need no escape in JSON
 * ({@link isPlainAsciiMapKey}, `isPlainAsciiEnvValue`): written as they are, with no test for
 * escapes (the caller's check of each was that test).
 */
export function envKeyHashOfPlainText(key: string, value: string): HexDigest {
  return hash('sha256', `${ENV_KEY_PREFIX}"${key}","v":1,"value":"${value}"}`, 'hex');
}
