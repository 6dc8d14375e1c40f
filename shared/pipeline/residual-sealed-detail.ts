import { z } from 'zod';
import { ResidualSealedRunSchema } from './residual-sealed-run';

/** `v` of a {@link ResidualSealedDetail}: 2, the detail of one event per sealer invocation (1 was one event per record). */
export const RESIDUAL_SEALED_VERSION = 2;

/**
 * `detail` of a `ResidualSealed` event (docs/pipeline.md, "Message shapes"; strict): every run
 * one sealer invocation sealed or re-announced, one event per invocation (EventBridge bills per
 * entry), split only where one entry would pass EventBridge's 256 KiB (`residualSealedDetails`).
 * A write is proven once integrated: the deployment chain, not this event, commits to it
 * (docs/verifiable-log.md).
 */
export const ResidualSealedDetailSchema = z.strictObject({
  v: z.literal(RESIDUAL_SEALED_VERSION),
  runs: z.array(ResidualSealedRunSchema).min(1),
});
/** Type of {@link ResidualSealedDetailSchema}. */
export type ResidualSealedDetail = z.infer<typeof ResidualSealedDetailSchema>;
