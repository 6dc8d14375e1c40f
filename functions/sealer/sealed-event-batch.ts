import { residualSealedDetails } from '../../shared/pipeline/residual-sealed-details';
import { residualSealedRuns, type SealedAnnouncement } from '../../shared/pipeline/residual-sealed-runs';
import type { EventPublisher } from '../../shared/ports/event-publisher';
import type { ServiceLogger } from '../common/service-logger';

/** What {@link SealedEventBatch.send} could not announce. */
export interface Unannounced {
  /** The message ids of every message group with a record in an event the bus did not accept. */
  readonly messageIds: ReadonlySet<string>;
  /** The first failure, `null` when every event was accepted. */
  readonly error: unknown;
}

/**
 * The `ResidualSealed` announcements of one sealer invocation (docs/pipeline.md, "Message
 * shapes"): each message group adds its records' as its runs end, and the invocation puts them
 * all in one event once its groups are done ({@link SealedEventBatch.send}): EventBridge bills
 * each entry, so one per invocation, not one per record. The records are stored before: an
 * event the bus refuses is logged at error and its message groups are retried, whose redelivery
 * re-announces each record (events are notifications, at least once, not the source of truth).
 */
export class SealedEventBatch {
  readonly #publisher: EventPublisher;
  readonly #logger: ServiceLogger;
  #pending: { readonly announcement: SealedAnnouncement; readonly messageIds: readonly string[] }[] = [];

  constructor(publisher: EventPublisher, logger: ServiceLogger) {
    this.#publisher = publisher;
    this.#logger = logger;
  }

  /**
   * A record's announcement, kept until {@link SealedEventBatch.send}.
   * @param messageIds - the ids of its message group's messages: retried together when its event is refused
   */
  add(announcement: SealedAnnouncement, messageIds: readonly string[]): void {
    this.#pending.push({ announcement, messageIds });
  }

  /**
   * Puts every announcement added so far (none: no call) in as few `ResidualSealed` events as
   * fit EventBridge's entry (`residualSealedDetails`), and forgets them. Never rejects: an event
   * not accepted gets an error line (its lineages, its residual count, why) and its groups'
   * message ids come back, to be reported failed.
   */
  async send(): Promise<Unannounced> {
    const pending = this.#pending;
    this.#pending = [];
    const details = residualSealedDetails(residualSealedRuns(pending.map((p) => p.announcement)));
    const results = await Promise.allSettled(details.map((detail) => this.#publisher.residualSealed(detail)));
    const messageIds = new Set<string>();
    let first: unknown = null;
    for (const [i, result] of results.entries()) {
      if (result.status === 'fulfilled') continue;
      const detail = details[i];
      if (!detail) continue;
      first ??= result.reason;
      const lineages = new Set(detail.runs.map((run) => run.lineageId));
      const error = result.reason;
      this.#logger.error('the ResidualSealed event was not put; its message groups will be retried', {
        error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
        cause: error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined,
        lineageIds: [...lineages],
        residuals: detail.runs.reduce((n, run) => n + run.residuals.length, 0),
      });
      for (const { announcement, messageIds: ids } of pending) {
        if (lineages.has(announcement.head.lineageId)) for (const id of ids) messageIds.add(id);
      }
    }
    return { messageIds, error: first };
  }
}
