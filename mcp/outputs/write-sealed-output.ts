import { z } from 'zod';
import { HeadOutput } from '../../client/shapes/head-output';
import { WriteSealedShape } from '../../client/shapes/write-outcome-shape';
import { SnapshotOutput } from './snapshot-output';

/**
 * `reseal_write` sealed the write: the {@link WriteSealedShape} `reseal publish --wait --json`
 * prints too (format `reseal.write-outcome/1`: its record proven by `proof` in the signed
 * `checkpoint`, which the server's client keeps, and `freshness`: `PROVEN`, or
 * `SEALED_AWAITING_INTEGRATION` when the wait ran out before the integration; `null` when the
 * server's client checked none), with what the tool adds: the head it superseded, the claims it
 * sealed and the snapshot it took.
 */
export const WriteSealedOutput = WriteSealedShape.extend({
  supersedes: HeadOutput.nullable(),
  /** Claim ids sealed in the manifest, sorted. */
  claims: z.array(z.string()),
  snapshot: SnapshotOutput,
});
/** Type of {@link WriteSealedOutput}. */
export type WriteSealedOutput = z.infer<typeof WriteSealedOutput>;
