import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** Metric names (namespace `Reseal`), one count per event. See docs/pipeline.md. */
export const MetricName = {
  /** guard: a write passed the stale-state guard and was forwarded to seal-requests. */
  WriteAccepted: 'WriteAccepted',
  /** guard or sealer: a write was refused (dimension `reason`). */
  WriteRejected: 'WriteRejected',
  /** sealer: a record was appended. */
  RecordSealed: 'RecordSealed',
  /** sealer: a redelivered residual id found its record already sealed. */
  SealDuplicate: 'SealDuplicate',
  /** sealer: the head moved under an append; re-read and re-sealed. */
  SealRetry: 'SealRetry',
  /** sealer: a write could not be appended; a conflict record was written (dimension `reason`). */
  SealConflict: 'SealConflict',
  /** triage: a recall finished (dimensions `outcome`, `verification`, `verdict`). */
  TriageVerdict: 'TriageVerdict',
  /** triage: a RecallRequested event was not valid and was dropped after logging. */
  RecallInvalid: 'RecallInvalid',
  /** integrator: one integration signed a new deployment checkpoint (dimension `published`). */
  Integrated: 'Integrated',
  /** integrator: a lineage was left out with evidence (dimension `kind`, docs/deployment-log.md "Evidence"). */
  IntegrationEvidence: 'IntegrationEvidence',
  /**
   * integrator: one try at the integration lease (dimension `outcome`: `TAKEN`, `HELD`,
   * `OVERRIDDEN`: held too long, integrated without it; docs/deployment-log.md "One integration at a time").
   */
  IntegrationLease: 'IntegrationLease',
  /**
   * sealer: a run was refused against the deployment index (dimension `kind`: the finding, or
   * `INDEX_UNVERIFIABLE`; docs/sealing.md "The index floor").
   */
  SealBehindIndex: 'SealBehindIndex',
  /**
   * sealer: the index floor came from a deployment checkpoint that does not meet the witness
   * policy now (dimension `refusal`, e.g. `QUORUM_STALE`), or from a state remembered because the
   * table showed an older one (`ROLLED_BACK`).
   */
  IndexFloorUnfresh: 'IndexFloorUnfresh',
  /**
   * integrator: one heartbeat (dimension `outcome`: `PUBLISHED`, `NOT_PUBLISHED`, `FRESH`,
   * `EMPTY_LOG`, `NO_WITNESS`; docs/deployment-log.md "Freshness window and interval").
   */
  Heartbeat: 'Heartbeat',
} as const;
/** One of {@link MetricName}. */
export type MetricName = (typeof MetricName)[keyof typeof MetricName];

/** What a service needs from metrics: a count with optional per-event dimensions. */
export interface PipelineMetrics {
  count(name: MetricName, dimensions?: Readonly<Record<string, string>>): void;
}

/** What a service needs from the logger; Powertools `Logger` satisfies it. */
export interface ServiceLogger {
  appendKeys(attributes: Record<string, unknown>): void;
  info(message: string, ...attributes: Record<string, unknown>[]): void;
  warn(message: string, ...attributes: Record<string, unknown>[]): void;
  error(message: string, ...attributes: Record<string, unknown>[]): void;
}

/**
 * {@link PipelineMetrics} over Powertools Metrics. A count with dimensions goes through
 * `singleMetric()` (flushed at once), so per-record dimensions never leak onto other metrics of
 * the batch; plain counts are flushed by middy `logMetrics`.
 */
export class PowertoolsPipelineMetrics implements PipelineMetrics {
  readonly #metrics: Metrics;
  constructor(metrics: Metrics) {
    this.#metrics = metrics;
  }
  count(name: MetricName, dimensions?: Readonly<Record<string, string>>): void {
    if (!dimensions || Object.keys(dimensions).length === 0) {
      this.#metrics.addMetric(name, MetricUnit.Count, 1);
      return;
    }
    const single = this.#metrics.singleMetric();
    for (const [key, value] of Object.entries(dimensions)) single.addDimension(key, value);
    single.addMetric(name, MetricUnit.Count, 1);
  }
}

/**
 * Runs `work`; an infrastructure failure it rejects with (KMS, a table, queue or bus error) is
 * logged at error, with the error's name, message and cause, then rethrown for a retry
 * (docs/pipeline.md, "Logs and metrics"): a message or event waiting for its retry, or in a
 * dead-letter queue, has a line naming why. The services settle every other outcome themselves.
 *
 * @param message - the log line, saying what failed and what is retried
 * @throws what `work` throws, unchanged
 */
export async function logInfrastructureFailure<T>(
  logger: ServiceLogger,
  message: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    logger.error(message, {
      error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
      cause: error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined,
    });
    throw error;
  }
}

/** Keys every log line of a record carries; reset before each record so none leak to the next. */
export function beginRecord(logger: Logger, messageId: string): void {
  logger.removeKeys(['residualId', 'lineageId', 'messageId', 'requestId']);
  logger.appendKeys({ messageId });
}

/** Reads a required environment variable, or throws at cold start. */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is required`);
  return value;
}
