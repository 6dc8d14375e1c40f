import { z } from 'zod';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';
import type { FreshnessPolicy } from '../freshness-policy';

/** `format` of a {@link PolicyShape}: bumped only when a field changes meaning or goes away. */
export const POLICY_FORMAT = 'reseal.policy/1';

/**
 * The C2SP tlog-policy a client checks deployment checkpoints against, with the settings
 * tlog-policy has no line for (docs/cli.md, "Freshness"; docs/deployment-log.md, "Clients"): the
 * shape `reseal policy --json` prints (camelCase, `format` `reseal.policy/1`). Save `policy` as a
 * file and pass it with `--policy` (or `RESEAL_POLICY` to `reseal mcp`).
 */
export const PolicyShape = z.object({
  format: z.literal(POLICY_FORMAT),
  /** The tlog-policy text (`log`, `witness` and `quorum` lines), newline-terminated. */
  policy: z.string(),
  /** `UNWITNESSED` (`quorum none`): the log alone; a cold client cannot detect a rollback of the whole table. */
  witnessing: z.enum(['WITNESSED', 'UNWITNESSED']),
  /** Oldest quorum of cosignatures accepted, seconds. */
  maxAgeSeconds: NonNegativeInt,
  /** The stack's integration interval, seconds: how long a write may wait to be integrated. */
  intervalSeconds: NonNegativeInt,
  /** Freshness window of a cold client, `maxAgeSeconds + intervalSeconds`; `null` when unwitnessed (no window at all). */
  windowSeconds: NonNegativeInt.nullable(),
});
/** Type of {@link PolicyShape}. */
export type PolicyShape = z.infer<typeof PolicyShape>;

/** The {@link PolicyShape} of a client's freshness policy. */
export function policyShape(policy: FreshnessPolicy): PolicyShape {
  return {
    format: POLICY_FORMAT,
    policy: policy.text,
    witnessing: policy.witnessing,
    maxAgeSeconds: policy.maxAgeSeconds,
    intervalSeconds: policy.intervalSeconds,
    windowSeconds: policy.windowSeconds,
  };
}
