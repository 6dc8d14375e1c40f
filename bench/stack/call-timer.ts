/**
 * Time spent in AWS calls, by operation (`Service.Operation`), as the functions' counting proxy
 * timed them (bench/stack/counting-proxy.ts, `timed`): where a function's invocation waits. Read
 * as differences between two snapshots, like {@link CallTally}'s counts.
 */
import { quantile } from './stack-report';

/** Round trips of one operation, milliseconds, in the order they ended. */
export type CallTimes = ReadonlyMap<string, readonly number[]>;

/** A running record of round trips by operation. */
export class CallTimer {
  readonly #by = new Map<string, number[]>();

  /** The proxy's `timed` hook. */
  record(service: string, operation: string, ms: number): void {
    const key = `${service}.${operation}`;
    const times = this.#by.get(key);
    if (times) times.push(ms);
    else this.#by.set(key, [ms]);
  }

  /** The round trips so far (a copy). */
  snapshot(): CallTimes {
    return new Map([...this.#by].map(([key, times]) => [key, [...times]]));
  }
}

/** The round trips of `after` that `before` did not hold yet, by operation (operations with none left out). */
export function timesSince(after: CallTimes, before: CallTimes): CallTimes {
  const out = new Map<string, readonly number[]>();
  for (const [key, times] of after) {
    const rest = times.slice(before.get(key)?.length ?? 0);
    if (rest.length > 0) out.set(key, rest);
  }
  return out;
}

/**
 * A markdown table of `times`, most total time first: calls, total seconds, p50 and p99
 * milliseconds. The total is summed over calls that may overlap (concurrent lineages of one
 * invocation, concurrent functions), so it is time spent waiting, not wall time.
 */
export function callTimeTable(times: CallTimes, top = 16): string[] {
  const rows = [...times]
    .map(([key, ms]) => ({ key, ms, total: ms.reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.total - a.total)
    .slice(0, top);
  const out = ['| call | calls | total s | p50 ms | p99 ms |', '| --- | ---: | ---: | ---: | ---: |'];
  for (const { key, ms, total } of rows) {
    out.push(
      `| ${key} | ${ms.length} | ${(total / 1000).toFixed(1)} | ${quantile(ms, 0.5).toFixed(0)} | ${quantile(ms, 0.99).toFixed(0)} |`,
    );
  }
  return out;
}
