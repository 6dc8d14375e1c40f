import { withNoticeAuth } from '../../shared/integrator/notice-mac';
import type { SealedRunNotice } from '../../shared/integrator/sealed-run-notice';
import type { IntegrationNotifier, NoticeFailure } from '../../shared/ports/integration-notifier';
import type { NoticeKeyIssuer } from '../../shared/ports/notice-key';
import type { ServiceLogger } from '../common/service-logger';

/**
 * The sealed-run notices of one sealer invocation (docs/deployment-log.md, "Sealed-run notices"):
 * each run adds its notice once its head moved, without waiting for anything, and the invocation
 * sends them all together once its runs are done ({@link SealedRunNoticeBatch.send}: one
 * `SendMessageBatch` per ten notices over SQS, not one `SendMessage` per run). The records are
 * stored and answered before: a notice that is not sent is logged, and the lineage's next notice
 * makes the integrator read every record since its indexed head. Each notice carries `auth`, its
 * MAC under the notice key's current data key (one KMS request per container, not per notice); when
 * there is no key, or none could be had (logged), the notices go without it: triggers only, which
 * vouch for no head, and the write is never refused for it.
 */
export class SealedRunNoticeBatch {
  readonly #notifier: IntegrationNotifier;
  readonly #logger: ServiceLogger;
  readonly #noticeKey: NoticeKeyIssuer | null;
  #pending: SealedRunNotice[] = [];

  constructor(notifier: IntegrationNotifier, logger: ServiceLogger, noticeKey: NoticeKeyIssuer | null = null) {
    this.#notifier = notifier;
    this.#logger = logger;
    this.#noticeKey = noticeKey;
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
    const pending = this.#pending;
    this.#pending = [];
    if (pending.length === 0) return;
    const notices = await this.#authenticated(pending);
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

  /** `notices` with their `auth`, or as they are when there is no data key (logged once). */
  async #authenticated(notices: readonly SealedRunNotice[]): Promise<readonly SealedRunNotice[]> {
    if (!this.#noticeKey) return notices;
    try {
      const { plaintext, blob } = await this.#noticeKey.dataKey();
      return notices.map((notice) => withNoticeAuth(notice, plaintext, blob));
    } catch (error) {
      this.#logger.error('no notice data key: the notices go without auth and vouch for no head', {
        error,
        notices: notices.length,
      });
      return notices;
    }
  }
}
