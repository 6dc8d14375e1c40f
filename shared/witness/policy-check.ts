import { InvalidInputError, NoteVerificationError } from '../errors';
import { type Checkpoint, parseCheckpointBody } from '../log/checkpoint';
import { parseSignedNote, verifyNote } from '../log/signed-note';
import { verifyCosignature } from './cosignature';
import { claimsCosigner } from './cosigner-key';
import { quorumMet } from './quorum-met';
import type { TlogPolicy } from './tlog-policy';

/**
 * Whether a cosigned checkpoint meets a tlog policy **now**: signed by one of the policy's logs,
 * and cosigned by a quorum of its witnesses whose cosignatures are no older than `maxAgeSeconds`
 * (docs/witness.md, "Quorum and maximum age"). Freshness comes from cosignature timestamps only,
 * never from asking a witness: a quorum older than the maximum age is refused whatever else
 * holds, so a checkpoint replayed after the log moved on stops passing once it ages out.
 */

/** Why a checkpoint does not meet the policy. */
export const PolicyRefusal = {
  /** No log of the policy has the checkpoint's origin as its key name. */
  UNKNOWN_LOG: 'UNKNOWN_LOG',
  /** No signature by the origin's log key verifies, or one by it fails. */
  LOG_SIGNATURE_INVALID: 'LOG_SIGNATURE_INVALID',
  /** A line claiming a policy witness (name and key ID) is not a valid cosignature of this checkpoint. */
  FORGED_COSIGNATURE: 'FORGED_COSIGNATURE',
  /** The valid cosignatures would meet the quorum, but not those within the maximum age. */
  QUORUM_STALE: 'QUORUM_STALE',
  /** Not enough valid cosignatures, whatever their age. */
  QUORUM_NOT_MET: 'QUORUM_NOT_MET',
} as const;
/** One of {@link PolicyRefusal}. */
export type PolicyRefusal = (typeof PolicyRefusal)[keyof typeof PolicyRefusal];

/** Input of {@link checkPolicy}. */
export interface PolicyCheckInput {
  /** The checkpoint's signed note with its cosignature lines. */
  readonly note: string;
  readonly policy: TlogPolicy;
  /** Oldest acceptable cosignature, in seconds before `nowSeconds`: a positive safe integer. */
  readonly maxAgeSeconds: number;
  /** The verifier's clock, POSIX seconds (injected: tests need no sleep). */
  readonly nowSeconds: number;
  /** Cosignatures up to this far in the future still count (clock skew). @default 60 */
  readonly maxSkewSeconds?: number;
}

/** The checkpoint meets the policy. */
export interface PolicyAccepted {
  readonly kind: 'ACCEPTED';
  readonly checkpoint: Checkpoint;
  /** Fresh, valid cosigners by policy name, newest first. */
  readonly witnesses: readonly { readonly name: string; readonly timestamp: number }[];
  /**
   * The time as of which a quorum held: the oldest timestamp among the newest cosignatures that
   * meet the quorum. `null` for `quorum none` (no freshness statement at all).
   */
  readonly quorumTime: number | null;
  /** `quorumTime + maxAgeSeconds`: after it, this note no longer passes. `null` with `quorumTime`. */
  readonly freshUntil: number | null;
}

/** The checkpoint does not meet the policy. */
export interface PolicyRefused {
  readonly kind: 'REFUSED';
  readonly refusal: PolicyRefusal;
  readonly reason: string;
}

const refused = (refusal: PolicyRefusal, reason: string): PolicyRefused => ({ kind: 'REFUSED', refusal, reason });

function requireSeconds(value: number, path: string, positive: boolean): void {
  if (!Number.isSafeInteger(value) || value < (positive ? 1 : 0)) {
    throw new InvalidInputError('policy check', [
      { path, message: `expected a safe ${positive ? 'positive' : 'non-negative'} integer of seconds` },
    ]);
  }
}

/**
 * Checks a cosigned checkpoint against a policy at `nowSeconds`.
 *
 * @returns ACCEPTED with the counted witnesses and the quorum's time, or REFUSED with a
 *   {@link PolicyRefusal}
 * @throws {NoteFormatError} / {@link CheckpointFormatError} when the note or its text is malformed
 * @throws {InvalidInputError} for a maximum age, clock or skew that is not whole seconds
 */
export function checkPolicy(input: PolicyCheckInput): PolicyAccepted | PolicyRefused {
  const { note, policy, maxAgeSeconds, nowSeconds } = input;
  const maxSkew = input.maxSkewSeconds ?? 60;
  requireSeconds(maxAgeSeconds, 'maxAgeSeconds', true);
  requireSeconds(nowSeconds, 'nowSeconds', false);
  requireSeconds(maxSkew, 'maxSkewSeconds', false);
  const { text, signatures } = parseSignedNote(note);
  const checkpoint = parseCheckpointBody(text);

  const logKeys = policy.logs.filter((log) => log.key.name === checkpoint.origin);
  if (logKeys.length === 0) {
    return refused(PolicyRefusal.UNKNOWN_LOG, `no log of the policy signs origin ${JSON.stringify(checkpoint.origin)}`);
  }
  const logSigned = logKeys.some((log) => {
    try {
      verifyNote(note, log.key);
      return true;
    } catch (error) {
      if (error instanceof NoteVerificationError) return false;
      throw error;
    }
  });
  if (!logSigned) return refused(PolicyRefusal.LOG_SIGNATURE_INVALID, 'no valid signature by the log key');

  const valid: { name: string; timestamp: number }[] = [];
  for (const witness of policy.witnesses) {
    const lines = signatures.filter((sig) => claimsCosigner(sig, witness.key));
    let newest: number | null = null;
    for (const line of lines) {
      const timestamp = verifyCosignature(text, line, witness.key);
      if (timestamp === null) {
        return refused(
          PolicyRefusal.FORGED_COSIGNATURE,
          `a cosignature line of witness ${JSON.stringify(witness.name)} does not verify`,
        );
      }
      newest = newest === null ? timestamp : Math.max(newest, timestamp);
    }
    if (newest !== null) valid.push({ name: witness.name, timestamp: newest });
  }

  if (policy.quorum.kind === 'NONE') {
    return { kind: 'ACCEPTED', checkpoint, witnesses: [], quorumTime: null, freshUntil: null };
  }
  const fresh = valid
    .filter((w) => w.timestamp >= nowSeconds - maxAgeSeconds && w.timestamp <= nowSeconds + maxSkew)
    .sort((a, b) => b.timestamp - a.timestamp);
  // The newest cosignatures first: the quorum's time is the oldest one it needs.
  const present = new Set<string>();
  for (const witness of fresh) {
    present.add(witness.name);
    if (quorumMet(policy.quorum, present)) {
      return {
        kind: 'ACCEPTED',
        checkpoint,
        witnesses: fresh,
        quorumTime: witness.timestamp,
        freshUntil: witness.timestamp + maxAgeSeconds,
      };
    }
  }
  if (quorumMet(policy.quorum, new Set(valid.map((w) => w.name)))) {
    return refused(
      PolicyRefusal.QUORUM_STALE,
      `the quorum's cosignatures are older than the maximum age of ${maxAgeSeconds} s (or from the future)`,
    );
  }
  return refused(
    PolicyRefusal.QUORUM_NOT_MET,
    `${valid.length} valid cosignature(s) of ${policy.witnesses.length} witness(es) do not meet the quorum`,
  );
}
