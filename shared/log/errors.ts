import { InvalidInputError, ResealError } from '../errors';

/**
 * Domain errors of the verifiable log. Proof verification outcomes are booleans, never errors:
 * these errors mean a text could not be read, a node could not be found, or a note carries no
 * valid signature by the key asked for.
 */

/**
 * A checkpoint body (C2SP tlog-checkpoint) is malformed, or a `Checkpoint` cannot be
 * written as one. Extends {@link InvalidInputError} with one issue at path `origin`, `size`,
 * `rootHash` or `""` (the text as a whole), so callers that treat malformed input as "cannot
 * evaluate" handle it without a new branch.
 */
export class CheckpointFormatError extends InvalidInputError {
  constructor(path: string, message: string, options?: ErrorOptions) {
    super('checkpoint', [{ path, message }], options);
    this.name = 'CheckpointFormatError';
  }
}

/**
 * A signed note (C2SP signed-note) is malformed, or a text and signatures cannot be written as
 * one. Extends {@link InvalidInputError} with one issue at path `text`, `signatures.<i>` or `""`.
 */
export class NoteFormatError extends InvalidInputError {
  constructor(path: string, message: string, options?: ErrorOptions) {
    super('signed note', [{ path, message }], options);
    this.name = 'NoteFormatError';
  }
}

/**
 * A well-formed note carries no valid signature by the expected key, or a signature by that key
 * fails (C2SP signed-note: a failing signature from a known key rejects the whole note, so a
 * forged line next to a genuine one is never overlooked).
 */
export class NoteVerificationError extends ResealError {
  /** Key name that was expected. */
  readonly keyName: string;
  constructor(keyName: string, reason: string, options?: ErrorOptions) {
    super(`note not verified for key ${keyName}: ${reason}`, options);
    this.name = 'NoteVerificationError';
    this.keyName = keyName;
  }
}

/** A verified checkpoint names another log than the one the caller asked about. */
export class CheckpointOriginMismatchError extends ResealError {
  readonly expectedOrigin: string;
  readonly actualOrigin: string;
  constructor(expectedOrigin: string, actualOrigin: string, options?: ErrorOptions) {
    super(`checkpoint origin is ${JSON.stringify(actualOrigin)}, expected ${JSON.stringify(expectedOrigin)}`, options);
    this.name = 'CheckpointOriginMismatchError';
    this.expectedOrigin = expectedOrigin;
    this.actualOrigin = actualOrigin;
  }
}

/**
 * A node hash a proof needs is not stored (a `NodeSource` rejects with it). For a store that
 * persists every `completed` node of `appendLeaf`, this means lost or never-written data.
 */
export class MerkleNodeMissingError extends ResealError {
  /** Height of the missing perfect subtree (0 = a leaf). */
  readonly level: number;
  /** Its position among the subtrees of that height. */
  readonly index: number;
  constructor(level: number, index: number, options?: ErrorOptions) {
    super(`Merkle node (level ${level}, index ${index}) is not stored`, options);
    this.name = 'MerkleNodeMissingError';
    this.level = level;
    this.index = index;
  }
}

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
