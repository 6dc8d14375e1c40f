import type { HexDigest } from '../canonical/digest';
import { FORMAT_VERSION } from '../canonical/hash-domain';
import { ManifestSealMismatchError } from '../errors';
import type { EnvSnapshot } from '../schemas/env-snapshot';
import { isEnvValue, isPlainAsciiEnvValue, parseEnvSnapshot } from '../schemas/env-snapshot';
import { envSnapshotKeyLimitIssue } from '../schemas/env-snapshot-limits';
import { isAsciiMapKey, isPlainAsciiMapKey } from '../schemas/is-ascii-map-key';
import { isHexDigest } from '../schemas/is-hex-digest';
import { isPlainRecord } from '../schemas/is-plain-record';
import { normalFormOf } from '../schemas/normal-form';
import { ownKeyCount } from '../schemas/own-key-count';
import type { Validated } from '../schemas/validated';
import { acceptManifestAwaitingBaseline } from './accepts-manifest-v1';
import { compositeSealUnchecked } from './composite-seal';
import { declaredAbsentKeys } from './declared-absent-keys';
import { type DeltaIsolationReport, DeltaVerdict } from './delta-isolation-report';
import { envKeyHashOfPlainText, envKeyHashUnchecked } from './env-key-hash';
import { parseManifest } from './parse-manifest';
import type { SealedDependencyManifest } from './sealed-dependency-manifest';

/**
 * Differential seal triage of a recalled record against the current environment, as
 * docs/triage.md, "Verdicts and rules, in the order `isolateDelta` applies them" specifies.
 *
 * Order of the rules:
 * 0. The manifest must be self-consistent: a non-empty `baselineKeyHashes` must seal to
 *    `preconditionSeal`, else the manifest is corrupt and refused.
 * 1. Composite seal over the whole current environment (every key, so an appeared key breaks
 *    it too). Intact → `NO_DRIFT`, every claim retained.
 * 2. Broken seal and `baselineKeyHashes` empty → `FULL_RECONSTRUCTION_REQUIRED`.
 * 3. Drifted keys split into changed / vanished / appeared.
 * 4. `claimDependencyMap` empty → `FULL_RECONSTRUCTION_REQUIRED`.
 * 5. A structural or causal key with neither an entry in `baselineKeyHashes` nor a declaration
 *    in `absentKeys` is unattributed → `FULL_RECONSTRUCTION_REQUIRED` (fail closed).
 * 6. A structural key changed or vanished, or was declared absent and appeared (in either
 *    Unicode normal form: NFC `é` and NFD `e\u0301` are the same key here) →
 *    `FULL_RECONSTRUCTION_REQUIRED`.
 * 7. Claims partitioned by overlap of their causal keys with the drifted keys, an
 *    appeared declared-absent key (either normal form) included: none invalidated → `AMBIENT_DRIFT_ONLY`; all →
 *    `FULL_RECONSTRUCTION_REQUIRED`; otherwise `PARTIAL_REPROBE_REQUIRED`. An appeared key nobody declared absent invalidates no
 *    claim (no claim can name it without rule 5 failing closed first).
 *
 * Format-1 manifests declare nothing absent, so every rule gives exactly what it gave before
 * `absentKeys` existed (docs/triage.md, "Keys declared absent").
 *
 * Cost: O(K + Σ|causal_keys| + C log C) for K environment keys and C claims: every current key is
 * hashed once, an index key → claims is built once, and only the drifted keys are walked.
 *
 * @param manifest - a {@link SealedDependencyManifest} (validated here)
 * @param currentEnv - current environment, key → value string (validated as `EnvSnapshot`)
 * @throws {InvalidInputError} naming the field when `manifest` or `currentEnv` is malformed
 *   (including `__proto__` keys, NFC/NFD-colliding keys, lone surrogates, control characters),
 *   or `currentEnv` holds more than `MAX_ENV_SNAPSHOT_KEYS` keys (docs/cli.md, "Input limits")
 * @throws {ManifestSealMismatchError} when `preconditionSeal` does not match `baselineKeyHashes`
 */
