import { ResealError } from '../errors';

// (merge: the log-core branch adds the format and verification errors above these)

/** The signing key cannot be used (disabled, missing, throttled, unreachable, or not Ed25519). */
export class SignerUnavailableError extends ResealError {
  readonly keyId: string;
  constructor(keyId: string, reason: string, options?: ErrorOptions) {
    super(`signing key ${keyId} unavailable: ${reason}`, options);
    this.name = 'SignerUnavailableError';
    this.keyId = keyId;
  }
}

/**
 * The log state stored for a lineage (head item: checkpoint, frontier, head header) does not
 * authenticate: a missing or forged checkpoint, a frontier or head that does not hash to its
 * signed root. The sealer never extends such a state (docs/verifiable-log.md, "Appending").
 */
export class LogStateError extends ResealError {
  readonly lineageId: string;
  constructor(lineageId: string, reason: string, options?: ErrorOptions) {
    super(`lineage ${lineageId}: stored log state does not authenticate: ${reason}`, options);
    this.name = 'LogStateError';
    this.lineageId = lineageId;
  }
}
