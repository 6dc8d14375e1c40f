import { z } from 'zod';
import { ResealError } from '../../shared/errors';
import type { ServiceLogger } from '../common/service-logger';
import type { IntegratorService } from './integrator-service';

/** The operator's direct invocation of the integrator function (docs/deployment-log.md, "Re-anchor"). */
export const ReAnchorEventSchema = z
  .object({
    reAnchor: z
      .string()
      .min(1)
      .max(16 * 1024),
  })
  .strict();
/** A parsed {@link ReAnchorEventSchema} event. */
export type ReAnchorEvent = z.infer<typeof ReAnchorEventSchema>;

/** Whether a Lambda event is the operator's re-anchor invocation (an object with a `reAnchor` field), not a queue batch. */
export function isReAnchorEvent(event: unknown): boolean {
  return typeof event === 'object' && event !== null && 'reAnchor' in event;
}

/** The answer to the operator: the report, or why nothing was stored. */
export type ReAnchorAnswer =
  | { readonly ok: true; readonly size: number; readonly published: string; readonly reAnchor: unknown }
  | { readonly ok: false; readonly error: string; readonly retryable: boolean };

/**
 * The integrator function's re-anchor entry (`lambda:InvokeFunction` with `{ "reAnchor": <note> }`,
 * which `scripts/re-anchor.ts` sends): the statement goes to `IntegratorService.reAnchor`, whose
 * checks come before any signature. A refusal is an answer (`ok: false`, logged), never a retry:
 * a direct invocation is not redelivered. Infrastructure failures throw.
 */
export function createReAnchorHandler(service: IntegratorService, logger: ServiceLogger) {
  return async (event: unknown): Promise<ReAnchorAnswer> => {
    const parsed = ReAnchorEventSchema.safeParse(event);
    if (!parsed.success) return { ok: false, error: 'expected { "reAnchor": "<statement note>" }', retryable: false };
    try {
      const report = await service.reAnchor(parsed.data.reAnchor);
      return { ok: true, size: report.size, published: report.published, reAnchor: report.reAnchor };
    } catch (error) {
      if (!(error instanceof ResealError)) throw error;
      logger.error('re-anchor refused', { error: error.message });
      return { ok: false, error: error.message, retryable: error.retryable };
    }
  };
}
