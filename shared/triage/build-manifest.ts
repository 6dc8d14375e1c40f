import type { HexDigest } from '../canonical/digest';
import { type InputIssue, InvalidInputError } from '../errors';
import type { EnvSnapshot } from '../schemas/env-snapshot';
import { acceptsEnvSnapshot } from '../schemas/env-snapshot';
import { NormalFormIndex } from '../schemas/normal-form';
import { parseInput } from '../schemas/parse';
import { BuildManifestInput } from './build-manifest-input';
import { compositeSealUnchecked } from './composite-seal';
import { envKeyHashUnchecked } from './env-key-hash';
import { ManifestFormatVersion } from './manifest-format-version';
import { presenceConflict, presenceIndex } from './presence-conflict';
import type { SealedDependencyManifest } from './sealed-dependency-manifest';
import { sortedUnique } from './sorted-unique-keys';

/**
 * Builds the sealed dependency manifest of a record at write time (docs/triage.md, "The four recorded elements").
 *
 * Hashes every key of `env` with {@link envKeyHash}, seals them with {@link compositeSeal},
 * and stores structural keys and each claim's causal keys sorted and de-duplicated. Keys
 * declared absent (`structuralAbsentKeys`, a claim's `absentKeys`) join the structural keys or
 * the claim's causal keys and are listed in `absentKeys`; the manifest is format 2 when there is
 * at least one, else format 1, byte for byte what it was before absent keys existed
 * (docs/triage.md, "Keys declared absent").
 *
 * @throws {InvalidInputError} naming each bad field: a malformed env, key or claim id
 *   (`__proto__`, NFC/NFD collision, lone surrogate, control character), a structural key
 *   absent from `env` (`structuralKeys.<i>`), a causal key absent from `env`
 *   (`claimDependencyMap.<claimId>.<i>`), a key declared absent that is in `env` (or whose other
 *   Unicode normal form is) or is `__proto__` (`structuralAbsentKeys.<i>`,
 *   `claimDependencyMap.<claimId>.absentKeys.<i>`), a repeated claim id, a claim with no key.
 * @example
 * buildManifest({ env: { ARCH: 'arm64', HOST: 'h1' }, structuralKeys: ['ARCH'],
 *   claimDependencyMap: { 'claim-1': ['ARCH'], 'no-proxy': { absentKeys: ['HTTP_PROXY'] } } })
 */
