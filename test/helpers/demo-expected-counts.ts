/**
 * An independent model of what the demo must report, computed from the snapshot file with plain
 * key/value comparisons. It shares no code with the demo or with triage (no `isolateDelta`, no
 * hashing, no `resolveClaims`): only the claim definitions (which keys each claim rests on) come
 * from the scenario, as data. The integration test checks the demo's summary against it, and
 * a unit test checks it against the core's `isolateDelta` on the real series.
 */

/** Minimal view of a snapshot: index and environment. */
export interface ModelSnapshot {
  readonly index: number;
  readonly env: Readonly<Record<string, string>>;
}

/**
 * Minimal view of a lineage: structural keys and claims with their causal key choices and the
 * keys they rest on being absent.
 */
export interface ModelLineage {
  readonly name: string;
  readonly structuralKeys: readonly string[];
  readonly claims: readonly {
    readonly claimId: string;
    readonly causalKeys: readonly (string | readonly string[])[];
    readonly absentKeys?: readonly string[];
  }[];
}

export type ModelVerdict =
  | 'NO_DRIFT'
  | 'AMBIENT_DRIFT_ONLY'
  | 'PARTIAL_REPROBE_REQUIRED'
  | 'FULL_RECONSTRUCTION_REQUIRED';

/** One expected recall. */
export interface ExpectedRecall {
  readonly lineage: string;
  readonly snapshotIndex: number;
  readonly verdict: ModelVerdict;
  readonly kept: string[];
  readonly reprobed: string[];
  readonly mattered: string[];
  /** Keys the recalled record's claims rest on the absence of that are in the environment now. */
  readonly absentAppeared: string[];
  /** Re-probed claims resting on the absence of such a key. */
  readonly quarantinedOnAbsence: string[];
  readonly environmentChanged: boolean;
  /** Seq of the record recalled (0 for the first record; +1 per re-seal). */
  readonly recalledSeq: number;
}

/** Expected totals, named as in the demo's `DemoTotals`. */
export interface ExpectedTotals {
  readonly recalls: number;
  readonly byVerdict: Record<ModelVerdict, number>;
  readonly claimsKept: number;
  readonly claimsReprobed: number;
  readonly reseals: number;
  readonly monolithicInvalidatedRecalls: number;
  readonly monolithicClaimsRederived: number;
  readonly claimsSaved: number;
  /** Recalls at which a key some claim rests on the absence of was present. */
  readonly declaredAbsentRecalls: number;
  /** Claims re-probed at those recalls because of it. */
  readonly claimsQuarantinedOnAbsence: number;
}

/**
 * Claim id → the keys it rests on in `env` (first present alternative); claims with a missing
 * key, or with a key present that they rest on the absence of, left out.
 */
function claimKeysIn(lineage: ModelLineage, env: Readonly<Record<string, string>>, only?: readonly string[]) {
  const out = new Map<string, string[]>();
  for (const claim of lineage.claims) {
    if (only && !only.includes(claim.claimId)) continue;
    const keys: string[] = [];
    let ok = true;
    for (const choice of claim.causalKeys) {
      const alternatives: readonly string[] = typeof choice === 'string' ? [choice] : choice;
      const hit = alternatives.find((k) => Object.hasOwn(env, k));
      if (hit === undefined) ok = false;
      else keys.push(hit);
    }
    if ((claim.absentKeys ?? []).some((k) => Object.hasOwn(env, k))) ok = false;
    if (ok) out.set(claim.claimId, keys);
  }
  return out;
}

/** Claim id → the keys it rests on the absence of, for the claims of `lineage` that have some. */
function absentKeysByClaim(lineage: ModelLineage): Map<string, readonly string[]> {
  return new Map(
    lineage.claims.filter((c) => (c.absentKeys ?? []).length > 0).map((c) => [c.claimId, c.absentKeys ?? []]),
  );
}

function sameEnv(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && b[k] === a[k]);
}

/**
 * Replays one lineage over the snapshots: written at the first, recalled at every snapshot
 * (the first included), re-sealed on the current snapshot after PARTIAL / FULL verdicts.
 */