export function isolateDelta(manifest: unknown, currentEnv: unknown): DeltaIsolationReport {
  // The baseline's pass (checks, composite seal) compares the current environment as it goes.
  // A snapshot over MAX_ENV_SNAPSHOT_KEYS is not walked: parseEnvSnapshot below refuses it by count.
  const walk =
    isPlainRecord(currentEnv) && envSnapshotKeyLimitIssue(ownKeyCount(currentEnv)) === null
      ? new BaselineWalk(currentEnv)
      : null;
  let pending = acceptManifestAwaitingBaseline(manifest, walk?.visit);
  // The environment stopped the pass: the baseline's pass alone, the environment below.
  if (pending === null && walk?.refused) pending = acceptManifestAwaitingBaseline(manifest);
  if (pending === null) {
    return isolateValidatedDelta(parseManifest(manifest), parseEnvSnapshot(currentEnv, 'current environment'));
  }
  // Every check of parseManifest has run but the baseline digests' hex pattern, which triage
  // finishes on the drifted keys (a digest equal to one computed here is hex). Before any other
  // error is reported the manifest is checked in full, so its error still comes first; the
  // environment is checked while it is hashed, and its error comes before rule 0's.
  const { manifest: m, compositeSeal: recomputed, size } = pending;
  const confirm = () => parseManifest(manifest);
  let drift = walk === null || walk.refused ? null : walk.drift(m.baselineKeyHashes);
  let env = currentEnv as Readonly<Record<string, string>>;
  if (drift === null) {
    confirm();
    env = parseEnvSnapshot(currentEnv, 'current environment');
    drift = diffKeys(m.baselineKeyHashes, size, env, false) as KeyDrift;
  }
  if (size > 0 && recomputed !== m.preconditionSeal) {
    confirm();
    throw new ManifestSealMismatchError(m.preconditionSeal, recomputed);
  }
  const baseline = m.baselineKeyHashes;
  for (const key of drift.changed) if (!isHexDigest(baseline[key])) confirm();
  for (const key of drift.vanished) if (!isHexDigest(baseline[key])) confirm();
  return judge(m, size, indexClaims(m), drift, sealIntact(m, size, drift, env));
}

/**
 * {@link isolateDelta} of a manifest and an environment already validated (by
 * {@link parseManifest} and {@link parseEnvSnapshot}): the same rules and report, without
 * validating either again. The steps, each a function below: {@link checkManifestSeal} (rule 0),
 * {@link diffKeys} (rules 1 and 3: one hash per current key, compared with the baseline),
 * {@link sealIntact}, {@link indexClaims} (the key → claims index and rule 5's unattributed
 * keys), then the verdict rules 2 and 4–7 ({@link judge}).
 *
 * @throws {ManifestSealMismatchError} when `preconditionSeal` does not match `baselineKeyHashes`
 */
export function isolateValidatedDelta(
  m: Validated<SealedDependencyManifest>,
  env: Validated<EnvSnapshot>,
): DeltaIsolationReport {
  const baselineKeys = Object.keys(m.baselineKeyHashes);
  checkManifestSeal(m, baselineKeys);
  const drift = diffKeys(m.baselineKeyHashes, baselineKeys.length, env, false) as KeyDrift;
  return judge(m, baselineKeys.length, indexClaims(m), drift, sealIntact(m, baselineKeys.length, drift, env));
}

/**
 * Rule 1, with the composite seal computed once: with a non-empty baseline, rule 0 has proven
 * `preconditionSeal` = `compositeSeal(baselineKeyHashes)`, so the current environment's
 * composite equals it exactly when no key drifted (SHA-256 is collision resistant and the
 * canonical form is injective); with an empty baseline the opaque seal is compared with the
 * current environment's composite.
 */
function sealIntact(
  m: SealedDependencyManifest,
  baselineSize: number,
  drift: KeyDrift,
  env: Readonly<Record<string, string>>,
): boolean {
  if (baselineSize > 0) return drift.changed.length + drift.vanished.length + drift.appeared.length === 0;
  return compositeSealUnchecked(currentKeyHashes(env)) === m.preconditionSeal;
}

