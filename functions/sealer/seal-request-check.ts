import { InvalidInputError, ResealError } from '../../shared/errors';
import { evaluateValidatedWrite } from '../../shared/guard/evaluate-write';
import { DEFAULT_MAX_CLOCK_SKEW_SECONDS, GuardPolicySchema } from '../../shared/guard/policy';
import type { RequestViolation } from '../../shared/guard/request-violation';
import type { RejectedVariable } from '../../shared/guard/variable-rejection';
import { RejectionReason } from '../../shared/pipeline/rejection-reason';
import { parseInput } from '../../shared/schemas/parse';
import type { ValidatedSealRequest } from './seal-request-parse';

/**
 * How long a `seal-requests` message can exist, in seconds: the queue's retention period
 * (4 days, infra/constructs/queue-consumer.ts `QUEUE_RETENTION`). A genuine `acceptedAtMs` is
 * never older than this; the sealer handler reads the deployed value from
 * `SEAL_QUEUE_RETENTION_SECONDS`.
 */
export const SEAL_QUEUE_RETENTION_SECONDS = 345_600;

/** The time window and receipt-age policy the sealer re-checks a seal request under. */
export interface SealRequestPolicy {
  /** The sealer's "now", ms since the Unix epoch. */
  readonly nowMs: number;
  /** The guard's receipt age limit, seconds (the same `MAX_RECEIPT_AGE_SECONDS` the guard runs with). */
  readonly maxReceiptAgeSeconds: number;
  /** How far `acceptedAtMs` may lie after `nowMs`, seconds. @default the guard's 5 s skew */
  readonly maxClockSkewSeconds?: number;
  /** Oldest `acceptedAtMs` accepted, seconds before `nowMs`. @default {@link SEAL_QUEUE_RETENTION_SECONDS} */
  readonly maxRequestAgeSeconds?: number;
  /**
   * SQS `SentTimestamp` of the message, ms: set by SQS, not by the sender. When given,
   * `acceptedAtMs` must lie at most {@link MAX_GUARD_SEND_DELAY_SECONDS} before it and at most the
   * clock skew after it, so a sender cannot pick an acceptance time that makes old receipts fresh.
   */
  readonly sentAtMs?: number;
}

/**
 * Longest time, in seconds, between the guard's evaluation (`acceptedAtMs`) and SQS accepting its
 * `SendMessage` (`SentTimestamp`): the guard function's timeout (30 s) twice over.
 */
export const MAX_GUARD_SEND_DELAY_SECONDS = 60;

/**
 * Validates a {@link SealRequestPolicy} and applies its defaults (the handler calls it at cold
 * start, so a bad `MAX_RECEIPT_AGE_SECONDS` or `SEAL_QUEUE_RETENTION_SECONDS` fails there).
 *
 * @throws {InvalidInputError} naming the malformed field (receipt age 1 s to one year, skew 0 to
 *   300 s, request age a positive integer)
 */
export function resolveSealRequestPolicy(policy: SealRequestPolicy) {
  const guardPolicy = parseInput(
    GuardPolicySchema,
    {
      nowMs: policy.nowMs,
      maxReceiptAgeSeconds: policy.maxReceiptAgeSeconds,
      maxClockSkewSeconds: policy.maxClockSkewSeconds ?? DEFAULT_MAX_CLOCK_SKEW_SECONDS,
    },
    'sealer guard policy',
  );
  const maxRequestAgeSeconds = policy.maxRequestAgeSeconds ?? SEAL_QUEUE_RETENTION_SECONDS;
  if (!Number.isSafeInteger(maxRequestAgeSeconds) || maxRequestAgeSeconds < 1) {
    throw new InvalidInputError('sealer guard policy', [
      { path: 'maxRequestAgeSeconds', message: `must be a positive integer, got ${maxRequestAgeSeconds}` },
    ]);
  }
  return { ...guardPolicy, maxRequestAgeSeconds };
}

/** Why {@link checkSealRequest} refused a seal request (both are `RejectionReason`s). */
export type SealRequestRefusalReason =
  | typeof RejectionReason.VERDICT_MISMATCH
  | typeof RejectionReason.ACCEPTANCE_TIME_INVALID;

/** A refused seal request: reason, human detail, and the recomputed verdict's lists when there is one. */
export interface SealRequestRefusal {
  readonly reason: SealRequestRefusalReason;
  readonly detail: string;
  readonly rejectedVariables: readonly RejectedVariable[];
  readonly requestViolations: readonly RequestViolation[];
}

