import { z } from 'zod';
import { FORMAT_VERSION, HashDomain, type HexDigest, hashCanonical } from '../canonical/digest';
import { type InputIssue, InvalidInputError } from '../errors';
import { parseInput } from '../schemas/parse';
import { EnvSnapshot, HexDigest as HexDigestSchema, MapKey, safeRecord, wellFormedString } from '../schemas/primitives';

/** A list of map keys that must be sorted (UTF-16 code-unit order, as RFC 8785) and unique. */
export const SortedUniqueKeys = z.array(MapKey).superRefine((keys, ctx) => {
  for (let i = 1; i < keys.length; i++) {
    const previous = keys[i - 1] as string;
    const current = keys[i] as string;
    if (!(previous < current)) {
      ctx.addIssue({
        code: 'custom',
        path: [i],
        message:
          previous === current
            ? `duplicate key ${JSON.stringify(current)}`
            : `keys must be sorted: ${JSON.stringify(current)} after ${JSON.stringify(previous)}`,
      });
      return;
    }
  }
});

/**
 * Schema of a {@link SealedDependencyManifest} (strict: unknown fields are refused).
 *
 * The four recorded elements of seed 000 ("Recorded Elements" 1–4):
 * - `baselineKeyHashes` (element 1): env key → {@link envKeyHash} at write time.
 * - `structuralKeys` (element 2): keys whose drift invalidates the whole record; sorted, unique.
 * - `claimDependencyMap` (element 3): claim id → its `causal_keys`; each list sorted, unique,
 *   non-empty (a claim that depends on nothing could never be quarantined, so it is refused).
 * - element 4, the fail-closed `unattributed_drift_policy`, is not a field: it is the rule
 *   {@link isolateDelta} applies when `baselineKeyHashes` or `claimDependencyMap` is empty
 *   (a record written without granular data) on a broken seal.
 *
 * `preconditionSeal` is {@link compositeSeal} of `baselineKeyHashes`; for an empty
 * `baselineKeyHashes` it is taken as an opaque seal that cannot be self-checked.
 */
export const SealedDependencyManifestSchema = z.strictObject({
  formatVersion: z.literal(FORMAT_VERSION),
  preconditionSeal: HexDigestSchema,
  baselineKeyHashes: safeRecord(HexDigestSchema),
  structuralKeys: SortedUniqueKeys,
  claimDependencyMap: safeRecord(SortedUniqueKeys.min(1, 'a claim must name at least one causal key')),
});

/**
 * The precondition manifest stored with a sealed record (seed 000, "Recorded Elements").
 * Wire format: camelCase JSON, see {@link SealedDependencyManifestSchema}.
 */
export type SealedDependencyManifest = z.infer<typeof SealedDependencyManifestSchema>;

/**
 * Hash of one environment key with its value (seed 000 `baseline_key_hashes` entry).
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

/** {@link envKeyHash} for a key and value already validated (hot path of triage). */
export function envKeyHashUnchecked(key: string, value: string): HexDigest {
  return hashCanonical(HashDomain.ENV_KEY, { v: 1, key, value });
}

/**
 * The composite `precondition_seal` over every key hash (seed 000, "Recorded Elements" 1).
 *
 * `SHA-256("reseal/v1/precondition-seal" || 0x00 || JCS({ v: 1, baselineKeyHashes }))`. Every key
 * counts, so a key that changed, vanished or appeared changes the seal.
 *
 * @param baselineKeyHashes - key → {@link envKeyHash}
 * @throws {InvalidInputError} naming the field when a key or digest is malformed
 */
export function compositeSeal(baselineKeyHashes: Readonly<Record<string, HexDigest>>): HexDigest {
  const parsed = parseInput(safeRecord(HexDigestSchema), baselineKeyHashes, 'baseline key hashes');
  return compositeSealUnchecked(parsed);
}

/** {@link compositeSeal} for an already validated map. */
export function compositeSealUnchecked(baselineKeyHashes: Readonly<Record<string, HexDigest>>): HexDigest {
  return hashCanonical(HashDomain.COMPOSITE_SEAL, { v: 1, baselineKeyHashes });
}

/**
 * Digest of a whole manifest, named by the record header as `manifestDigest`.
 *
 * `SHA-256("reseal/v1/manifest" || 0x00 || JCS(manifest))`, the manifest exactly as
 * {@link SealedDependencyManifestSchema} parses it (it carries `formatVersion`).
 *
 * @throws {InvalidInputError} when `manifest` does not match the schema
 */
export function manifestDigest(manifest: unknown): HexDigest {
  const parsed = parseInput(SealedDependencyManifestSchema, manifest, 'sealed dependency manifest');
  return hashCanonical(HashDomain.MANIFEST, parsed);
}

/** One claim and its causal keys, the seed's `(claim_id, causal_keys)` pair. */
export interface ClaimDependency {
  readonly claimId: string;
  readonly causalKeys: readonly string[];
}