/** Rule 0: a non-empty `baselineKeyHashes` must seal to `preconditionSeal`. */
function checkManifestSeal(m: SealedDependencyManifest, baselineKeys: readonly string[]): void {
  if (baselineKeys.length === 0) return;
  const recomputed = compositeSealUnchecked(m.baselineKeyHashes);
  if (recomputed !== m.preconditionSeal) throw new ManifestSealMismatchError(m.preconditionSeal, recomputed);
}

/** Drifted keys (rule 3), each list sorted: changed, vanished from the baseline, appeared in it. */
interface KeyDrift {
  readonly changed: string[];
  readonly vanished: string[];
  readonly appeared: string[];
}

/**
 * Rule 3 over both sides: one {@link envKeyHashUnchecked} per current key, compared with its
 * baseline hash, so vanished and appeared keys count as drift. Own keys only: an env key named
 * after an `Object.prototype` member (`toString`) is no baseline key. With `check`, `env` is
 * untrusted and checked in the same pass (printable-ASCII keys, `EnvSnapshot` values); `null`
 * when those checks do not accept it (the caller then asks the schema).
 */
function diffKeys(
  baseline: Readonly<Record<string, HexDigest>>,
  baselineSize: number,
  env: unknown,
  check: boolean,
): KeyDrift | null {
  if (check && !isPlainRecord(env)) return null;
  const current = env as Readonly<Record<string, unknown>>;
  const changed: string[] = [];
  const appeared: string[] = [];
  let matched = 0;
  for (const key of Object.keys(current)) {
    const value = current[key] as string;
    // With `check`, one test of the key and one of the value in the common case (no escape
    // needed, which also proves them an ASCII map key and an environment value).
    const plain = check && isPlainAsciiMapKey(key) && isPlainAsciiEnvValue(value);
    if (check && !plain && (!isAsciiMapKey(key) || !isEnvValue(value))) return null;
    if (!Object.hasOwn(baseline, key)) {
      appeared.push(key);
      continue;
    }
    matched++;
    const digest = plain ? envKeyHashOfPlainText(key, value) : envKeyHashUnchecked(key, value);
    if (baseline[key] !== digest) changed.push(key);
  }
  const vanished = matched === baselineSize ? [] : Object.keys(baseline).filter((key) => !Object.hasOwn(current, key));
  return { changed: changed.sort(), vanished: vanished.sort(), appeared: appeared.sort() };
}

/**
 * {@link diffKeys} of an untrusted environment fused with the baseline's pass of
 * {@link acceptManifestAwaitingBaseline}: {@link BaselineWalk.visit} takes each baseline key (checked,
 * in sorted order) and compares the environment's value there, checking it as
 * {@link diffKeys} does; {@link BaselineWalk.drift} then finds the appeared keys (checking them
 * too) only when the environment has keys the walk did not meet. A key or value the checks do
 * not accept sets `refused` (the caller then asks the schema, as for {@link diffKeys}'s `null`).
 * One lookup in each map per key where {@link diffKeys} after the pass makes four.
 */
class BaselineWalk {
  refused = false;
  readonly #env: Readonly<Record<string, unknown>>;
  readonly #changed: string[] = [];
  readonly #vanished: string[] = [];
  #matched = 0;

  constructor(env: Readonly<Record<string, unknown>>) {
    this.#env = env;
  }

