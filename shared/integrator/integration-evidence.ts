import type { IndexUpdateFinding } from '../index/index-update';

/**
 * What the integrator refused, recorded (docs/deployment-log.md, "Evidence"). Every kind but
 * `RESIDUAL_CHANGED` leaves a lineage out of an integration: its head and every residual id of its
 * run stay as the index held them. `RESIDUAL_CHANGED` leaves out only the second sealing of one
 * residual id (the index keeps the first; the lineage's head and its other ids enter). The four
 * kinds of the index update rule (docs/verifiable-index.md, "Update rule") come with the held and
 * the offered value; the integrator's own checks add:
 * - `HEAD_UNAUTHENTICATED`: the lineage's stored head does not authenticate with the log key;
 * - `HEAD_INCONSISTENT`: the consistency proof from the indexed head to the stored one fails (a fork);
 * - `RECORD_UNPROVEN`: a record between the indexed and the stored head is missing, does not hash
 *   to its record hash, or is not the leaf the stored tree holds at its seq;
 * - `NOTICE_MISMATCH`: the table shows less, or other records, than the sealer said it sealed
 *   (a rollback or rewrite after the seal), also for a notice delivered after its seqs were
 *   integrated (docs/deployment-log.md, "Integration", step 3);
 * - `INDEX_NODE_MISSING`: a key of the lineage lies below an index node the table no longer holds
 *   (or holds edited); the index rebuild restores it;
 * - `DEPLOYMENT_ROLLBACK`: not a lineage's: a cold integrator found the deployment head smaller
 *   than its floor (the witness's size, or the operator's minimum), and signs nothing; `lineageId`
 *   is then the deployment log's origin.
 */
export type IntegrationEvidence =
  | {
      readonly kind:
        | 'HEAD_UNAUTHENTICATED'
        | 'HEAD_INCONSISTENT'
        | 'RECORD_UNPROVEN'
        | 'NOTICE_MISMATCH'
        | 'INDEX_NODE_MISSING'
        | 'DEPLOYMENT_ROLLBACK';
      readonly lineageId: string;
      readonly reason: string;
    }
  | (IndexUpdateFinding & { readonly lineageId: string });

/** The kinds of {@link IntegrationEvidence}. */
export type IntegrationEvidenceKind = IntegrationEvidence['kind'];
