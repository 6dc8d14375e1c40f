/**
 * The errors of the Reseal core, all in this one module (it imports nothing, so every other
 * module of the core may import it), but for `StrictJsonError`, which says why a text is not
 * strict JSON (shared/canonical/strict-json-error.ts). `isRetryable` reads their `retryable`
 * (shared/is-retryable.ts).
 *
 * Every error sets `name` to a string literal (so it survives minified bundles), accepts
 * `ErrorOptions` so an underlying `cause` is kept, and says in {@link ResealError.retryable}
 * whether trying the same operation again can succeed. Callers branch on the class and on the
 * structured fields each error carries, never on its message, which is for people.
 *
 * Outcomes the specification names (verdicts such as `UNVERIFIED_INHERITED`, `HASH_MISMATCH`,
 * `PARTIAL_REPROBE_REQUIRED`) are return values, never errors: an error means the input could not
 * be evaluated at all, or an operation could not be carried out.
 *
 * | error                          | retryable | why                                                        |
 * | ------------------------------ | --------- | ---------------------------------------------------------- |
 * | {@link InvalidInputError} + subclasses | no | the input itself is refused                            |
 * | {@link CanonicalizationError}  | no        | the value has no RFC 8785 form                             |
 * | {@link HeaderTooLargeError}    | no        | the header stays too large                                 |
 * | {@link StaleWriteError}        | no        | the guard refuses the same request again; re-probe first   |
 * | {@link NoteVerificationError}  | no        | the note's signatures do not change                        |
 * | {@link CheckpointOriginMismatchError} | no | the checkpoint names another log                          |
 * | {@link WitnessRequestFormatError} | no     | the add-checkpoint request itself is refused (HTTP 400)    |
 * | {@link PolicyFormatError}      | no        | the tlog policy text is refused                            |
 * | {@link MerkleNodeMissingError} | no        | the node is lost, not late (nodes are written with records) |
 * | {@link IndexNodeMissingError}  | no        | the index node is lost or was edited (nodes are content-addressed) |
 * | {@link LogStateError}          | no        | the stored log state does not authenticate                 |
 * | {@link OutcomeVerificationError} | no      | the statement does not check                               |
 * | {@link AnchorKeyMismatchError} | no        | the anchor holds another key                               |
 * | {@link StaleEpochError}        | no        | the write is fenced out by a newer generation epoch        |
 * | {@link LineageInconsistentError} | no      | the head is behind the records until someone repairs it    |
 * | {@link LineageNotFoundError}   | no        | the lineage does not exist                                 |
 * | {@link SessionHistoryError}    | no        | the sealed session records stay malformed                  |
 * | {@link AnchorUnavailableError} | yes       | the MAC key may be usable later (throttled, unreachable)   |
 * | {@link SignerUnavailableError} | yes       | the signing key may be usable later                        |
 * | {@link WitnessUnavailableError} | yes      | the witness may answer later                               |
 * | {@link EventNotAcceptedError}  | yes       | the event bus may accept the event later                   |
 * | {@link StaleHeadError}         | yes       | lost a race: re-read the head and try again                |
 * | {@link DuplicateResidualError} | yes       | lost a race to the same id: re-reading finds it sealed     |
 * | {@link IntegrationBacklogError} | yes      | the integrator catches up: fewer records to search         |
 * | {@link RecordSeqTakenError}    | yes       | lost a race for a record's seq: re-read (and roll forward) |
 * | {@link HeadNotMovedError}      | yes       | a later run rolls the landed records forward               |
 */

/**
 * Base class of every error Reseal throws (the core, the client, the CLI). Abstract: each
 * subclass decides {@link retryable}.
 */
export abstract class ResealError extends Error {
  /**
   * Whether trying the same operation again (after re-reading what it depends on) can succeed:
   * `true` for a lost race or an unavailable dependency, `false` when the input or the stored
   * state itself is the reason, so a retry gets the same answer. A queue consumer rethrows a
   * retryable error (the message is delivered again) and records a non-retryable one as final.
   */
  abstract readonly retryable: boolean;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ResealError';
  }
}

/**
 * Shows a path as an error message or an issue line does: as is when it is printable ASCII, else as a JSON string literal with every
 * character outside printable ASCII `\u`-escaped, so hostile keys (lone surrogates, control or
 * bidi characters) stay visible and cannot rewrite a terminal line.
 */
