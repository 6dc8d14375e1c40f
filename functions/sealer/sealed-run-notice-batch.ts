import type { SealedRunNotice } from '../../shared/integrator/sealed-run-notice';
import type { IntegrationNotifier, NoticeFailure } from '../../shared/ports/integration-notifier';
import type { ServiceLogger } from '../common/service-logger';

/**
 * The sealed-run notices of one sealer invocation (docs/deployment-log.md, "Sealed-run notices"):
 * each run adds its notice once its head moved, without waiting for anything, and the invocation
 * sends them all together once its runs are done ({@link SealedRunNoticeBatch.send}: one
 * `SendMessageBatch` per ten notices over SQS, not one `SendMessage` per run). The records are
 * stored and answered before: a notice that is not sent is logged, and the lineage's next notice
 * makes the integrator read every record since its indexed head.
 */
export class SealedRunNoticeBatch {
  readonly #notifier: IntegrationNotifier;
  readonly #logger: ServiceLogger;
  #pending: SealedRunNotice[] = [];

  constructor(notifier: IntegrationNotifier, logger: ServiceLogger) {
    this.#notifier = notifier;
    this.#logger = logger;
  }

  /** A run's notice, kept until {@link SealedRunNoticeBatch.send}. */
  add(notice: SealedRunNotice): void {
    this.#pending.push(notice);
  }

  /**
   * Sends every notice added so far (none: no call) and forgets them. Never rejects: each notice
   * not sent gets its own error line (lineage, tree size, why).
   */
  async send(): Promise<void> {
    const notices = this.#pending;
    this.#pending = [];
    if (notices.length === 0) return;
    let failures: readonly NoticeFailure[];
    try {
      failures = await this.#notifier.notify(notices);
    } catch (error) {
      failures = notices.map((notice) => ({ notice, error }));
    }
    for (const { notice, error } of failures) {
      this.#logger.error('the sealed-run notice could not be sent; the lineage is integrated at its next run', {
        error,
        lineageId: notice.lineageId,
        treeSize: notice.head.treeSize,
      });
    }
  }
}
