import { z } from 'zod';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';

/** Where the environment snapshot of a write or recall came from. */
export const SnapshotOutput = z.object({
  /** `caller`: the tool call's `env`; `providers`: taken by the configured snapshot providers. */
  source: z.enum(['caller', 'providers']),
  /** Number of keys in it. */
  keys: NonNegativeInt,
  /** Keys the providers could not take (e.g. `tool:docker: not run (spawn docker ENOENT)`). */
  notes: z.array(z.string()),
});
/** Type of {@link SnapshotOutput}. */
export type SnapshotOutput = z.infer<typeof SnapshotOutput>;
