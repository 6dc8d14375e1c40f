/** Where a write was refused (docs/pipeline.md, "Message shapes": `ResidualRejected`). */
export const RejectionStage = { GUARD: 'GUARD', SEALER: 'SEALER' } as const;
/** One of {@link RejectionStage}. */
export type RejectionStage = (typeof RejectionStage)[keyof typeof RejectionStage];
