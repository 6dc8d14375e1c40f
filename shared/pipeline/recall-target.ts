import { z } from 'zod';
import { Identifier } from '../schemas/identifier';
import { NonNegativeInt } from '../schemas/non-negative-int';

/** Which record a recall asks for: a seq, a residual id, or the latest (docs/pipeline.md, "Message shapes": `RecallRequested`). */
export const RecallTargetSchema = z.union([
  z.strictObject({ seq: NonNegativeInt }),
  z.strictObject({ residualId: Identifier }),
  z.strictObject({ latest: z.literal(true) }),
]);
/** Type of {@link RecallTargetSchema}. */
export type RecallTarget = z.infer<typeof RecallTargetSchema>;
