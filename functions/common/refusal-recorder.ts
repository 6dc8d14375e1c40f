import { conflictStatement, rejectionStatement, signOutcome } from '../../shared/log/outcome-statement';
import type { EventPublisher } from '../../shared/ports/event-publisher';
import type { ConflictRecord, LineageStore, RejectionRecord } from '../../shared/ports/lineage-store';
import type { NoteSigner } from '../../shared/ports/note-signer';
import { MetricName } from './metric-name';
import type { PipelineMetrics } from './pipeline-metrics';
import { rejectionDetailOf } from './rejection';

/** Dependencies of {@link RefusalRecorder}. */
export interface RefusalRecorderDeps {
  readonly store: Pick<LineageStore, 'recordRejection' | 'recordConflict'>;
  readonly publisher: Pick<EventPublisher, 'residualRejected'>;
  /** The deciding function's key (the guard key, or the sealer key). */
  readonly signer: NoteSigner;
  /** The stack's log name, named by every statement. */
  readonly logName: string;
  readonly metrics: PipelineMetrics;
  readonly clock: () => number;
}

/**
 * Records a refusal where its writer looks for it, signed by the function that decided it
 * (docs/verifiable-log.md, "Signed outcomes"): the outcome statement signed (one `Sign`), the
 * record stored with it, `ResidualRejected` announced, the metric counted. Shared by the guard
 * and the sealer, so both file refusals the same way.
 */
export class RefusalRecorder {
  readonly #deps: RefusalRecorderDeps;
  constructor(deps: RefusalRecorderDeps) {
    this.#deps = deps;
  }

  /**
   * A rejection (`statement` is computed here; whatever the argument holds is replaced). With
   * `sign: false` it is stored without a statement and costs no `Sign`: the refusals anyone can
   * provoke (the guard's before the writer signature verified, docs/guard.md "Refusals at the
   * queue"; `WRITER_NOT_ADMITTED` at the sealer).
   * @throws what the signer, the store or the bus throws (the message is then retried)
   */
  async reject(unsigned: RejectionRecord, options: { readonly sign?: boolean } = {}): Promise<RejectionRecord> {
    const { store, publisher, signer, logName, metrics, clock } = this.#deps;
    const bare = { ...unsigned, statement: null };
    // Unauthenticated refusals are stored unsigned (docs/authorship.md, "Refusals without a Sign").
    const statement = options.sign === false ? null : await signOutcome(rejectionStatement(logName, bare), signer);
    const rejection = { ...bare, statement };
    await store.recordRejection(rejection);
    await publisher.residualRejected(rejectionDetailOf(rejection, clock()));
    metrics.count(MetricName.WriteRejected, { reason: rejection.reason });
    return rejection;
  }

  /**
   * A conflict (always the sealer's), announced as `ResidualRejected` with `announcement`'s fields.
   * @throws what the signer, the store or the bus throws (the message is then retried)
   */
  async conflict(unsigned: ConflictRecord, announcement: RejectionRecord): Promise<ConflictRecord> {
    const { store, publisher, signer, logName, metrics, clock } = this.#deps;
    const bare = { ...unsigned, statement: null };
    const conflict = { ...bare, statement: await signOutcome(conflictStatement(logName, bare), signer) };
    await store.recordConflict(conflict);
    metrics.count(MetricName.SealConflict, { reason: conflict.reason });
    await publisher.residualRejected(rejectionDetailOf(announcement, clock()));
    return conflict;
  }
}
