import { ResealError } from '../shared/errors';

/**
 * A wait ran out of time: the awaited item (e.g. the triage report of a recall) did not appear.
 * Callers branch on `instanceof` and read {@link waitedFor} and {@link timeoutMs}.
 */
export class TimeoutError extends ResealError {
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

/** EventBridge or SQS refused a message the client sent (e.g. `FailedEntryCount` > 0). */
export class PublishError extends ResealError {
  /** AWS error code reported for the entry, when any. */
  readonly errorCode: string | null;
  constructor(message: string, errorCode: string | null, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PublishError';
    this.errorCode = errorCode;
  }
}

/** A CloudFormation stack does not exist or lacks an output the client needs. */
export class StackOutputsError extends ResealError {
  readonly stackName: string;
  constructor(stackName: string, reason: string, options?: ErrorOptions) {
    super(`stack ${stackName}: ${reason}`, options);
    this.name = 'StackOutputsError';
    this.stackName = stackName;
  }
}

/**
 * A write's residual-id marker names a record that does not verify as that write's seal (missing,
 * edited, MAC not checkable, or another residual's record): the table cannot be trusted for this
 * outcome, and nothing from it may be kept as a checkpoint.
 */
export class UnverifiedOutcomeError extends ResealError {
  readonly lineageId: string;
  readonly residualId: string;
  /** Seq the marker names. */
  readonly seq: number;
  /** Verification verdict of the record (`UNVERIFIED_TAMPER_RISK` when the MAC could not be checked). */
  readonly verdict: string;
  readonly reason: string;
  constructor(lineageId: string, residualId: string, seq: number, verdict: string, reason: string) {
    super(`residual ${residualId} (lineage ${lineageId}) is marked sealed at seq ${seq}, but ${verdict}: ${reason}`);
    this.name = 'UnverifiedOutcomeError';
    this.lineageId = lineageId;
    this.residualId = residualId;
    this.seq = seq;
    this.verdict = verdict;
    this.reason = reason;
  }
}
