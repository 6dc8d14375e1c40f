import type { LineagePolicy } from './lineage-policy';

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
