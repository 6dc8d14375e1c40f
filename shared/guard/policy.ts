import { z } from 'zod';
import { EpochMillis } from '../schemas/primitives';

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
  /** Oldest receipt accepted, in whole seconds: 1 to one year. */
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
 * How strict the stale-state guard is about time (DESIGN.md "Hardening", Guard).
 *
 * `{ nowMs: number; maxReceiptAgeSeconds: number; maxClockSkewSeconds?: number }`
 */
export type GuardPolicy = z.input<typeof GuardPolicySchema>;
/** A {@link GuardPolicy} after validation, with defaults applied. */
export type ResolvedGuardPolicy = z.output<typeof GuardPolicySchema>;