export function buildManifest(input: BuildManifestInput): SealedDependencyManifest {
  const parsed = parseBuildManifestInput(input);
  const { env } = parsed;
  // Built on the first absent declaration only: most manifests declare none.
  let presentIndex: NormalFormIndex<string> | undefined;
  const conflictOf = (key: string) => {
    presentIndex ??= presenceIndex(Object.keys(env));
    return presenceConflict(key, presentIndex, 'env');
  };
  const issues: InputIssue[] = [];

  parsed.structuralKeys.forEach((key, i) => {
    if (!Object.hasOwn(env, key)) {
      issues.push({ path: `structuralKeys.${i}`, message: `structural key ${JSON.stringify(key)} is not in env` });
    }
  });
  const structuralAbsentKeys = parsed.structuralAbsentKeys ?? [];
  structuralAbsentKeys.forEach((key, i) => {
    const conflict = conflictOf(key);
    if (conflict !== null) {
      issues.push({ path: `structuralAbsentKeys.${i}`, message: `structural key ${JSON.stringify(key)} ${conflict}` });
    }
  });

  const listForm = Array.isArray(parsed.claimDependencyMap);
  const entries: ClaimEntry[] = Array.isArray(parsed.claimDependencyMap)
    ? parsed.claimDependencyMap.map((c, index) => ({
        claimId: c.claimId,
        at: `claimDependencyMap.${index}`,
        causal: c.causalKeys,
        causalAt: 'causalKeys.',
        absent: c.absentKeys ?? [],
        emptyAt: 'causalKeys',
      }))
    : Object.entries(parsed.claimDependencyMap).map(([claimId, keys]) =>
        Array.isArray(keys)
          ? { claimId, at: `claimDependencyMap.${claimId}`, causal: keys, causalAt: '', absent: [], emptyAt: '' }
          : {
              claimId,
              at: `claimDependencyMap.${claimId}`,
              causal: keys.causalKeys ?? [],
              causalAt: 'causalKeys.',
              absent: keys.absentKeys ?? [],
              emptyAt: '',
            },
      );
  const seenClaims = new NormalFormIndex<string>();
  const claimDependencyMap: Record<string, string[]> = {};
  const absentKeys: string[] = [...structuralAbsentKeys];
  for (const { claimId, at, causal, causalAt, absent, emptyAt } of entries) {
    const previous = seenClaims.claim(claimId, claimId);
    if (previous !== undefined) {
      issues.push({
        path: listForm ? `${at}.claimId` : at,
        message:
          previous === claimId
            ? `claim id ${JSON.stringify(claimId)} is repeated`
            : `claim ids ${JSON.stringify(previous)} and ${JSON.stringify(claimId)} are the same text in different Unicode normal forms`,
      });
      continue;
    }
    if (causal.length + absent.length === 0) {
      issues.push({
        path: emptyAt === '' ? at : `${at}.${emptyAt}`,
        message: 'a claim must name at least one causal key',
      });
    }
    causal.forEach((key, i) => {
      if (!Object.hasOwn(env, key)) {
        issues.push({
          path: `${at}.${causalAt}${i}`,
          message: `causal key ${JSON.stringify(key)} of claim ${JSON.stringify(claimId)} is not in env`,
        });
      }
    });
    absent.forEach((key, i) => {
      const conflict = conflictOf(key);
      if (conflict !== null) {
        issues.push({
          path: `${at}.absentKeys.${i}`,
          message: `causal key ${JSON.stringify(key)} of claim ${JSON.stringify(claimId)} ${conflict}`,
        });
      }
    });
    absentKeys.push(...absent);
    claimDependencyMap[claimId] = sortedUnique([...causal, ...absent]);
  }
  if (issues.length > 0) throw new InvalidInputError('manifest input', issues);

  const baselineKeyHashes: Record<string, HexDigest> = {};
  for (const key of Object.keys(env).sort()) {
    baselineKeyHashes[key] = envKeyHashUnchecked(key, env[key] as string);
  }
  const preconditionSeal = compositeSealUnchecked(baselineKeyHashes);
  const structuralKeys = sortedUnique([...parsed.structuralKeys, ...structuralAbsentKeys]);
  const claims = sortKeys(claimDependencyMap);
  if (absentKeys.length === 0) {
    return {
      formatVersion: ManifestFormatVersion.V1,
      preconditionSeal,
      baselineKeyHashes,
      structuralKeys,
      claimDependencyMap: claims,
    };
  }
  return {
    formatVersion: ManifestFormatVersion.V2,
    preconditionSeal,
    baselineKeyHashes,
    absentKeys: sortedUnique(absentKeys),
    structuralKeys,
    claimDependencyMap: claims,
  };
}

/** {@link BuildManifestInput} but its `env`, which {@link parseBuildManifestInput} checks by hand first. */
const BuildManifestInputButEnv = BuildManifestInput.omit({ env: true });

/**
 * Validates the build input once: an environment the hand-written checks accept (printable-ASCII
 * keys, within `MAX_ENV_SNAPSHOT_KEYS`: `acceptsEnvSnapshot`) is taken as it is and the other
 * fields go to the schema; any other input goes to the schema whole, which words every error.
 * A runner image's 1.5-million-key environment is checked in a fraction of the schema's time.
 */
function parseBuildManifestInput(input: BuildManifestInput) {
  const raw: unknown = input;
  if (raw !== null && typeof raw === 'object' && acceptsEnvSnapshot((raw as { env?: unknown }).env)) {
    const { env, ...rest } = raw as { env: EnvSnapshot };
    return { ...parseInput(BuildManifestInputButEnv, rest, 'manifest input'), env };
  }
  return parseInput(BuildManifestInput, input, 'manifest input');
}

/** One claim of the build input, with where its fields are for error paths. */
interface ClaimEntry {
  readonly claimId: string;
  /** Path of the claim (`claimDependencyMap.<claimId>` or `claimDependencyMap.<n>`). */
  readonly at: string;
  readonly causal: readonly string[];
  /** Prefix of a causal key's index under `at` (`causalKeys.` or `` for a bare list). */
  readonly causalAt: string;
  readonly absent: readonly string[];
  /** Where an empty claim is reported under `at` (`causalKeys` in list form, `` otherwise). */
  readonly emptyAt: string;
}

function sortKeys<V>(record: Record<string, V>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const key of Object.keys(record).sort()) out[key] = record[key] as V;
  return out;
}
