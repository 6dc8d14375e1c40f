import { DeltaVerdict } from '../../shared/triage/delta-isolation-report';
import { absentKeysOf, type LineageTemplate, nextClaimMap } from './scenario';

/** The part of a triage report (`DeltaIsolationReport`, docs/triage.md) an agent acts on. */
export interface TriageFindings {
  readonly verdict: DeltaVerdict;
  readonly driftedKeys: {
    readonly changed: readonly string[];
    readonly vanished: readonly string[];
    readonly appeared: readonly string[];
  };
  readonly retainedClaims: readonly string[];
  readonly invalidatedClaims: readonly string[];
}

/** What the agent does after a triage report. */
export interface AgentDecision {
  /** Claims it keeps without probing. */
  readonly kept: string[];
  /** Claims it re-probes (all of them on FULL_RECONSTRUCTION_REQUIRED). */
  readonly reprobe: string[];
  /**
   * Drifted keys the record depends on: structural or causal keys that changed or vanished, and
   * keys its claims declared absent that appeared.
   */
  readonly mattered: string[];
  /** Keys the recalled record's claims declared absent that appeared. */
  readonly absentAppeared: string[];
  /** Claims triage invalidated that rest on the absence of a key that appeared. */
  readonly quarantinedOnAbsence: string[];
  /**
   * The claim map of the superseding record to seal, or `null` when nothing needs re-sealing
   * (NO_DRIFT, AMBIENT_DRIFT_ONLY: the record stands as it is).
   */
  readonly next: { readonly claimDependencyMap: Record<string, string[]>; readonly dropped: string[] } | null;
}

/**
 * The agent's response to a triage report (docs/triage.md, rules 8–10):
 * - NO_DRIFT / AMBIENT_DRIFT_ONLY: keep every claim; no re-seal.
 * - PARTIAL_REPROBE_REQUIRED: keep the retained claims, re-probe exactly the invalidated ones,
 *   and re-seal a superseding record whose manifest is built from the current environment.
 * - FULL_RECONSTRUCTION_REQUIRED: re-probe every claim of the template against the current
 *   environment and re-seal.
 *
 * @param sealed - claim id → causal keys of the record that was recalled (the keys a claim
 *   declares absent come from its template, as they were sealed)
 * @param structuralKeys - its structural keys
 * @param env - the environment the recall was made in
 */
export function decideAfterTriage(
  lineage: LineageTemplate,
  sealed: Readonly<Record<string, readonly string[]>>,
  structuralKeys: readonly string[],
  findings: TriageFindings,
  env: Readonly<Record<string, string>>,
): AgentDecision {
  const lost = new Set([...findings.driftedKeys.changed, ...findings.driftedKeys.vanished]);
  const dependedOn = new Set([...structuralKeys, ...Object.values(sealed).flat()]);
  const declaredAbsent = absentKeysOf(lineage, Object.keys(sealed));
  const appeared = new Set(findings.driftedKeys.appeared);
  const absentAppeared = [...new Set(Object.values(declaredAbsent).flat())].filter((key) => appeared.has(key)).sort();
  const quarantinedOnAbsence = findings.invalidatedClaims
    .filter((claimId) => (declaredAbsent[claimId] ?? []).some((key) => appeared.has(key)))
    .sort();
  const mattered = [...[...lost].filter((key) => dependedOn.has(key)), ...absentAppeared].sort();
  const absence = { absentAppeared, quarantinedOnAbsence };
  switch (findings.verdict) {
    case DeltaVerdict.NO_DRIFT:
    case DeltaVerdict.AMBIENT_DRIFT_ONLY:
      return { kept: [...findings.retainedClaims], reprobe: [], mattered, ...absence, next: null };
    case DeltaVerdict.PARTIAL_REPROBE_REQUIRED: {
      const next = nextClaimMap(lineage, sealed, findings.retainedClaims, findings.invalidatedClaims, env);
      return {
        kept: [...findings.retainedClaims],
        reprobe: [...findings.invalidatedClaims],
        mattered,
        ...absence,
        next: { claimDependencyMap: next.claimDependencyMap, dropped: next.unavailable },
      };
    }
    case DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED: {
      const all = lineage.claims.map((c) => c.claimId);
      const next = nextClaimMap(lineage, sealed, [], all, env);
      return {
        kept: [],
        reprobe: Object.keys(sealed).sort(),
        mattered,
        ...absence,
        next: {
          claimDependencyMap: next.claimDependencyMap,
          dropped: next.unavailable.filter((claimId) => Object.hasOwn(sealed, claimId)),
        },
      };
    }
  }
}
