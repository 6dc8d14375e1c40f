import type { FreshnessProbeReceipt } from '../shared/write/receipts';
import { type SessionVariable, VariableFreshness } from '../shared/write/session-variable';
import { valueDigest } from '../shared/write/value-digest';

/**
 * The session variables of a {@link ResidualWriteRequest} (docs/guard.md, "Input"), one builder per
 * freshness, without spelling every field by hand.
 */

/**
 * A variable the active session generated itself in its own epoch (`FRESH_GENERATED`).
 * @param generationEpoch - the write's generation epoch (the guard refuses any other source epoch)
 */
export function freshVariable(name: string, value: string, generationEpoch: number): SessionVariable {
  return { name, value, freshness: VariableFreshness.FRESH_GENERATED, sourceEpoch: generationEpoch };
}

/**
 * A variable inherited from a predecessor and not re-verified (`UNVERIFIED_INHERITED`): the guard
 * refuses a write that uses one. Declare it honestly, then re-probe it with {@link reprobedVariable}.
 * @param sourceEpoch - the epoch the value comes from: at most the predecessor's epoch (the guard
 *   refuses a later one, and any inherited variable in a write that names no predecessor)
 */
export function inheritedVariable(name: string, value: string, sourceEpoch: number): SessionVariable {
  return { name, value, freshness: VariableFreshness.UNVERIFIED_INHERITED, sourceEpoch };
}

/** What a freshness probe did, for {@link reprobedVariable}. */
export interface ProbeInfo {
  /** What was probed and how (e.g. `"GET /instances/i-0abc → 200"`). */
  readonly probe: string;
  /** The session that ran the probe (the active session). */
  readonly sessionId: string;
  /** When the probe ran, ms since the Unix epoch (after the session boundary). */
  readonly probedAtMs: number;
}

/**
 * An inherited variable re-verified in this session (`VERIFIED_INHERITED`) with a
 * {@link FreshnessProbeReceipt} whose `observedValueDigest` is `valueDigest(value)`: the value
 * the probe observed must be the value written.
 * @param sourceEpoch - the epoch the value was inherited from: at most the predecessor's epoch;
 *   the write must name its predecessor (a cold start has no inherited context)
 */
export function reprobedVariable(name: string, value: string, sourceEpoch: number, probe: ProbeInfo): SessionVariable {
  const receipt: FreshnessProbeReceipt = {
    probe: probe.probe,
    observedValueDigest: valueDigest(value),
    sessionId: probe.sessionId,
    probedAtMs: probe.probedAtMs,
  };
  return { name, value, freshness: VariableFreshness.VERIFIED_INHERITED, sourceEpoch, receipt };
}

/**
 * A provably immutable value (`IMMUTABLE_CONSTANT`, e.g. a static schema version). It counts only
 * when its name is in the request's `declaredImmutableConstants` ({@link writeRequest} declares it).
 */
export function constantVariable(name: string, value: string, sourceEpoch = 0): SessionVariable {
  return { name, value, freshness: VariableFreshness.IMMUTABLE_CONSTANT, sourceEpoch };
}
