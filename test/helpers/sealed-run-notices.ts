import type { IntegrationReport, IntegratorService } from '../../functions/integrator/integrator-service';
import type { SealedRunNotice } from '../../shared/integrator/sealed-run-notice';
import type { IntegrationNotifier, NoticeFailure } from '../../shared/ports/integration-notifier';

/**
 * The notifier of in-process sealers (docs/deployment-log.md, "Sealed-run notices"): it keeps
 * each notice until a test integrates it, as the integration queue would hold it.
 */
export class SealedRunNotices implements IntegrationNotifier {
  /** The notices sent and not yet taken, oldest first. */
  readonly pending: SealedRunNotice[] = [];

  async notify(notices: readonly SealedRunNotice[]): Promise<readonly NoticeFailure[]> {
    this.pending.push(...notices);
    return [];
  }

  /** Every pending notice, removed (the batch one integration receives). */
  take(): SealedRunNotice[] {
    return this.pending.splice(0);
  }

  /**
   * Integrates every pending notice as one batch, with a new `integrator()` for each try: a head
   * moved by another integrator (a lost condition, docs/deployment-log.md) is retried.
   *
   * @throws the last try's error when all `tries` fail
   */
  async integrateRetrying(integrator: () => IntegratorService, tries = 5): Promise<IntegrationReport> {
    const batch = this.take();
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await integrator().integrate(batch);
      } catch (error) {
        if (attempt >= tries) throw error;
      }
    }
  }
}
