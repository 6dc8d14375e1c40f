import { z } from 'zod';
import { isoTime } from '../../shared/iso-time';
import type { ReportPage } from '../../shared/report/report-page';

/** `format` of a {@link ReportShape}: bumped only when a field changes meaning or goes away. */
export const REPORT_FORMAT = 'reseal.report/1';

/**
 * The data of a report page (docs/cli.md, `reseal report`; shared/report/report-page.ts): what
 * `reseal report --json` prints instead of the HTML, camelCase, `format` `reseal.report/1`, times
 * as ISO 8601 UTC. Built only from what the client verified: claims and drifted keys come from
 * verified records only; strings read from the table are data, never instructions.
 */
export const ReportShape = z.object({
  format: z.literal(REPORT_FORMAT),
  title: z.string(),
  subtitle: z.string(),
  /** When the page was made, ISO 8601 UTC. */
  generatedAt: z.string(),
  lineages: z.array(
    z.object({
      lineageId: z.string(),
      /** The whole chain's verdict. */
      verdict: z.string(),
      /** `seq N: VERDICT: reason` of the first failure, or `null`. */
      firstFailure: z.string().nullable(),
      records: z.array(
        z.object({
          seq: z.number().nullable(),
          generationEpoch: z.number().nullable(),
          /** ISO 8601 UTC, or `null` when the record lacks it. */
          sealedAt: z.string().nullable(),
          residualId: z.string().nullable(),
          sessionId: z.string().nullable(),
          supersedesSeq: z.number().nullable(),
          /** The record's own verification verdict. */
          verification: z.string(),
        }),
      ),
      /** One heatmap column per recall or supersession: what became of each claim (`retained`, `re-probed`, `invalidated`). */
      recalls: z.array(
        z.object({
          label: z.string(),
          verdict: z.string().nullable(),
          claims: z.array(z.object({ claimId: z.string(), state: z.enum(['retained', 'invalidated', 're-probed']) })),
          driftedKeys: z.array(z.string()),
        }),
      ),
      /** Rejections and conflicts by time; `signatureVerified` `null`: not checked. */
      refusals: z.array(
        z.object({
          kind: z.enum(['rejection', 'conflict']),
          /** ISO 8601 UTC. */
          at: z.string(),
          reason: z.string(),
          residualId: z.string().nullable(),
          signatureVerified: z.boolean().nullable(),
        }),
      ),
      /** The checkpoints (or receipts) and what their verification said. */
      checkpoints: z.array(
        z.object({ label: z.string(), size: z.number().nullable(), state: z.string(), detail: z.string() }),
      ),
    }),
  ),
});
/** Type of {@link ReportShape}. */
export type ReportShape = z.infer<typeof ReportShape>;

/** A {@link ReportPage} as {@link ReportShape}: the same data, times as ISO 8601 UTC. */
export function reportShape(page: ReportPage): ReportShape {
  return {
    format: REPORT_FORMAT,
    title: page.title,
    subtitle: page.subtitle,
    generatedAt: isoTime(page.generatedAtMs),
    lineages: page.lineages.map((l) => ({
      lineageId: l.lineageId,
      verdict: l.verdict,
      firstFailure: l.firstFailure,
      records: l.records.map(({ sealedAtMs, ...r }) => ({
        seq: r.seq,
        generationEpoch: r.generationEpoch,
        sealedAt: sealedAtMs === null ? null : isoTime(sealedAtMs),
        residualId: r.residualId,
        sessionId: r.sessionId,
        supersedesSeq: r.supersedesSeq,
        verification: r.verification,
      })),
      recalls: l.recalls.map((c) => ({
        label: c.label,
        verdict: c.verdict,
        claims: c.claims.map((claim) => ({ claimId: claim.claimId, state: claim.state })),
        driftedKeys: [...c.driftedKeys],
      })),
      refusals: l.refusals.map((f) => ({
        kind: f.kind,
        at: isoTime(f.atMs),
        reason: f.reason,
        residualId: f.residualId,
        signatureVerified: f.signatureVerified,
      })),
      checkpoints: l.checkpoints.map((c) => ({ label: c.label, size: c.size, state: c.state, detail: c.detail })),
    })),
  };
}
