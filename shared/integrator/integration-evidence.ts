import type { IndexUpdateFinding } from '../index/index-update';

/**
 * Why the integrator left a lineage out of an integration (docs/deployment-log.md, "Evidence"):
 * the lineage's head and every residual id of its run stay as the index held them, and this is
 * recorded. The four kinds of the index update rule (docs/verifiable-index.md, "Update rule")
 * come with the held and the offered value; the integrator's own checks add:
 * - `HEAD_UNAUTHENTICATED`: the lineage's stored head does not authenticate with the log key;
 * - `HEAD_INCONSISTENT`: the consistency proof from the indexed head to the stored one fails (a fork);
 * - `RECORD_UNPROVEN`: a record between the indexed and the stored head is missing, does not hash
 *   to its record hash, or is not the leaf the stored tree holds at its seq;
 * - `NOTICE_MISMATCH`: the table shows less, or other records, than the sealer said it sealed
 *   (a rollback or rewrite after the seal).
 */
export type IntegrationEvidence =
  | {
      readonly kind: 'HEAD_UNAUTHENTICATED' | 'HEAD_INCONSISTENT' | 'RECORD_UNPROVEN' | 'NOTICE_MISMATCH';
      readonly lineageId: string;
      readonly reason: string;
    }
  | (IndexUpdateFinding & { readonly lineageId: string });

/** The kinds of {@link IntegrationEvidence}. */
export type IntegrationEvidenceKind = IntegrationEvidence['kind'];
