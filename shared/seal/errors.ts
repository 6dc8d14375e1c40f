import { ResealError } from '../errors';

/**
 * Domain errors of sealing (seed 003). Verification outcomes (`HASH_MISMATCH`,
 * `LINEAGE_BROKEN`, …) are return values of `verifyChain`, never errors: these errors mean a
 * seal could not be made, or an anchor could not be used at all.
 */

/**
 * A seal was asked for with a `generationEpoch` older than the lineage head's: the generation
 * epoch is a fencing token, so a zombie predecessor cannot append after its successor has
 * (docs/guard.md, "The fencing token beyond the guard").
 */
export class StaleEpochError extends ResealError {
  readonly lineageId: string;
  /** Epoch of the current head. */
  readonly headEpoch: number;
  /** Epoch the refused write carried (smaller than {@link headEpoch}). */
  readonly requestEpoch: number;
  constructor(lineageId: string, headEpoch: number, requestEpoch: number, options?: ErrorOptions) {
    super(`lineage ${lineageId}: generation epoch ${requestEpoch} is older than the head's ${headEpoch}`, options);
    this.name = 'StaleEpochError';
    this.lineageId = lineageId;
    this.headEpoch = headEpoch;
    this.requestEpoch = requestEpoch;
  }
}

/**
 * The MAC key cannot be used (disabled, missing, unreachable): the local counterpart of KMS
 * `DisabledException` / `NotFoundException`. A verifier that meets it must fail closed with
 * `UNVERIFIED_TAMPER_RISK` (seed 003, "Decision Boundary" 3).
 */
export class AnchorUnavailableError extends ResealError {
  readonly keyId: string;
  constructor(keyId: string, reason: string, options?: ErrorOptions) {
    super(`MAC key ${keyId} cannot be used: ${reason}`, options);
    this.name = 'AnchorUnavailableError';
    this.keyId = keyId;
  }
}

/**
 * An anchor was asked about, or answered for, a key other than its own: a signature naming
 * another key id, or a MAC check under a key this anchor does not hold.
 */
export class AnchorKeyMismatchError extends ResealError {
  /** Key id the anchor holds. */
  readonly expectedKeyId: string;
  /** Key id that was named instead. */
  readonly actualKeyId: string;
  constructor(expectedKeyId: string, actualKeyId: string, options?: ErrorOptions) {
    super(`anchor holds key ${expectedKeyId} but ${actualKeyId} was named`, options);
    this.name = 'AnchorKeyMismatchError';
    this.expectedKeyId = expectedKeyId;
    this.actualKeyId = actualKeyId;
  }
}
