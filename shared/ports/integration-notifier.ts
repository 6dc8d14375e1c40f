import type { SealedRunNotice } from '../integrator/sealed-run-notice';

/** A notice the integration queue did not take, and why. */
export interface NoticeFailure {
  readonly notice: SealedRunNotice;
  /** The call's error, or the queue's word on that one entry (an `Error` naming its code). */
  readonly error: unknown;
}

/**
 * How the sealer tells the integrator runs were sealed (docs/deployment-log.md, "Sealed-run
 * notices"): one notice per run, the notices of one sealer invocation handed over together once
 * its runs are done. Adapters: `SqsIntegrationNotifier` (adapters/; `SendMessageBatch`); tests
 * hand notices straight to the integrator.
 */
export interface IntegrationNotifier {
  /**
   * Sends `notices`. Resolves with those not sent (none when all were), so the sealer logs each
   * one; rejects only when the whole hand-over failed (the sealer then logs every notice). The
   * writes are sealed either way.
   */
  notify(notices: readonly SealedRunNotice[]): Promise<readonly NoticeFailure[]>;
}
