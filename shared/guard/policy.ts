import { z } from 'zod';
import { EpochMillis } from '../schemas/epoch-millis';
import { parseInput } from '../schemas/parse';

/**
 * The receipt age every Reseal entry point uses when none is configured, in seconds (15 minutes):
 * the deployed guard (`functions/guard/handler.ts`, `MAX_RECEIPT_AGE_SECONDS` set by
 * `infra/reseal-stack.ts`) and `reseal guard` on the command line, so the offline check predicts
 * the pipeline.
 *
 * Why 900 s: a receipt proves a value was current when probed (docs/guard.md, rules V3 and R6),
 * and every second of age is time for a resource to vanish or a token to be revoked. 900 s is the shortest session AWS STS issues, so a receipt this old can
 * still describe a credential that is alive; it leaves ample room for the SQS hop (an agent
 * probes, then sends at once), and a write whose retries outlast it is refused with
 * `RECEIPT_EXPIRED` (fail closed: re-probe and resend), never accepted stale.
 */
export const DEFAULT_MAX_RECEIPT_AGE_SECONDS = 900;
/** Clock skew tolerated when no `maxClockSkewSeconds` is given, in seconds. */
export const DEFAULT_MAX_CLOCK_SKEW_SECONDS = 5;
/** Longest receipt age a policy may allow, in seconds (one year). */
export const MAX_RECEIPT_AGE_LIMIT_SECONDS = 31_536_000;
/** Largest clock skew a policy may tolerate, in seconds. */
export const MAX_CLOCK_SKEW_LIMIT_SECONDS = 300;

/**
 * Schema of a {@link GuardPolicy}: strict object, unknown fields refused.
 * `maxClockSkewSeconds` defaults to {@link DEFAULT_MAX_CLOCK_SKEW_SECONDS}.
 */
export const GuardPolicySchema = z.strictObject({
  /** The guard's "now", milliseconds since the Unix epoch (UTC); the guard reads no clock itself. */
  nowMs: EpochMillis,
  /** Oldest receipt accepted, in whole seconds: 1 to one year (entry points default to {@link DEFAULT_MAX_RECEIPT_AGE_SECONDS}). */
  maxReceiptAgeSeconds: z.number().int().min(1).max(MAX_RECEIPT_AGE_LIMIT_SECONDS),
  /** How far in the future a receipt's or boundary's time may lie, in whole seconds: 0 to 300. */
  maxClockSkewSeconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_CLOCK_SKEW_LIMIT_SECONDS)
    .optional()
    .default(DEFAULT_MAX_CLOCK_SKEW_SECONDS),
});

/**
 * How strict the stale-state guard is about time (docs/guard.md, "Time" and "Default receipt age").
 *
 * `{ nowMs: number; maxReceiptAgeSeconds: number; maxClockSkewSeconds?: number }`
 */
export type GuardPolicy = z.input<typeof GuardPolicySchema>;
/** A {@link GuardPolicy} after validation, with defaults applied. */
export type ResolvedGuardPolicy = z.output<typeof GuardPolicySchema>;

/**
 * Validates a {@link GuardPolicy} and applies its defaults.
 *
 * @throws {InvalidInputError} naming the malformed field
 */
export function resolveGuardPolicy(policy: GuardPolicy): ResolvedGuardPolicy {
  return parseInput(GuardPolicySchema, policy, 'guard policy');
}
