import type { WriteOutcome } from '../../client/write-outcomes';
import { ResealError } from '../../shared/errors';

/**
 * The stack refused a session write (docs/frameworks.md, "OpenAI Agents SDK (TypeScript)"), in a
 * refusal signed by the function that decided it: the guard (`stage` `GUARD`, e.g.
 * `EPOCH_COLLAPSE`) or the sealer (`SEALER`: `STALE_EPOCH` when a newer generation of the
 * lineage has written since this session was bound, `LOST_RACE`, `LINEAGE_INCONSISTENT`, or a
 * sealer rejection such as `WRITER_NOT_ADMITTED`). Nothing was appended. Not retryable: the same
 * write gets the same refusal; a stale session must be bound again with a newer epoch.
 */
export class SessionWriteRefusedError extends ResealError {
  readonly retryable = false;
  readonly lineageId: string;
  readonly residualId: string;
  /** The function that refused it. */
  readonly stage: 'GUARD' | 'SEALER';
  /** The refusal's reason code, e.g. `STALE_EPOCH`. */
  readonly reason: string;
  /** The proven outcome: the signed rejection or conflict, with its opened statement. */
  readonly outcome: Extract<WriteOutcome, { kind: 'REJECTED' | 'CONFLICT' }>;
  constructor(
    lineageId: string,
    residualId: string,
    outcome: Extract<WriteOutcome, { kind: 'REJECTED' | 'CONFLICT' }>,
    options?: ErrorOptions,
  ) {
    const stage = outcome.kind === 'CONFLICT' ? 'SEALER' : outcome.rejection.stage;
    const reason = outcome.kind === 'CONFLICT' ? outcome.conflict.reason : outcome.rejection.reason;
    super(
      `session write ${residualId} (lineage ${lineageId}) refused by the ${stage.toLowerCase()}: ${reason}`,
      options,
    );
    this.name = 'SessionWriteRefusedError';
    this.lineageId = lineageId;
    this.residualId = residualId;
    this.stage = stage;
    this.reason = reason;
    this.outcome = outcome;
  }
}

/**
 * A session write was sealed but not proven within the session's `timeoutMs` (docs/frameworks.md,
 * "OpenAI Agents SDK (TypeScript)"): it is stored and stays in the lineage, but the deployment
 * log did not yet integrate it (`SEALED_AWAITING_INTEGRATION`), or the client reads no deployment
 * log, so nothing but the sealer vouches for it. It is not a refusal: adding the item again would
 * seal it twice. `getItems` shows it once it is integrated; retry the read, not the write.
 */
export class SessionWriteUnprovenError extends ResealError {
  readonly retryable = false;
  readonly lineageId: string;
  readonly residualId: string;
  /** The sealed outcome as the deadline found it. */
  readonly outcome: Extract<WriteOutcome, { kind: 'SEALED' }>;
  constructor(
    lineageId: string,
    residualId: string,
    outcome: Extract<WriteOutcome, { kind: 'SEALED' }>,
    options?: ErrorOptions,
  ) {
    super(
      `session write ${residualId} (lineage ${lineageId}) is sealed but not proven: ${outcome.freshness?.reason ?? 'this client reads no deployment log'}; read again later, do not add it again`,
      options,
    );
    this.name = 'SessionWriteUnprovenError';
    this.lineageId = lineageId;
    this.residualId = residualId;
    this.outcome = outcome;
  }
}