  /** The {@link BaselineVisitor}: one baseline key and its digest. */
  readonly visit = (key: string, digest: string, plainKey: boolean): boolean => {
    const value = this.#env[key];
    if (!Object.hasOwn(this.#env, key)) {
      this.#vanished.push(key);
      return true;
    }
    this.#matched++;
    const plain = plainKey && isPlainAsciiEnvValue(value);
    if (!plain && (!isAsciiMapKey(key) || !isEnvValue(value))) {
      this.refused = true;
      return false;
    }
    const computed = plain ? envKeyHashOfPlainText(key, value) : envKeyHashUnchecked(key, value as string);
    if (computed !== digest) this.#changed.push(key);
    return true;
  };

  /** After a complete walk: the drift, or `null` when an appeared key or its value is not accepted. */
  drift(baseline: Readonly<Record<string, HexDigest>>): KeyDrift | null {
    const keys = Object.keys(this.#env);
    const appeared: string[] = [];
    if (keys.length !== this.#matched) {
      for (const key of keys) {
        if (Object.hasOwn(baseline, key)) continue;
        const value = this.#env[key];
        if (!(isPlainAsciiMapKey(key) && isPlainAsciiEnvValue(value)) && (!isAsciiMapKey(key) || !isEnvValue(value))) {
          return null;
        }
        appeared.push(key);
      }
    }
    return { changed: this.#changed.sort(), vanished: this.#vanished.sort(), appeared: appeared.sort() };
  }
}

/** The current environment's key hashes (only needed for a manifest with an opaque seal). */
function currentKeyHashes(env: Readonly<Record<string, string>>): Record<string, HexDigest> {
  const hashes: Record<string, HexDigest> = {};
  for (const key of Object.keys(env)) hashes[key] = envKeyHashUnchecked(key, env[key] as string);
  return hashes;
}

/** The claims, sorted; the index key → claims (built once, Σ|causal_keys|); rule 5's unattributed keys, sorted. */
interface ClaimIndex {
  readonly allClaims: string[];
  readonly claimsByKey: Map<string, string[]>;
  readonly unattributedKeys: string[];
  /** Declared-absent keys by their {@link normalFormOf} (several when a manifest declares both forms). */
  readonly absentByForm: ReadonlyMap<string, readonly string[]>;
}

function indexClaims(m: SealedDependencyManifest): ClaimIndex {
  const baseline = m.baselineKeyHashes;
  const absent = new Set(declaredAbsentKeys(m));
  const absentByForm = new Map<string, string[]>();
  for (const key of absent) {
    const form = normalFormOf(key);
    const keys = absentByForm.get(form);
    if (keys === undefined) absentByForm.set(form, [key]);
    else keys.push(key);
  }
  const attributed = (key: string) => Object.hasOwn(baseline, key) || absent.has(key);
  const allClaims = Object.keys(m.claimDependencyMap).sort();
  const claimsByKey = new Map<string, string[]>();
  const unattributed = new Set<string>();
  for (const key of m.structuralKeys) if (!attributed(key)) unattributed.add(key);
  for (const claimId of allClaims) {
    for (const key of m.claimDependencyMap[claimId] as string[]) {
      const claims = claimsByKey.get(key);
      if (claims === undefined) {
        claimsByKey.set(key, [claimId]);
        if (!attributed(key)) unattributed.add(key);
      } else claims.push(claimId);
    }
  }
  return { allClaims, claimsByKey, unattributedKeys: [...unattributed].sort(), absentByForm };
}

/** Rules 1, 2 and 4–7 on the diffed keys and the claim index: the report. */
function judge(
  m: SealedDependencyManifest,
  baselineSize: number,
  index: ClaimIndex,
  drift: KeyDrift,
  sealIntact: boolean,
): DeltaIsolationReport {
  const { allClaims, claimsByKey, unattributedKeys, absentByForm } = index;
  const report = (
    verdict: DeltaVerdict,
    reason: string,
    fields: Partial<Omit<DeltaIsolationReport, 'formatVersion' | 'verdict' | 'sealIntact' | 'reason'>> = {},
  ): DeltaIsolationReport => ({
    formatVersion: FORMAT_VERSION,
    verdict,
    sealIntact,
    driftedKeys: fields.driftedKeys ?? { changed: [], vanished: [], appeared: [] },
    structuralDrift: fields.structuralDrift ?? [],
    unattributedKeys,
    retainedClaims: fields.retainedClaims ?? [],
    invalidatedClaims: fields.invalidatedClaims ?? [],
    reason,
  });

  if (sealIntact) {
    return report(
      DeltaVerdict.NO_DRIFT,
      'composite precondition seal intact: the environment is unchanged since write time; every claim stands',
      { retainedClaims: allClaims },
    );
  }
  const { changed, vanished, appeared } = drift;
  const driftedKeys = { changed, vanished, appeared };
  const full = (reason: string, structuralDrift: string[] = []) =>
    report(DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED, reason, {
      driftedKeys,
      structuralDrift,
      invalidatedClaims: allClaims,
    });

  if (baselineSize === 0) {
    return full(
      'composite seal broken and the record carries no baselineKeyHashes: drift cannot be attributed to keys (docs/triage.md rule 2); fail closed',
    );
  }
  if (allClaims.length === 0) {
    return full(
      'composite seal broken and the record carries no claimDependencyMap: claims cannot be partitioned (docs/triage.md rule 4); fail closed',
    );
  }
  const lost = new Set([...changed, ...vanished]);
  // Declared absent at write time, present now under any normal form: drift on whoever rests on
  // the absence (docs/triage.md, "Keys declared absent"), since a reader cannot tell which form
  // the writer meant.
  const arrived = new Set<string>();
  if (absentByForm.size > 0) {
    for (const key of appeared) for (const declared of absentByForm.get(normalFormOf(key)) ?? []) arrived.add(declared);
  }
  const structuralDrift = m.structuralKeys.filter((key) => lost.has(key) || arrived.has(key));
  if (unattributedKeys.length > 0) {
    return full(
      `composite seal broken and ${quoteList(unattributedKeys)} ${unattributedKeys.length === 1 ? 'has' : 'have'} no baseline key hash: drift on ${unattributedKeys.length === 1 ? 'it' : 'them'} cannot be attributed (unattributed drift policy); fail closed`,
      structuralDrift,
    );
  }
  if (structuralDrift.length > 0) {
    return full(structuralReason(structuralDrift, arrived), structuralDrift);
  }

  // Claim-level partition (rule 7): walk only the drifted keys through the index.
  const invalidated = new Set<string>();
  for (const list of [changed, vanished, appeared, arrived]) {
    for (const key of list) for (const claimId of claimsByKey.get(key) ?? []) invalidated.add(claimId);
  }
  const drifted = changed.length + vanished.length + appeared.length;
  if (invalidated.size === 0) {
    return report(
      DeltaVerdict.AMBIENT_DRIFT_ONLY,
      `${drifted} ambient key${drifted === 1 ? '' : 's'} drifted; no structural or causal key did, so every claim stands (docs/triage.md rule 8)`,
      { driftedKeys, retainedClaims: allClaims },
    );
  }
  const arrivedNote = arrived.size === 0 ? '' : `; ${arrivedClause(arrived)}`;
  if (invalidated.size === allClaims.length) {
    return full(
      `every claim (${allClaims.length}) depends on a drifted key: differential recovery saves nothing (docs/triage.md rule 9)${arrivedNote}`,
    );
  }
  const invalidatedClaims = [...invalidated].sort();
  return report(
    DeltaVerdict.PARTIAL_REPROBE_REQUIRED,
    `${invalidatedClaims.length} of ${allClaims.length} claims depend on drifted keys and are quarantined until re-probed; the other ${allClaims.length - invalidatedClaims.length} stand (docs/triage.md rule 10)${arrivedNote}`,
    { driftedKeys, retainedClaims: allClaims.filter((c) => !invalidated.has(c)), invalidatedClaims },
  );
}

/**
 * Reason of rules 6 and 6a. With no declared-absent key among them it is the text format-1 manifests
 * always got, so their report digests do not change.
 */
function structuralReason(structuralDrift: readonly string[], arrived: ReadonlySet<string>): string {
  const lost = structuralDrift.filter((key) => !arrived.has(key));
  const came = structuralDrift.filter((key) => arrived.has(key));
  const keys = (list: readonly string[]) => `structural key${list.length === 1 ? '' : 's'} ${quoteList(list)}`;
  const parts = [
    ...(lost.length > 0 ? [`${keys(lost)} changed or vanished`] : []),
    ...(came.length > 0 ? [`${keys(came)} declared absent at write time appeared`] : []),
  ];
  const source = came.length > 0 ? 'docs/triage.md rule 6a' : 'docs/triage.md rule 6';
  return `${parts.join(' and ')}: the whole record is invalid (${source})`;
}

/** Names the declared-absent keys that appeared, for the reason of a claim partition. */
function arrivedClause(arrived: ReadonlySet<string>): string {
  const keys = [...arrived].sort();
  return `declared absent at write time and present now: ${quoteList(keys)}`;
}

function quoteList(keys: readonly string[], max = 10): string {
  const shown = keys.slice(0, max).map((k) => JSON.stringify(k));
  return keys.length > max ? `${shown.join(', ')} and ${keys.length - max} more` : shown.join(', ');
}
