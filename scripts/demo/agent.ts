import { DeltaVerdict } from '../../shared/triage/delta-isolator';
import { type LineageTemplate, nextClaimMap } from './scenario';

/** The part of a triage report (seed 000 `DeltaIsolationReport`) an agent acts on. */
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
  /** Drifted keys the record depends on: changed or vanished, and structural or causal. */
  readonly mattered: string[];
  /**
   * The claim map of the superseding record to seal, or `null` when nothing needs re-sealing
   * (NO_DRIFT, AMBIENT_DRIFT_ONLY: the record stands as it is).
   */
  readonly next: { readonly claimDependencyMap: Record<string, string[]>; readonly dropped: string[] } | null;
}

/**
 * The agent's response to a triage report (seed 000, Method 4 and Decision Boundary):
 * - NO_DRIFT / AMBIENT_DRIFT_ONLY: keep every claim; no re-seal.
 * - PARTIAL_REPROBE_REQUIRED: keep the retained claims, re-probe exactly the invalidated ones,
 *   and re-seal a superseding record whose manifest is built from the current environment.
 * - FULL_RECONSTRUCTION_REQUIRED: re-probe every claim of the template against the current
 *   environment and re-seal.
 *
 * @param sealed - claim id → causal keys of the record that was recalled
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
  const mattered = [...lost].filter((key) => dependedOn.has(key)).sort();
  switch (findings.verdict) {
    case DeltaVerdict.NO_DRIFT:
    case DeltaVerdict.AMBIENT_DRIFT_ONLY:
      return { kept: [...findings.retainedClaims], reprobe: [], mattered, next: null };
    case DeltaVerdict.PARTIAL_REPROBE_REQUIRED: {
      const next = nextClaimMap(lineage, sealed, findings.retainedClaims, findings.invalidatedClaims, env);
      return {
        kept: [...findings.retainedClaims],
        reprobe: [...findings.invalidatedClaims],
        mattered,
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
        next: {
          claimDependencyMap: next.claimDependencyMap,
          dropped: next.unavailable.filter((claimId) => Object.hasOwn(sealed, claimId)),
        },
      };
    }
  }
}
