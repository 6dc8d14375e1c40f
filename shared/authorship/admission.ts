import { canonicalJson } from '../canonical/canonical-json';
import { type LineagePolicy, lineageIdMatchesPolicy } from './lineage-policy';

/** How a write that is admitted extends its lineage (docs/authorship.md, "Lineage write policy"). */
export const AdmissionKind = {
  /** Seq 0: the policy is the one the lineage id certifies, and a writer of it signed. */
  INCEPTION: 'INCEPTION',
  /** A current writer's write that sets no policy. */
  WRITE: 'WRITE',
  /** A current writer's write that sets a new policy (keys added, removed or replaced; recovery keys kept). */
  ROTATION: 'ROTATION',
  /** A recovery key's write that sets a new policy (replaces the writers and recovery keys). */
  RECOVERY: 'RECOVERY',
} as const;
/** One of {@link AdmissionKind}. */
export type AdmissionKind = (typeof AdmissionKind)[keyof typeof AdmissionKind];

/** The lineage state admission is decided on: authenticated by the sealer, verified by a walk. */
export interface AdmissionState {
  readonly lineageId: string;
  /** Seq of the record to admit (0 for a new lineage). */
  readonly seq: number;
  /** The policy in force before the record; `null` for a new lineage or a legacy tip. */
  readonly inForce: LineagePolicy | null;
  /** Whether the lineage's tip is a format-1 record (a legacy lineage: read-only). */
  readonly legacyTip: boolean;
}

/** The write to admit: its writer's public key, and the policy it sets (or `null`). */
export interface AdmissionCandidate {
  readonly publicKey: string;
  readonly policy: LineagePolicy | null;
}

/**
 * Decides whether a writer may extend a lineage (docs/authorship.md, "Lineage write policy"):
 * inception at seq 0 (the policy the self-certifying id names, signed by one of its writers), a
 * current writer's write or rotation (recovery keys unchanged, so a stolen writer key cannot
 * remove the way to recover from it), or a recovery key's new policy. A lineage whose tip is
 * format 1 is never extended. The reason never names the tip's epoch or head.
 *
 * @returns how the write is admitted, or `{ refused }` with why not
 */
export function admitWrite(
  state: AdmissionState,
  candidate: AdmissionCandidate,
): { readonly admitted: AdmissionKind } | { readonly refused: string } {
  const { publicKey, policy } = candidate;
  if (state.legacyTip) {
    return {
      refused: 'the lineage ends in a format-1 record: a legacy lineage is read-only (start a key-bound lineage)',
    };
  }
  const isWriter = (p: LineagePolicy) => p.writers.some((w) => w.publicKey === publicKey);
  if (state.seq === 0 || state.inForce === null) {
    if (state.seq !== 0) return { refused: 'no lineage write policy is in force' };
    if (policy === null) return { refused: 'the first record of a lineage must set its write policy (inception)' };
    if (!lineageIdMatchesPolicy(state.lineageId, policy)) {
      return { refused: 'the lineage id does not end in the digest of the inception policy' };
    }
    if (!isWriter(policy)) return { refused: 'the inception record is not signed by a writer of its policy' };
    return { admitted: AdmissionKind.INCEPTION };
  }
  const inForce = state.inForce;
  if (isWriter(inForce)) {
    if (policy === null) return { admitted: AdmissionKind.WRITE };
    if (canonicalJson(policy.recoveryKeys) !== canonicalJson(inForce.recoveryKeys)) {
      return { refused: 'a writer may not change the recovery keys (only a recovery key may)' };
    }
    return { admitted: AdmissionKind.ROTATION };
  }
  if (policy !== null && inForce.recoveryKeys.includes(publicKey)) return { admitted: AdmissionKind.RECOVERY };
  return { refused: 'the writer key is not admitted to this lineage' };
}