/**
 * The sealer's own check that a `seal-requests` message is genuine guard output, so that
 * skipping the guard (sending straight to the FIFO queue) seals nothing (the guard
 * must be fail-closed; the header's `verdictDigest` binds the record to the guard's
 * decision, which is only meaningful if the sealer does not take the digest on trust).
 *
 * A seal request passes only when all hold:
 * 1. `acceptedAtMs` is at most `maxClockSkewSeconds` after `nowMs` (the guard's clock-skew
 *    tolerance) and at most `maxRequestAgeSeconds` (the queue's retention) before it, and, when
 *    the SQS `SentTimestamp` is given, within {@link MAX_GUARD_SEND_DELAY_SECONDS} before it;
 * 2. `evaluateWrite(request, { nowMs: acceptedAtMs, maxReceiptAgeSeconds, maxClockSkewSeconds })`
 *    — the guard's own rules, at the moment the guard accepted the write — is safe;
 * 3. that recomputed verdict's `verdictDigest` equals the carried `verdict.verdictDigest`.
 * `evaluateWrite` reads no clock and its digest is deterministic, so genuine guard output always
 * passes when the sealer runs with the guard's policy.
 *
 * Residual risk: a sender with rights on the queue can still choose `acceptedAtMs` inside the
 * minute before its own send; the queue policy (only the guard's role may send) closes that.
 *
 * @param sealRequest - a {@link SealRequest} validated at the sealer's boundary (untrusted content, valid shape)
 * @param policy - see {@link SealRequestPolicy}
 * @returns `null` when the request may be sealed, else the refusal (permanent: never retried)
 * @throws {InvalidInputError} when the policy itself is malformed (a configuration error: the
 *   message is retried, never sealed)
 */
export function checkSealRequest(
  sealRequest: ValidatedSealRequest,
  policy: SealRequestPolicy,
): SealRequestRefusal | null {
  const { maxRequestAgeSeconds, ...guardPolicy } = resolveSealRequestPolicy(policy);
  const { maxClockSkewSeconds } = guardPolicy;
  const { acceptedAtMs, request, verdict } = sealRequest;
  const refuse = (reason: SealRequestRefusalReason, detail: string, lists?: Partial<SealRequestRefusal>) => ({
    reason,
    detail,
    rejectedVariables: lists?.rejectedVariables ?? [],
    requestViolations: lists?.requestViolations ?? [],
  });

  const aheadMs = acceptedAtMs - policy.nowMs;
  if (aheadMs > maxClockSkewSeconds * 1000) {
    return refuse(
      RejectionReason.ACCEPTANCE_TIME_INVALID,
      `acceptedAtMs lies ${aheadMs} ms after now; at most ${maxClockSkewSeconds} s of clock skew is tolerated`,
    );
  }
  if (-aheadMs > maxRequestAgeSeconds * 1000) {
    return refuse(
      RejectionReason.ACCEPTANCE_TIME_INVALID,
      `acceptedAtMs lies ${-aheadMs} ms before now, longer than the seal-requests retention of ${maxRequestAgeSeconds} s`,
    );
  }

  if (policy.sentAtMs !== undefined) {
    const lagMs = policy.sentAtMs - acceptedAtMs;
    if (lagMs > MAX_GUARD_SEND_DELAY_SECONDS * 1000 || -lagMs > maxClockSkewSeconds * 1000) {
      return refuse(
        RejectionReason.ACCEPTANCE_TIME_INVALID,
        `acceptedAtMs lies ${lagMs} ms before the message's SQS SentTimestamp; the guard sends within ${MAX_GUARD_SEND_DELAY_SECONDS} s of accepting (−${maxClockSkewSeconds} s skew)`,
      );
    }
  }

  let recomputed: ReturnType<typeof evaluateValidatedWrite>;
  try {
    // The write was validated with the seal request: the guard's rules run without a second parse.
    recomputed = evaluateValidatedWrite(request, { ...guardPolicy, nowMs: acceptedAtMs });
  } catch (error) {
    // The schema passed, so only a request the guard would refuse as malformed lands here.
    if (!(error instanceof ResealError)) throw error;
    return refuse(RejectionReason.VERDICT_MISMATCH, `the guard would not judge this request: ${error.message}`);
  }
  if (!recomputed.isSafe) {
    return refuse(
      RejectionReason.VERDICT_MISMATCH,
      `the carried verdict says safe, but the guard's rules at acceptedAtMs ${acceptedAtMs} refuse the write (verdict ${recomputed.verdictDigest})`,
      recomputed,
    );
  }
  if (recomputed.verdictDigest !== verdict.verdictDigest) {
    return refuse(
      RejectionReason.VERDICT_MISMATCH,
      `the carried verdictDigest ${verdict.verdictDigest} is not the guard's ${recomputed.verdictDigest} for this request`,
    );
  }
  return null;
}
