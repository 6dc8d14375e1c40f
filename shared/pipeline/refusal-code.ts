/**
 * Machine-readable kind of a `REFUSED` triage (`refusalCode`); `refusalReason` is for humans
 * and may change wording, the code does not (docs/pipeline.md, "Message shapes": `TriageCompleted`).
 */
export const RefusalCode = {
  /** No record of the lineage has the requested seq / residual id, or the lineage is empty. */
  NOT_FOUND: 'NOT_FOUND',
  /**
   * The chain is not `VERIFIED_INTACT` (hash, MAC, truncation, or a stored head inconsistent
   * with the records); `verification.verdict` says which. No triage.
   */
  VERIFICATION_FAILED: 'VERIFICATION_FAILED',
  /** The `RecallRequested` detail was invalid; `refusalReason` names every bad field. */
  INVALID_REQUEST: 'INVALID_REQUEST',
  /** The record verified but its manifest cannot be triaged (delta isolation refused it). */
  MANIFEST_UNTRIAGEABLE: 'MANIFEST_UNTRIAGEABLE',
} as const;
/** One of {@link RefusalCode}. */
export type RefusalCode = (typeof RefusalCode)[keyof typeof RefusalCode];
