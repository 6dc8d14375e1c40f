import { z } from 'zod';
import { FirstFailureOutput } from '../../client/shapes/first-failure-output';
import { FreshnessShape } from '../../client/shapes/freshness-shape';
import { TimelineRecordOutput } from '../../client/shapes/timeline-record-output';
import { Identifier } from '../../shared/schemas/identifier';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import { InspectUntrustedOutput } from './inspect-untrusted-output';
import { LogCheckOutputFields } from './log-check-output-fields';

/**
 * `reseal_inspect`: a lineage's timeline, then its rejected and conflicting writes whose signed
 * statements check; the text of records that do not verify and of unsigned items only in `untrusted`.
 */
export const InspectOutput = z.object({
  lineageId: Identifier,
  verdict: z.enum(VerificationVerdict),
  firstFailure: FirstFailureOutput.nullable(),
  records: z.array(TimelineRecordOutput),
  rejections: z.array(
    z.object({
      stage: z.string(),
      reason: z.string(),
      residualId: z.string().nullable(),
      rejectedAt: z.string(),
      rejectedVariables: z.array(
        z.object({
          name: z.string(),
          reason: z.string(),
          detail: z.string(),
          /** What the agent can do about it (as in a `WRITE_REJECTED` error). */
          action: z.string(),
        }),
      ),
      requestViolations: z.array(z.object({ field: z.string(), reason: z.string(), detail: z.string() })),
      issues: z.array(z.object({ path: z.string(), message: z.string() })),
      /** Always `true`: its statement, signed by the function that decided it, checks (unsigned ones are in `untrusted`). */
      signatureVerified: z.boolean(),
      /** Always `null`: an item that cannot be read whole is never signed, and is in `untrusted`. */
      unreadable: z.string().nullable(),
    }),
  ),
  conflicts: z.array(
    z.object({
      reason: z.string(),
      detail: z.string(),
      residualId: z.string(),
      conflictedAt: z.string(),
      /** Always `true`: its statement, signed by the sealer, checks (unsigned ones are in `untrusted`). */
      signatureVerified: z.boolean(),
      /** Always `null`: an item that cannot be read whole is never signed, and is in `untrusted`. */
      unreadable: z.string().nullable(),
    }),
  ),
  /** Stored items the server cannot vouch for: records that do not verify, unsigned rejections and conflicts. */
  untrusted: InspectUntrustedOutput,
  /**
   * Where the verified head stands against the deployment log (docs/mcp.md, "Freshness"): a
   * rolled-back lineage behind the index is `NOT_NEWEST`, never intact; `null` when not checked.
   */
  freshness: FreshnessShape.nullable(),
  ...LogCheckOutputFields,
});
/** Type of {@link InspectOutput}. */
export type InspectOutput = z.infer<typeof InspectOutput>;
