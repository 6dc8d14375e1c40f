import type { ResidualRejectedDetail } from '../pipeline/residual-rejected-detail';
import type { ResidualSealedDetail } from '../pipeline/residual-sealed-detail';
import type { TriageCompletedDetail } from '../pipeline/triage-completed-detail';

/**
 * Port for the pipeline's outgoing events (EventBridge source `reseal`). Adapter:
 * `EventBridgePublisher` (adapters/). Each method resolves once the event is accepted
 * and rejects otherwise, so the caller's message is retried (events are at least once).
 */
export interface EventPublisher {
  /**
   * `ResidualSealed`: the runs one sealer invocation appended (or whose records a redelivery found
   * appended), each with its head; one call per invocation, more only past 256 KiB (docs/pipeline.md).
   */
  residualSealed(detail: ResidualSealedDetail): Promise<void>;
  /** `ResidualRejected`: a write was refused, malformed, or could not be appended. */
  residualRejected(detail: ResidualRejectedDetail): Promise<void>;
  /** `TriageCompleted`: a recall was triaged or refused. */
  triageCompleted(detail: TriageCompletedDetail): Promise<void>;
}
