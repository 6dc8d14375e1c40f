import type { MetricName } from './metric-name';

/** What a service needs from metrics: a count with optional per-event dimensions. */
export interface PipelineMetrics {
  count(name: MetricName, dimensions?: Readonly<Record<string, string>>): void;
}
