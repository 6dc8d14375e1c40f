import { InvalidInputError, ResealError } from '../errors';
import { checkPolicy } from '../witness/policy-check';
import type { TlogPolicy } from '../witness/tlog-policy';

/**
 * The default heartbeat threshold for a maximum age, seconds: a third of it (docs/deployment-log.md,
 * "Freshness window and interval"). A heartbeat re-cosigns once the published quorum is at least
 * this old, so with a schedule period `p` a client sees a quorum at most `threshold + p` old
 * (120 s at the defaults 180 s and one minute), well inside the maximum age.
 *
 * @throws {InvalidInputError} when `maxAgeSeconds` is not a whole number of seconds ≥ 3
 */
export function heartbeatThresholdSeconds(maxAgeSeconds: number): number {
  if (!Number.isSafeInteger(maxAgeSeconds) || maxAgeSeconds < 3) {
    throw new InvalidInputError('heartbeat', [
      { path: 'maxAgeSeconds', message: 'expected a whole number of seconds, 3 or more' },
    ]);
  }
  return Math.floor(maxAgeSeconds / 3);
}

/** Input of {@link heartbeatDue}. */
export interface HeartbeatDueInput {
  /** The head item's `published` note, already authenticated against the head (`authenticatePublished`), or `null`. */
  readonly published: string | null;
  /** Leaves of the authenticated deployment head. */
  readonly headSize: number;
  readonly policy: TlogPolicy;
  /** The policy's maximum age, seconds. */
  readonly maxAgeSeconds: number;
  /** Re-cosign once the quorum is this old, seconds ({@link heartbeatThresholdSeconds}). */
  readonly thresholdSeconds: number;
  /** POSIX seconds. */
  readonly nowSeconds: number;
}

/** Whether a heartbeat submits the head again, and why. */
export type HeartbeatDecision =
  | {
      readonly kind: 'FRESH';
      /** When the quorum held, POSIX seconds; `null` under `quorum none` (nothing ages). */
      readonly quorumTime: number | null;
      readonly ageSeconds: number | null;
    }
  | {
      readonly kind: 'DUE';
      /** `AGED`: the quorum is at least the threshold old; `UNPUBLISHED`: the head (or no note) lacks a quorum now. */
      readonly reason: 'AGED' | 'UNPUBLISHED';
    };

/**
 * Decides a heartbeat (docs/deployment-log.md, "Freshness window and interval"), pure: the
 * published note is fresh when it is the head's own checkpoint and meets the policy now with a
 * quorum younger than the threshold; anything else is due (an aged quorum, a head never
 * published because the witness refused or was unreachable, a note that no longer meets the
 * policy). Under steady writes each integration publishes anew, so the heartbeat finds `FRESH`.
 */
export function heartbeatDue(input: HeartbeatDueInput): HeartbeatDecision {
  const { published, headSize, policy, maxAgeSeconds, thresholdSeconds, nowSeconds } = input;
  if (published === null) return { kind: 'DUE', reason: 'UNPUBLISHED' };
  let check: ReturnType<typeof checkPolicy>;
  try {
    check = checkPolicy({ note: published, policy, maxAgeSeconds, nowSeconds });
  } catch (error) {
    // A malformed note meets no policy: it is replaced by the heartbeat's.
    if (error instanceof ResealError) return { kind: 'DUE', reason: 'UNPUBLISHED' };
    throw error;
  }
  if (check.kind !== 'ACCEPTED' || check.checkpoint.size !== headSize) return { kind: 'DUE', reason: 'UNPUBLISHED' };
  // `quorum none` makes no freshness statement: there is nothing to keep fresh.
  if (check.quorumTime === null) return { kind: 'FRESH', quorumTime: null, ageSeconds: null };
  const ageSeconds = nowSeconds - check.quorumTime;
  if (ageSeconds >= thresholdSeconds) return { kind: 'DUE', reason: 'AGED' };
  return { kind: 'FRESH', quorumTime: check.quorumTime, ageSeconds };
}
