import { SupersedesSchema } from '../shared/seal/supersedes';

/**
 * The `checkpoint` argument of the walks, `reseal_verify` and `reseal_inspect`: the head the
 * stored tail is checked against instead of the signed log's last record.
 */
export const WalkCheckpointArg = SupersedesSchema.optional().describe(
  'a record you trust, { seq, recordHash }, to check the tail against (default: the last record of the tree head)',
);
