import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricName } from './metric-name';
import type { PipelineMetrics } from './pipeline-metrics';

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