export function printableErrorPath(path: string): string {
  if (/^[\x20-\x7e]*$/.test(path)) return path;
  return JSON.stringify(path).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// --- Input -------------------------------------------------------------------------------------

/** One problem found in an input, located by its path (e.g. `variablesUsed.2.receipt.probedAt`). */
export interface InputIssue {
  /** Dotted path of the offending field; `""` for the input as a whole. */
  readonly path: string;
  /** Human-readable explanation. */
  readonly message: string;
}

/**
 * An input failed validation: a malformed request, manifest, record or environment.
 *
 * `what` names the input (`residual write request`); `issues` lists every problem found (at
 * least one), each naming its field. Thrown by every public core function before it evaluates
 * anything, so malformed input never yields a verdict. Not retryable.
 */
export class InvalidInputError extends ResealError {
  readonly retryable: boolean = false;
  /** What the input is, e.g. `residual write request`; the message reads `invalid <what>…`. */
  readonly what: string;
  readonly issues: readonly InputIssue[];
  constructor(what: string, issues: readonly InputIssue[], options?: ErrorOptions) {
    const first = issues[0];
    const where = first ? ` at ${printableErrorPath(first.path || '<root>')}: ${first.message}` : '';
    const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : '';
    super(`invalid ${what}${where}${more}`, options);
    this.name = 'InvalidInputError';
    this.what = what;
    this.issues = issues;
  }
}

/**
 * A value cannot be put in RFC 8785 canonical form without losing information: `NaN`,
 * `±Infinity`, an integer beyond ±(2^53 − 1), a lone UTF-16 surrogate, `undefined`, a function,
 * a `bigint`, a symbol, or an object that is not a plain JSON object or array. Not retryable.
 */
export class CanonicalizationError extends ResealError {
  readonly retryable = false;
  /** JSON-pointer-like path of the offending value (`/a/0/b`); `""` for the root. */
  readonly path: string;
  constructor(path: string, reason: string, options?: ErrorOptions) {
    super(`cannot canonicalize value at ${path || '<root>'}: ${reason}`, options);
    this.name = 'CanonicalizationError';
    this.path = path;
  }
}

// --- Stale-state guard (docs/guard.md) -----------------------------------------------------------

/**
 * A write the stale-state guard judged unsafe was about to proceed (fail-closed
 * `assertWriteSafe`, docs/guard.md). Carries the rejected variable names and violated request
 * fields, sorted and unique, and the verdict digest, so callers branch on fields, not on the
 * message. Not retryable: the same request gets the same verdict; re-probe the variables first.
 */
export class StaleWriteError extends ResealError {
  readonly retryable = false;
  /** Names of the rejected variables, sorted, unique. */
  readonly rejectedVariables: readonly string[];
  /** Dotted fields of the request-level violations, sorted, unique. */
  readonly violatedFields: readonly string[];
  /** Digest of the verdict that refused the write. */
  readonly verdictDigest: string;
  constructor(
    rejectedVariables: readonly string[],
    violatedFields: readonly string[],
    verdictDigest: string,
    options?: ErrorOptions,
  ) {
    const parts: string[] = [];
    if (rejectedVariables.length > 0) {
      parts.push(`stale variables ${JSON.stringify(rejectedVariables)} lack fresh verification`);
    }
    if (violatedFields.length > 0) parts.push(`request fields ${JSON.stringify(violatedFields)} are violated`);
    super(`residual write rejected: ${parts.join('; ')} (verdict ${verdictDigest})`, options);
    this.name = 'StaleWriteError';
    this.rejectedVariables = rejectedVariables;
    this.violatedFields = violatedFields;
    this.verdictDigest = verdictDigest;
  }
}

// --- Triage (docs/triage.md) ---------------------------------------------------------------------

/**
 * A manifest whose `preconditionSeal` is not the composite seal of its own `baselineKeyHashes`:
 * the manifest is corrupt (or was edited after sealing), so no key-level diff against it can be
 * trusted and triage refuses it instead of returning a verdict.
 *
 * Extends {@link InvalidInputError} (one issue at path `preconditionSeal`), so callers that
 * already treat malformed input as "cannot evaluate" handle it without a new branch.
 */
export class ManifestSealMismatchError extends InvalidInputError {
  /** The seal the manifest carries. */
  readonly recordedSeal: string;
  /** The composite seal recomputed from the manifest's `baselineKeyHashes`. */
  readonly recomputedSeal: string;
  constructor(recordedSeal: string, recomputedSeal: string, options?: ErrorOptions) {
    super(
      'sealed dependency manifest',
      [
        {
          path: 'preconditionSeal',
          message: `preconditionSeal ${recordedSeal} is not the composite seal of baselineKeyHashes (${recomputedSeal}); the manifest is corrupt`,
        },
      ],
      options,
    );
    this.name = 'ManifestSealMismatchError';
    this.recordedSeal = recordedSeal;
    this.recomputedSeal = recomputedSeal;
  }
}

// --- Sealing (docs/sealing.md) -------------------------------------------------------------------

/** A canonical MAC message (record header) exceeds the 4,096-byte KMS GenerateMac limit. Not retryable. */
export class HeaderTooLargeError extends ResealError {
  readonly retryable = false;
  readonly headerBytes: number;
  constructor(headerBytes: number, options?: ErrorOptions) {
    super(`canonical record header is ${headerBytes} bytes; the MAC limit is 4096`, options);
    this.name = 'HeaderTooLargeError';
    this.headerBytes = headerBytes;
  }
}

/**
 * A seal was asked for with a `generationEpoch` older than the lineage head's: the generation
 * epoch is a fencing token, so a zombie predecessor cannot append after its successor has
 * (docs/guard.md, "The fencing token beyond the guard"). Not retryable: the head's epoch only
 * grows, so the write stays fenced out (it is recorded as a `STALE_EPOCH` conflict).
 */
export class StaleEpochError extends ResealError {
  readonly retryable = false;
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
 * The MAC key cannot be used (disabled, missing, throttled, unreachable): the local counterpart
 * of KMS `DisabledException` / `NotFoundException`. A verifier that meets it must fail closed with
 * `UNVERIFIED_TAMPER_RISK` (docs/sealing.md). Retryable: the key may be usable later, so a
 * sealer lets the message be delivered again rather than refusing the write for good.
 */
export class AnchorUnavailableError extends ResealError {
  readonly retryable = true;
  readonly keyId: string;
  constructor(keyId: string, reason: string, options?: ErrorOptions) {
    super(`MAC key ${keyId} cannot be used: ${reason}`, options);
    this.name = 'AnchorUnavailableError';
    this.keyId = keyId;
  }
}

/**
 * An anchor was asked about, or answered for, a key other than its own: a signature naming
 * another key id, or a MAC check under a key this anchor does not hold. Not retryable.
 */
export class AnchorKeyMismatchError extends ResealError {
  readonly retryable = false;
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

// --- Verifiable log (docs/verifiable-log.md) -----------------------------------------------------
// Proof verification outcomes are booleans, never errors: these errors mean a text could not be
// read, a node could not be found, or a note carries no valid signature by the key asked for.

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
 * forged line next to a genuine one is never overlooked). Not retryable.
 */
export class NoteVerificationError extends ResealError {
  readonly retryable = false;
  /** Key name that was expected. */
  readonly keyName: string;
  constructor(keyName: string, reason: string, options?: ErrorOptions) {
    super(`note not verified for key ${keyName}: ${reason}`, options);
    this.name = 'NoteVerificationError';
    this.keyName = keyName;
  }
}

/** A verified checkpoint names another log than the one the caller asked about. Not retryable. */
export class CheckpointOriginMismatchError extends ResealError {
  readonly retryable = false;
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
 * persists every `completed` node of `appendLeaf`, this means lost or never-written data, so a
 * retry reads the same absence: not retryable.
 */
export class MerkleNodeMissingError extends ResealError {
  readonly retryable = false;
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

/**
 * The signing key cannot be used (disabled, missing, throttled, unreachable, or not Ed25519).
 * Retryable: the key may be usable later.
 */
export class SignerUnavailableError extends ResealError {
  readonly retryable = true;
  readonly keyId: string;
  constructor(keyId: string, reason: string, options?: ErrorOptions) {
    super(`signing key ${keyId} unavailable: ${reason}`, options);
    this.name = 'SignerUnavailableError';
    this.keyId = keyId;
  }
}

/**
 * The event bus did not accept an event (EventBridge `PutEvents` answered `FailedEntryCount` > 0).
 * Retryable: the bus may accept it later, so the queue message that caused it is delivered again.
 */
export class EventNotAcceptedError extends ResealError {
  readonly retryable = true;
  /** The event's `DetailType`. */
  readonly detailType: string;
  /** The bus's error code for the entry, when it gave one. */
  readonly code: string | null;
  constructor(detailType: string, code: string | undefined, reason: string | undefined, options?: ErrorOptions) {
    super(`EventBridge refused ${detailType}: ${code ?? 'unknown'} ${reason ?? ''}`.trim(), options);
    this.name = 'EventNotAcceptedError';
    this.detailType = detailType;
    this.code = code ?? null;
  }
}

/**
 * The log state stored for a lineage (head item: checkpoint, frontier, head header) does not
 * authenticate: a missing or forged checkpoint, a frontier or head that does not hash to its
 * signed root. The sealer never extends such a state (docs/verifiable-log.md, "Appending").
 * Not retryable.
 */
export class LogStateError extends ResealError {
  readonly retryable = false;
  readonly lineageId: string;
  constructor(lineageId: string, reason: string, options?: ErrorOptions) {
    super(`lineage ${lineageId}: stored log state does not authenticate: ${reason}`, options);
    this.name = 'LogStateError';
    this.lineageId = lineageId;
  }
}

/** A signed outcome statement whose signature or content does not check. Not retryable. */
export class OutcomeVerificationError extends ResealError {
  readonly retryable = false;
  constructor(reason: string, options?: ErrorOptions) {
    super(`outcome statement not verified: ${reason}`, options);
    this.name = 'OutcomeVerificationError';
  }
}

// --- Witness and client policy (docs/witness.md) ------------------------------------------------

/**
 * An `add-checkpoint` request body (C2SP tlog-witness) is malformed: the old size line, a
 * consistency proof line, the blank line or the size relation. The witness answers it with
 * "400 Bad Request". One issue at path `old`, `proof.<i>`, `checkpoint` or `""`.
 */
export class WitnessRequestFormatError extends InvalidInputError {
  constructor(path: string, message: string, options?: ErrorOptions) {
    super('add-checkpoint request', [{ path, message }], options);
    this.name = 'WitnessRequestFormatError';
  }
}

/**
 * A C2SP tlog-policy text (or the maximum age that goes with it) is malformed: an unknown
 * keyword, a vkey of the wrong type, a duplicate key or name, a group threshold out of range,
 * a name used before its definition, no or several quorum lines. One issue at path
 * `line <n>` (1-based) or `""`.
 */
export class PolicyFormatError extends InvalidInputError {
  constructor(path: string, message: string, options?: ErrorOptions) {
    super('tlog policy', [{ path, message }], options);
    this.name = 'PolicyFormatError';
  }
}

// --- The lineage store (shared/ports/lineage-store.ts) -------------------------------------------

/**
 * A lineage head as a store error reports it: the fields of a `LineageHead`
 * (shared/seal/sealed-record.ts), which is one. Declared here by shape because this module is
 * the leaf every other module of the core imports.
 */
export interface ReportedHead {
  readonly lineageId: string;
  readonly seq: number;
  readonly recordHash: string;
  readonly generationEpoch: number;
  readonly mac: string;
  readonly keyId: string;
}

/** Where a residual id was sealed. */
export interface ResidualLocation {
  readonly lineageId: string;
  readonly seq: number;
}

/**
 * The lineage head moved since it was read: another writer appended first. Retryable: re-read
 * the head, re-seal on it, append again.
 */
export class StaleHeadError extends ResealError {
  readonly retryable = true;
  readonly lineageId: string;
  /** Seq the writer expected the head at (`null`: no head). */
  readonly expectedSeq: number | null;
  /** Head found instead, when the store could read it. */
  readonly observedHead: ReportedHead | null;
  constructor(
    lineageId: string,
    expectedSeq: number | null,
    observedHead: ReportedHead | null,
    options?: ErrorOptions,
  ) {
    super(`lineage ${lineageId}: head moved past seq ${expectedSeq ?? 'none'}`, options);
    this.name = 'StaleHeadError';
    this.lineageId = lineageId;
    this.expectedSeq = expectedSeq;
    this.observedHead = observedHead;
  }
}

/**
 * The head item equals the expected head, yet a record already exists at `seq` (= expected + 1,
 * or 0 without a head): the head is behind the records. Someone rewound or deleted the head.
 * Not retryable: every retry reads the same head and meets the same record.
 */
export class LineageInconsistentError extends ResealError {
  readonly retryable = false;
  readonly lineageId: string;
  /** Seq the write tried to put, which is already taken. */
  readonly seq: number;
  /** Head the writer read (and which still held). */
  readonly expectedHead: ReportedHead | null;
  constructor(lineageId: string, seq: number, expectedHead: ReportedHead | null, options?: ErrorOptions) {
    super(
      `lineage ${lineageId}: the head item (${expectedHead ? `seq ${expectedHead.seq}` : 'absent'}) is behind the records: a record already exists at seq ${seq}`,
      options,
    );
    this.name = 'LineageInconsistentError';
    this.lineageId = lineageId;
    this.seq = seq;
    this.expectedHead = expectedHead;
  }
}

/** A lineage has neither records nor a head item: it does not exist (an unknown lineage id). Not retryable. */
export class LineageNotFoundError extends ResealError {
  readonly retryable = false;
  readonly lineageId: string;
  constructor(lineageId: string, options?: ErrorOptions) {
    super(`lineage ${lineageId} not found: no records and no head`, options);
    this.name = 'LineageNotFoundError';
    this.lineageId = lineageId;
  }
}

/**
 * A verified lineage holds a session record that does not fold into a history (docs/frameworks.md,
 * "Session items as residuals"): an unknown op, a removal that names no earlier record of the
 * lineage, a tombstone of something that is not an item. The records are authentic (an admitted
 * writer sealed them), so this is not tampering, but no history can be returned. Not retryable.
 */
export class SessionHistoryError extends ResealError {
  readonly retryable = false;
  /** Seq of the record that does not fold. */
  readonly seq: number;
  readonly reason: string;
  constructor(seq: number, reason: string, options?: ErrorOptions) {
    super(`session record at seq ${seq}: ${reason}`, options);
    this.name = 'SessionHistoryError';
    this.seq = seq;
    this.reason = reason;
  }
}

/**
 * The residual id was sealed already in this lineage: a redelivery, which must not create a
 * second record. Retryable: it means another writer won the race for this id, and re-reading the
 * lineage finds the id sealed (answered as a duplicate) while the rest of a batch can go.
 */
export class DuplicateResidualError extends ResealError {
  readonly retryable = true;
  readonly residualId: string;
  /** Where it was sealed, when the store could tell. */
  readonly existing: ResidualLocation | null;
  constructor(residualId: string, existing: ResidualLocation | null, options?: ErrorOptions) {
    super(`residual ${residualId} is already sealed`, options);
    this.name = 'DuplicateResidualError';
    this.residualId = residualId;
    this.existing = existing;
  }
}

/**
 * A verifiable-index proof is malformed: not the binary layout or JSON form of
 * docs/verifiable-index.md, "Proofs" (bad version or kind, a depth beyond 256, bitmap padding
 * set, too few or too many bytes). Extends {@link InvalidInputError} with one issue at `path`.
 */
export class IndexProofFormatError extends InvalidInputError {
  constructor(path: string, message: string, options?: ErrorOptions) {
    super('index proof', [{ path, message }], options);
    this.name = 'IndexProofFormatError';
  }
}

/**
 * The manifest items one read puts back into its records (docs/sealing.md, "Stored items") would
 * inflate past the read's bound together: a table writer planting many small gzip bombs, or an
 * honest page of unusually many large distinct manifests (read fewer records at a time). The read
 * stops before holding more. Not retryable: the same items give the same answer.
 */
export class ManifestReadBoundError extends ResealError {
  readonly retryable = false;
  /** The digest of the manifest item that would have passed the bound (64 lowercase hex, or `""` when its key is junk). */
  readonly manifestDigest: string;
  /** The bound, in inflated bytes per read. */
  readonly boundBytes: number;
  constructor(manifestDigest: string, boundBytes: number, options?: ErrorOptions) {
    super(
      `the manifest items of one read inflate past ${boundBytes} bytes together (at MANIFEST#${manifestDigest}); read fewer records at a time`,
      options,
    );
    this.name = 'ManifestReadBoundError';
    this.manifestDigest = manifestDigest;
    this.boundBytes = boundBytes;
  }
}

/**
 * A node of the verifiable index is not in its store, or the stored content does not hash to the
 * address it is stored under (edited behind the index: docs/verifiable-index.md, "Node store").
 * Not retryable: nodes are written before the root that names them is returned.
 */
export class IndexNodeMissingError extends ResealError {
  readonly retryable = false;
  /** The node's hash (its address), 64 lowercase hex characters. */
  readonly nodeHash: string;
  /** `true` when a node was stored under the address but its content hashes to another. */
  readonly corrupt: boolean;
  constructor(nodeHash: string, corrupt: boolean, options?: ErrorOptions) {
    super(
      corrupt
        ? `index node ${nodeHash} is stored with content that hashes to another node`
        : `index node ${nodeHash} is not stored`,
      options,
    );
    this.name = 'IndexNodeMissingError';
    this.nodeHash = nodeHash;
    this.corrupt = corrupt;
  }
}

/**
 * The deployment log's head item moved between the integrator's read and its conditional commit
 * (another integration, or a table writer): the batch is retried on a fresh read
 * (docs/deployment-log.md, "Integration", step 5). Retryable.
 */
export class DeploymentLogConflictError extends ResealError {
  readonly retryable = true;
  constructor(reason: string, options?: ErrorOptions) {
    super(`deployment log: ${reason}`, options);
    this.name = 'DeploymentLogConflictError';
  }
}

/**
 * Another integration holds the integration lease (docs/deployment-log.md, "One integration at a
 * time"), or this one's lease lapsed before it signed: nothing was signed, and the batch waits and
 * is integrated again from a fresh read. Retryable.
 */
export class IntegrationLeaseHeldError extends ResealError {
  readonly retryable = true;
  constructor(reason: string, options?: ErrorOptions) {
    super(`integration lease: ${reason}`, options);
    this.name = 'IntegrationLeaseHeldError';
  }
}

/**
 * The sealer will not search a lineage's records past its indexed head for a residual id: more
 * than its bound of them were sealed since the run's writes were signed (a burst the integrator
 * has not caught up with; docs/sealing.md, "The index floor"). Nothing was sealed; the message
 * stays queued and is sealed once the integrator catches up. Retryable.
 */
export class IntegrationBacklogError extends ResealError {
  readonly retryable = true;
  readonly lineageId: string;
  readonly unintegrated: number;
  constructor(lineageId: string, unintegrated: number, bound: number, options?: ErrorOptions) {
    super(
      `lineage ${lineageId} has ${unintegrated} records past its indexed head, more than the ${bound} the sealer searches for a residual id sealed since its writes were signed: retried once the integrator catches up`,
      options,
    );
    this.name = 'IntegrationBacklogError';
    this.lineageId = lineageId;
    this.unintegrated = unintegrated;
  }
}

/**
 * A record put of an append found its seq taken (docs/sealing.md, "The write", step 1): another
 * writer stored a record there first, or one is stored past the head read. `landed` records of
 * the run (its first ones, in seq order) were stored before it: none means nothing of the run is
 * stored (a lost race: re-read, re-seal); more stay as records past the head, which the re-read
 * rolls forward. Retryable.
 */
export class RecordSeqTakenError extends ResealError {
  readonly retryable = true;
  readonly lineageId: string;
  /** The seq whose put found a record there. */
  readonly seq: number;
  /** How many records of the run were stored before it. */
  readonly landed: number;
  constructor(lineageId: string, seq: number, landed: number, options?: ErrorOptions) {
    super(
      `lineage ${lineageId}: a record is already stored at seq ${seq} (${landed} record${landed === 1 ? '' : 's'} of the run stored before it)`,
      options,
    );
    this.name = 'RecordSeqTakenError';
    this.lineageId = lineageId;
    this.seq = seq;
    this.landed = landed;
  }
}

/**
 * Records of a run are stored but the head could not be moved to them for good (its condition lost
 * on every try, or the re-read state does not authenticate or does not hold them; docs/sealing.md,
 * "The write"). Once a run's records landed its writes are never refused: the message group stays
 * queued and is answered when a later run rolls the records forward (or goes to the dead-letter
 * queue after its receives, unanswered). Retryable.
 */
export class HeadNotMovedError extends ResealError {
  readonly retryable = true;
  readonly lineageId: string;
  /** Residual ids of the run's writes whose records are stored past the head, or may be (redeliveries). */
  readonly residualIds: readonly string[];
  constructor(lineageId: string, residualIds: readonly string[], reason: string, options?: ErrorOptions) {
    super(
      `lineage ${lineageId}: the records of ${residualIds.join(', ')} are or may be stored (a record landed, or the write is a redelivery) but the head was not moved to them (${reason}): retried until a run rolls them forward or the message reaches the dead-letter queue, never refused`,
      options,
    );
    this.name = 'HeadNotMovedError';
    this.lineageId = lineageId;
    this.residualIds = residualIds;
  }
}

/**
 * A cold integrator could not learn the size its witness last cosigned (unreachable, or an answer
 * other than 200 or a 409 with a size), so it signs nothing (docs/deployment-log.md, "Cold
 * start"). Retryable: the batch is retried until the witness answers.
 */
export class WitnessUnavailableError extends ResealError {
  readonly retryable = true;
  constructor(reason: string, options?: ErrorOptions) {
    super(`witness: ${reason}`, options);
    this.name = 'WitnessUnavailableError';
  }
}

/**
 * `TENANT_MISMATCH` (docs/authorship.md, "Tenancy", "Refused at the caller"): a caller acting for
 * one tenant named a lineage of another, whose id does not begin `<tenantId>/`. Refused before
 * anything is read or sent, by the client given its tenant (a write, a wait, a recall), the MCP
 * servers (the tool error `TENANT_MISMATCH`) and the CLI (exit 2). The same code the guard files
 * a cross-tenant write under (unsigned) and triage logs a cross-tenant recall under. Not retryable.
 */
export class TenantMismatchError extends ResealError {
  readonly retryable = false;
  /** The refusal's code, as the guard's rejection reason and the MCP tool error name it. */
  readonly code = 'TENANT_MISMATCH';
  readonly lineageId: string;
  readonly tenantId: string;
  constructor(lineageId: string, tenantId: string, options?: ErrorOptions) {
    super(
      `TENANT_MISMATCH: lineage ${lineageId} is not of tenant ${tenantId}: a caller of tenant ${tenantId} may write, recall and read only lineages whose id begins ${tenantId}/`,
      options,
    );
    this.name = 'TenantMismatchError';
    this.lineageId = lineageId;
    this.tenantId = tenantId;
  }
}

/**
 * `TENANT_REQUIRED` (docs/authorship.md, "Tenancy", "Refused at the caller"): a write or a recall
 * on a stack with tenants by a caller that names no tenant of that stack. The stack would refuse
 * it where that caller cannot look (IAM on AWS; the guard's unsigned refusal and triage's log
 * behind it), so its wait could only time out: refused here, before anything is signed or sent.
 * An {@link InvalidInputError} with one issue at `tenantId` (CLI exit 2, MCP `INVALID_INPUT`). Not retryable.
 */
export class TenantRequiredError extends InvalidInputError {
  /** The refusal's code. */
  readonly code = 'TENANT_REQUIRED';
  /** The tenants the stack declares (its `TenantQueueUrls` output), sorted. */
  readonly stackTenants: readonly string[];
  /** The tenant the caller named, or `null` for none. */
  readonly tenantId: string | null;
  constructor(stackTenants: readonly string[], tenantId: string | null, options?: ErrorOptions) {
    const named = stackTenants.join(', ');
    super(
      'tenant',
      [
        {
          path: 'tenantId',
          message:
            tenantId === null
              ? `TENANT_REQUIRED: the stack has tenants (${named}): name the tenant this caller acts for (tenantId; $RESEAL_TENANT for the CLI and the MCP server); a write or recall of no tenant is refused by the stack where its caller cannot read it`
              : `TENANT_REQUIRED: ${tenantId} is not a tenant of the stack (its tenants: ${named})`,
        },
      ],
      options,
    );
    this.name = 'TenantRequiredError';
    this.stackTenants = stackTenants;
    this.tenantId = tenantId;
  }
}

/**
 * A re-anchor statement (docs/deployment-log.md, "Re-anchor") is malformed, or cannot be written as
 * one. Extends {@link InvalidInputError} with one issue at the line that is wrong.
 */
export class ReAnchorFormatError extends InvalidInputError {
  constructor(path: string, message: string, options?: ErrorOptions) {
    super('re-anchor statement', [{ path, message }], options);
    this.name = 'ReAnchorFormatError';
  }
}

/**
 * The integrator refuses to re-anchor the deployment log (docs/deployment-log.md, "Re-anchor"): the
 * statement is not signed by a configured recovery key, does not name the stored head, or the
 * witness did not accept it. Nothing is signed into the log or stored. Not retryable as such: the
 * operator fixes the statement (or the witness's state changed) and asks again.
 */
export class ReAnchorRefusedError extends ResealError {
  readonly retryable = false;
  constructor(reason: string, options?: ErrorOptions) {
    super(`re-anchor refused: ${reason}`, options);
    this.name = 'ReAnchorRefusedError';
  }
}