const CausalKeyList = z.array(MapKey).min(1, 'a claim must name at least one causal key');

const BuildManifestInput = z.strictObject({
  env: EnvSnapshot,
  structuralKeys: z.array(MapKey),
  claimDependencyMap: z.union([
    safeRecord(CausalKeyList),
    z.array(z.strictObject({ claimId: MapKey, causalKeys: CausalKeyList })),
  ]),
});

/** Input of {@link buildManifest}. */
export interface BuildManifestInput {
  /** The environment at write time: key → value. */
  readonly env: Readonly<Record<string, string>>;
  /** Keys whose drift invalidates the whole record (order and repeats do not matter). */
  readonly structuralKeys: readonly string[];
  /**
   * Claim id → causal keys, as a map or as a list of pairs (a list lets repeated claim ids be
   * detected and refused; JSON objects silently keep the last of a repeated key).
   */
  readonly claimDependencyMap: Readonly<Record<string, readonly string[]>> | readonly ClaimDependency[];
}

/**
 * Builds the sealed dependency manifest of a record at write time (seed 000, "Recorded Elements").
 *
 * Hashes every key of `env` with {@link envKeyHash}, seals them with {@link compositeSeal},
 * and stores structural keys and each claim's causal keys sorted and de-duplicated.
 *
 * @throws {InvalidInputError} naming each bad field: a malformed env, key or claim id
 *   (`__proto__`, NFC/NFD collision, lone surrogate, control character), a structural key
 *   absent from `env` (`structuralKeys.<i>`), a causal key absent from `env`
 *   (`claimDependencyMap.<claimId>.<i>`), a repeated claim id, a claim with no causal key.
 * @example
 * buildManifest({ env: { ARCH: 'arm64', HOST: 'h1' }, structuralKeys: ['ARCH'],
 *   claimDependencyMap: { 'claim-1': ['ARCH'] } })
 */
export function buildManifest(input: BuildManifestInput): SealedDependencyManifest {
  const parsed = parseInput(BuildManifestInput, input, 'manifest input');
  const { env } = parsed;
  const issues: InputIssue[] = [];

  parsed.structuralKeys.forEach((key, i) => {
    if (!Object.hasOwn(env, key)) {
      issues.push({ path: `structuralKeys.${i}`, message: `structural key ${JSON.stringify(key)} is not in env` });
    }
  });

  const listForm = Array.isArray(parsed.claimDependencyMap);
  const entries: [string, string[]][] = Array.isArray(parsed.claimDependencyMap)
    ? parsed.claimDependencyMap.map((c) => [c.claimId, c.causalKeys])
    : Object.entries(parsed.claimDependencyMap);
  const seenClaims = new Map<string, string>();
  const claimDependencyMap: Record<string, string[]> = {};
  entries.forEach(([claimId, causalKeys], index) => {
    const at = listForm ? `claimDependencyMap.${index}` : `claimDependencyMap.${claimId}`;
    const folded = claimId.normalize('NFC');
    const previous = seenClaims.get(folded);
    if (previous !== undefined) {
      issues.push({
        path: listForm ? `${at}.claimId` : at,
        message:
          previous === claimId
            ? `claim id ${JSON.stringify(claimId)} is repeated`
            : `claim ids ${JSON.stringify(previous)} and ${JSON.stringify(claimId)} are the same text in different Unicode normal forms`,
      });
      return;
    }
    seenClaims.set(folded, claimId);
    causalKeys.forEach((key, i) => {
      if (!Object.hasOwn(env, key)) {
        issues.push({
          path: listForm ? `${at}.causalKeys.${i}` : `${at}.${i}`,
          message: `causal key ${JSON.stringify(key)} of claim ${JSON.stringify(claimId)} is not in env`,
        });
      }
    });
    claimDependencyMap[claimId] = sortedUnique(causalKeys);
  });
  if (issues.length > 0) throw new InvalidInputError('manifest input', issues);

  const baselineKeyHashes: Record<string, HexDigest> = {};
  for (const key of Object.keys(env).sort()) {
    baselineKeyHashes[key] = envKeyHashUnchecked(key, env[key] as string);
  }
  return {
    formatVersion: FORMAT_VERSION,
    preconditionSeal: compositeSealUnchecked(baselineKeyHashes),
    baselineKeyHashes,
    structuralKeys: sortedUnique(parsed.structuralKeys),
    claimDependencyMap: sortKeys(claimDependencyMap),
  };
}

/** Sorted (UTF-16 code-unit order, the order RFC 8785 uses) and de-duplicated copy. */
export function sortedUnique(keys: readonly string[]): string[] {
  return [...new Set(keys)].sort();
}

function sortKeys<V>(record: Record<string, V>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const key of Object.keys(record).sort()) out[key] = record[key] as V;
  return out;
}
