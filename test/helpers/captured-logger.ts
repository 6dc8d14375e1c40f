import { Logger } from '@aws-lambda-powertools/logger';

/** One JSON line a {@link capturedLogger} printed, parsed. */
export type LogLine = Record<string, unknown> & { readonly level: string; readonly message: string };

/**
 * A Powertools `Logger` at `INFO` whose lines are kept instead of printed, as Lambda would ingest
 * them (one JSON line each, the Lambda context's keys included once `injectLambdaContext` ran):
 * `lines()` parsed, `bytes()` their UTF-8 size (what CloudWatch Logs bills).
 */
export function capturedLogger(serviceName: string) {
  const printed: string[] = [];
  const logger = new Logger({ serviceName, logLevel: 'INFO' });
  const keep = (line: string) => void printed.push(line);
  // Powertools prints through its own `Console`; each level's method gets the JSON line.
  (logger as unknown as { console: Record<string, (line: string) => void> }).console = {
    debug: keep,
    info: keep,
    log: keep,
    warn: keep,
    error: keep,
    trace: keep,
  };
  return {
    logger,
    lines: (): LogLine[] => printed.map((line) => JSON.parse(line) as LogLine),
    bytes: (): number => printed.reduce((sum, line) => sum + Buffer.byteLength(line, 'utf8'), 0),
  };
}
