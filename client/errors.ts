import { ResealError } from '../shared/errors';
import type { VerificationVerdict } from '../shared/seal/verification-verdict';

/**
 * Errors of the client (`reseal`), each with `retryable` (see `ResealError`, shared/errors.ts).
 */

/**
 * A wait ran out of time: the awaited item (e.g. the triage report of a recall) did not appear.
 * Callers branch on `instanceof` and read {@link waitedFor} and {@link timeoutMs}. Retryable:
 * the item may still appear, so waiting again can find it.
 */
export class TimeoutError extends ResealError {
  readonly retryable = true;
  /** What was awaited, e.g. `triage report TRIAGE#lin-1 / req-7`. */
  readonly waitedFor: string;
  /** How long was waited, in milliseconds. */
  readonly timeoutMs: number;
  constructor(waitedFor: string, timeoutMs: number, options?: ErrorOptions) {
    super(`timed out after ${timeoutMs} ms waiting for ${waitedFor}`, options);
    this.name = 'TimeoutError';
    this.waitedFor = waitedFor;
    this.timeoutMs = timeoutMs;
  }
}

/** Per-entry error codes of EventBridge `PutEvents` that AWS documents as worth retrying. */
const RETRYABLE_ENTRY_CODES: ReadonlySet<string> = new Set(['InternalFailure', 'ThrottlingException']);

/**
 * EventBridge or SQS refused a message the client sent (e.g. `FailedEntryCount` > 0).
 * Retryable when AWS named no error code (nothing was refused, only no id came back) or a
 * transient one (`InternalFailure`, `ThrottlingException`); not for any other code (a malformed
 * entry, a denied access).
 */
export class PublishError extends ResealError {
  readonly retryable: boolean;
  /** AWS error code reported for the entry, when any. */
  readonly errorCode: string | null;
  constructor(message: string, errorCode: string | null, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PublishError';
    this.errorCode = errorCode;
    this.retryable = errorCode === null || RETRYABLE_ENTRY_CODES.has(errorCode);
  }
}

/** A CloudFormation stack does not exist or lacks an output the client needs. Not retryable. */
export class StackOutputsError extends ResealError {
  readonly retryable = false;
  readonly stackName: string;
  constructor(stackName: string, reason: string, options?: ErrorOptions) {
    super(`stack ${stackName}: ${reason}`, options);
    this.name = 'StackOutputsError';
    this.stackName = stackName;
  }
}

/**
 * A write whose seal the table cannot be trusted for: the lineage, the residual id, the seq of the
 * seal in question, the verification verdict and its reason, which a tamper finding names
 * (`TAMPER_DETECTED` in the MCP tools, exit 20 in the CLI). Not retryable.
 */
export abstract class SealTamperError extends ResealError {
  readonly retryable = false;
  readonly lineageId: string;
  readonly residualId: string;
  /** Seq of the seal in question, or `null` when none could be named. */
  readonly seq: number | null;
  /** The verification verdict (`UNVERIFIED_TAMPER_RISK`, or the signed log's finding). */
  readonly verdict: string;
  readonly reason: string;
  protected constructor(
    message: string,
    lineageId: string,
    residualId: string,
    seq: number | null,
    verdict: string,
    reason: string,
  ) {
    super(message);
    this.lineageId = lineageId;
    this.residualId = residualId;
    this.seq = seq;
    this.verdict = verdict;
    this.reason = reason;
  }
}

/**
 * A write's seal is proven, but the table shows no residual-id marker for it (docs/cli.md,
 * `publish --wait`): the deployment index maps its residual id (`seq` the index names), or its
 * record is in the lineage's signed log. The sealer writes a record and its marker in one
 * transaction, so only a table writer's deletion leaves a proven seal without a marker; the wait
 * ends with this tamper finding instead of a timeout. `seq` is `null` when the signed log did not
 * verify. Not retryable.
 */
export class HiddenSealError extends SealTamperError {
  constructor(lineageId: string, residualId: string, seq: number | null, verdict: string, reason: string) {
    super(
      `residual ${residualId} (lineage ${lineageId}) has no residual-id marker in the table, but ${verdict}: ${reason}`,
      lineageId,
      residualId,
      seq,
      verdict,
      reason,
    );
    this.name = 'HiddenSealError';
  }
}

/**
 * A write's residual-id marker names a record that does not verify as that write's seal (missing,
 * edited, MAC not checkable, or another residual's record): the table cannot be trusted for this
 * outcome, and nothing from it may be kept as a checkpoint. `seq` is the one the marker names;
 * `verdict` is `UNVERIFIED_TAMPER_RISK` when the MAC could not be checked. Not retryable.
 */
export class UnverifiedOutcomeError extends SealTamperError {
  declare readonly seq: number;
  constructor(lineageId: string, residualId: string, seq: number, verdict: string, reason: string) {
    super(
      `residual ${residualId} (lineage ${lineageId}) is marked sealed at seq ${seq}, but ${verdict}: ${reason}`,
      lineageId,
      residualId,
      seq,
      verdict,
      reason,
    );
    this.name = 'UnverifiedOutcomeError';
  }
}

/** A lineage's log could not be verified: the client must not act on what it read. Not retryable. */
export class LogVerificationError extends ResealError {
  readonly retryable = false;
  readonly lineageId: string;
  readonly verdict: VerificationVerdict;
  readonly reason: string;
  /** Shown by signed checkpoints alone (a signed head smaller than the kept one), not by the table's items. */
  readonly proven: boolean;
  constructor(
    lineageId: string,
    verdict: VerificationVerdict,
    reason: string,
    options?: ErrorOptions & { readonly proven?: boolean },
  ) {
    super(`lineage ${lineageId}: ${verdict}: ${reason}`, options);
    this.name = 'LogVerificationError';
    this.lineageId = lineageId;
    this.verdict = verdict;
    this.reason = reason;
    this.proven = options?.proven ?? false;
  }
}

/**
 * The checkpoint store's file is not a checkpoint file (malformed JSON, another shape), or cannot
 * be read. Not retryable: the file must be repaired or restored, never reset (it is what catches
 * a rolled-back lineage: docs/verifiable-log.md, "Checkpoints the client keeps").
 */
export class CheckpointFileError extends ResealError {
  readonly retryable = false;
  /** The file's path. */
  readonly path: string;
  constructor(path: string, reason: string, options?: ErrorOptions) {
    super(`checkpoint store ${path}: ${reason}`, options);
    this.name = 'CheckpointFileError';
    this.path = path;
  }
}

/**
 * A record is sealed but not integrated yet: the deployment log's index does not cover it (its
 * lineage's indexed head is older, or nothing is published), so a receipt with the freshness chain
 * (docs/verifiable-log.md, "Receipts") cannot be built yet. Retryable: the next integration
 * (about one integration interval) covers it.
 */
export class NotIntegratedError extends ResealError {
  readonly retryable = true;
  readonly lineageId: string;
  readonly seq: number;
  readonly reason: string;
  constructor(lineageId: string, seq: number, reason: string, options?: ErrorOptions) {
    super(`lineage ${lineageId} seq ${seq}: sealed, awaiting integration: ${reason}`, options);
    this.name = 'NotIntegratedError';
    this.lineageId = lineageId;
    this.seq = seq;
    this.reason = reason;
  }
}