export function expectedRecalls(lineage: ModelLineage, snapshots: readonly ModelSnapshot[]): ExpectedRecall[] {
  const first = snapshots[0];
  if (!first) return [];
  let baseline = first.env;
  let claims = claimKeysIn(lineage, baseline);
  let structural = lineage.structuralKeys.filter((k) => Object.hasOwn(baseline, k));
  let seq = 0;
  const absentOf = absentKeysByClaim(lineage);
  const out: ExpectedRecall[] = [];
  for (const snapshot of snapshots) {
    const env = snapshot.env;
    const changedOrGone = new Set(
      Object.keys(baseline).filter((k) => !Object.hasOwn(env, k) || env[k] !== baseline[k]),
    );
    const environmentChanged = !sameEnv(baseline, env);
    const allClaims = [...claims.keys()].sort();
    // A claim resting on the absence of a key that is present now (absent in the baseline, as it was sealed).
    const arrivedFor = (c: string) => (absentOf.get(c) ?? []).filter((k) => Object.hasOwn(env, k));
    const onAbsence = allClaims.filter((c) => arrivedFor(c).length > 0);
    const hit = allClaims.filter(
      (c) => (claims.get(c) ?? []).some((k) => changedOrGone.has(k)) || onAbsence.includes(c),
    );
    const structuralHit = structural.filter((k) => changedOrGone.has(k));
    const dependedOn = new Set([...structural, ...[...claims.values()].flat()]);
    const absentAppeared = [...new Set(onAbsence.flatMap(arrivedFor))].sort();
    const mattered = [...[...changedOrGone].filter((k) => dependedOn.has(k)), ...absentAppeared].sort();
    let verdict: ModelVerdict;
    if (!environmentChanged) verdict = 'NO_DRIFT';
    else if (structuralHit.length > 0 || (hit.length === allClaims.length && allClaims.length > 0))
      verdict = 'FULL_RECONSTRUCTION_REQUIRED';
    else if (hit.length === 0) verdict = 'AMBIENT_DRIFT_ONLY';
    else verdict = 'PARTIAL_REPROBE_REQUIRED';
    const reprobed =
      verdict === 'FULL_RECONSTRUCTION_REQUIRED' ? allClaims : verdict === 'PARTIAL_REPROBE_REQUIRED' ? hit : [];
    const kept = allClaims.filter((c) => !reprobed.includes(c));
    out.push({
      lineage: lineage.name,
      snapshotIndex: snapshot.index,
      verdict,
      kept,
      reprobed,
      mattered,
      absentAppeared,
      quarantinedOnAbsence: onAbsence,
      environmentChanged,
      recalledSeq: seq,
    });
    if (verdict === 'PARTIAL_REPROBE_REQUIRED') {
      const next = new Map<string, string[]>();
      for (const c of kept) next.set(c, claims.get(c) ?? []);
      for (const [c, keys] of claimKeysIn(lineage, env, hit)) next.set(c, keys);
      claims = next;
    } else if (verdict === 'FULL_RECONSTRUCTION_REQUIRED') {
      claims = claimKeysIn(lineage, env);
    }
    if (reprobed.length > 0) {
      baseline = env;
      structural = lineage.structuralKeys.filter((k) => Object.hasOwn(baseline, k));
      seq += 1;
    }
  }
  return out;
}

/** Totals over every lineage's expected recalls. */
export function expectedTotals(lineages: readonly ModelLineage[], snapshots: readonly ModelSnapshot[]): ExpectedTotals {
  const recalls = lineages.flatMap((l) => expectedRecalls(l, snapshots));
  const byVerdict: Record<ModelVerdict, number> = {
    NO_DRIFT: 0,
    AMBIENT_DRIFT_ONLY: 0,
    PARTIAL_REPROBE_REQUIRED: 0,
    FULL_RECONSTRUCTION_REQUIRED: 0,
  };
  let claimsKept = 0;
  let claimsReprobed = 0;
  let reseals = 0;
  let monolithicInvalidatedRecalls = 0;
  let monolithicClaimsRederived = 0;
  let claimsSaved = 0;
  let declaredAbsentRecalls = 0;
  let claimsQuarantinedOnAbsence = 0;
  for (const r of recalls) {
    if (r.absentAppeared.length > 0) declaredAbsentRecalls += 1;
    claimsQuarantinedOnAbsence += r.quarantinedOnAbsence.length;
    byVerdict[r.verdict] += 1;
    claimsKept += r.kept.length;
    claimsReprobed += r.reprobed.length;
    if (r.reprobed.length > 0) reseals += 1;
    if (r.environmentChanged) {
      monolithicInvalidatedRecalls += 1;
      monolithicClaimsRederived += r.kept.length + r.reprobed.length;
      claimsSaved += r.kept.length;
    }
  }
  return {
    recalls: recalls.length,
    byVerdict,
    claimsKept,
    claimsReprobed,
    reseals,
    monolithicInvalidatedRecalls,
    monolithicClaimsRederived,
    claimsSaved,
    declaredAbsentRecalls,
    claimsQuarantinedOnAbsence,
  };
}
