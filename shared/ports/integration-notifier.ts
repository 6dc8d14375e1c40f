import type { SealedRunNotice } from '../integrator/sealed-run-notice';

/**
 * How the sealer tells the integrator a run was sealed (docs/deployment-log.md, "Sealed-run
 * notices"): one notice per run. Adapters: `SqsIntegrationNotifier` (adapters/); tests hand
 * notices straight to the integrator.
 */
export interface IntegrationNotifier {
  /** Sends one notice. Rejects when it could not be sent (the sealer logs it; the write stays sealed). */
  notify(notice: SealedRunNotice): Promise<void>;
}
