/**
 * Messages of `seal-requests` one sealer invocation takes at most: 10, the most an SQS FIFO event
 * source delivers at once (the stack sets it; docs/infrastructure.md, "Resources"). Each message
 * settles as at most one announced record, so this also bounds the runs of one invocation's
 * `ResidualSealed` detail (`MAX_RESIDUAL_SEALED_RUNS`).
 */
export const SEALER_BATCH_SIZE = 10;
