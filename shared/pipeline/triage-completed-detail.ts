import { z } from 'zod';
import { FORMAT_VERSION } from '../canonical/hash-domain';
import { RecallProofSchema } from '../log/recall-proof';
import { EpochMillis } from '../schemas/epoch-millis';
import { Identifier } from '../schemas/identifier';
import { NonNegativeInt } from '../schemas/non-negative-int';
import { VerificationVerdict } from '../seal/verification-verdict';
import { DeltaIsolationReportSchema } from '../triage/delta-isolation-report';
import { RefusalCode } from './refusal-code';
import { ShortText } from './short-text';
import { TriageOutcome } from './triage-outcome';

/**
 * `detail` of a `TriageCompleted` event (docs/pipeline.md, "Message shapes"; strict), also stored as the triage report
 * (pk `TRIAGE#<lineageId>`, sk `<requestId>`). `verification` is `null` only when no record was
 * found; `report` is set iff `outcome` is `TRIAGED`; `refusalReason` and `refusalCode` iff
 * `REFUSED` (both `null` iff `TRIAGED`).
 */
export const TriageCompletedDetailSchema = z.strictObject({
  formatVersion: z.literal(FORMAT_VERSION),
  requestId: Identifier,
  lineageId: Identifier,
  seq: NonNegativeInt.nullable(),
  residualId: Identifier.nullable(),
  outcome: z.enum(TriageOutcome),
  verification: z
    .strictObject({
      verdict: z.enum(VerificationVerdict),
      firstFailure: z
        .strictObject({ seq: NonNegativeInt.nullable(), verdict: z.enum(VerificationVerdict), reason: z.string() })
        .nullable(),
    })
    .nullable(),
  report: DeltaIsolationReportSchema.nullable(),
  /**
   * What the client checks the answer with, set whenever a record was proven: the latest signed
   * checkpoint, the record's leaf, its inclusion proof and, given a `trustedCheckpoint`, the
   * consistency proof from it. A client recomputes the delta from the proven record and its own
   * environment, so this report is never trusted as stored.
   */
  proof: RecallProofSchema.nullable(),
  refusalReason: ShortText.nullable(),
  /** Why the triage was refused, machine-readable; `null` iff `outcome` is `TRIAGED`. */
  refusalCode: z.enum(RefusalCode).nullable(),
  completedAtMs: EpochMillis,
});
/** Type of {@link TriageCompletedDetailSchema}. */
export type TriageCompletedDetail = z.infer<typeof TriageCompletedDetailSchema>;
