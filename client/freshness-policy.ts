import { InvalidInputError } from '../shared/errors';
import { formatVerifierKey, type NoteVerifierKey } from '../shared/log/note-key';
import { parsePolicy, type TlogPolicy } from '../shared/witness/tlog-policy';

/** The default maximum age of a quorum of cosignatures, seconds; the stack deploys with it (docs/deployment-log.md). */
export const DEFAULT_MAX_AGE_SECONDS = 180;
/** The default integration interval, seconds; the stack deploys with it (docs/deployment-log.md, "Freshness window and interval"). */
export const DEFAULT_INTEGRATION_INTERVAL_SECONDS = 2;

/**
 * Whether a policy asks for witnesses: `UNWITNESSED` (`quorum none`, the log alone) proves what
 * the log signed, but a cold client cannot detect a rollback of the whole table, deployment log
 * included (docs/deployment-log.md, "Clients").
 */
export type PolicyWitnessing = 'WITNESSED' | 'UNWITNESSED';

/** The C2SP tlog-policy a client checks deployment checkpoints against, with the settings tlog-policy has no line for. */
export interface FreshnessPolicy {
  /** The policy text, as given (or as {@link defaultPolicyText} wrote it). */
  readonly text: string;
  readonly policy: TlogPolicy;
  /** Oldest acceptable quorum of cosignatures, seconds. */
  readonly maxAgeSeconds: number;
  /** The stack's integration interval, seconds: how long a write may wait to be integrated. */
  readonly intervalSeconds: number;
  readonly witnessing: PolicyWitnessing;
  /**
   * The freshness window of a cold client, `maxAgeSeconds + intervalSeconds` (docs/witness.md,
   * "The freshness window of a cold client"); `null` when unwitnessed: no window at all.
   */
  readonly windowSeconds: number | null;
}

/** A witness of the default policy: its cosigner vkey and submission URL (the witness stack's `WitnessVkey` and `WitnessUrl`). */
export interface DefaultPolicyWitness {
  readonly vkey: string;
  readonly url: string;
}

/**
 * The default policy of a stack (docs/deployment-log.md, "Clients"): its log key; with a witness,
 * that witness and `quorum w1`; without one, `quorum none` (the log alone, `UNWITNESSED`).
 */
export function defaultPolicyText(logKey: NoteVerifierKey, witness?: DefaultPolicyWitness): string {
  const log = `log ${formatVerifierKey(logKey)}\n`;
  if (!witness) return `${log}quorum none\n`;
  return `${log}witness w1 ${witness.vkey} ${witness.url}\nquorum w1\n`;
}

/**
 * Reads a policy text and its settings into a {@link FreshnessPolicy}.
 *
 * @throws {PolicyFormatError} naming the line of a malformed policy
 * @throws {InvalidInputError} when the maximum age or the interval is not a positive whole number of seconds
 */
export function freshnessPolicy(
  text: string,
  maxAgeSeconds = DEFAULT_MAX_AGE_SECONDS,
  intervalSeconds = DEFAULT_INTEGRATION_INTERVAL_SECONDS,
): FreshnessPolicy {
  for (const [path, value] of [
    ['maxAgeSeconds', maxAgeSeconds],
    ['intervalSeconds', intervalSeconds],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new InvalidInputError('freshness policy', [
        { path, message: 'expected a positive whole number of seconds' },
      ]);
    }
  }
  const policy = parsePolicy(text);
  const witnessed = policy.quorum.kind !== 'NONE';
  return {
    text,
    policy,
    maxAgeSeconds,
    intervalSeconds,
    witnessing: witnessed ? 'WITNESSED' : 'UNWITNESSED',
    windowSeconds: witnessed ? maxAgeSeconds + intervalSeconds : null,
  };
}
