/**
 * Interleaved-median timing: every benchmark figure is set beside its floor measured in the same
 * rounds, so noise from other jobs on a shared machine hits both sides alike.
 *
 * Each round times one batch of every operation, in an order rotated from round to round. Time
 * is this process's CPU time (`process.cpuUsage`, user + system), not wall time: on a shared
 * 2-core machine a wall clock mostly measures how long the scheduler kept the process waiting.
 * An operation's figure is the median over rounds of (batch CPU time ÷ batch size); a ratio is
 * the median over rounds of the two operations' per-call times in that round (paired samples).
 * Batch sizes are calibrated once so a batch takes about `batchMs`. Libraries such as
 * `tinybench` or `mitata` time each task in one block before the next, which lets a noisy second
 * of the machine land on one side of a ratio only; this loop is the small part of them that the
 * ratios need.
 */

/** An operation to time; may be async (it is then awaited one call at a time). */
export type Operation = () => unknown;

/** Options of {@link interleavedMedians}. */
export interface TimingOptions {
  /** Target CPU time of one batch, ms (default 4). */
  readonly batchMs?: number;
  /** Wall-clock budget for the timed rounds after calibration, ms (default 1,500). */
  readonly budgetMs?: number;
  /** Rounds at least, even past the budget (default 5). */
  readonly minRounds?: number;
  /** Rounds at most (default 60). */
  readonly maxRounds?: number;
}

/** CPU time of this process so far, ms. */
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1_000;
};

/** Runs `op` `count` times and returns the CPU time it took, ms. */
async function timeBatch(op: Operation, count: number, async: boolean): Promise<number> {
  const started = cpuMs();
  if (async) for (let i = 0; i < count; i++) await op();
  else for (let i = 0; i < count; i++) op();
  return cpuMs() - started;
}

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Median over rounds of `a[i] ÷ b[i]`: the ratio of two operations timed in the same rounds. */
export function pairedRatio(a: readonly number[], b: readonly number[]): number {
  return median(a.map((value, i) => value / (b[i] as number)));
}

/**
 * Times the operations interleaved and returns, per name, the CPU time of one call in each
 * round, ms (index i of every list is round i).
 *
 * @param operations - name → operation; each is called once for warm-up and calibration first
 * @throws whatever an operation throws (a benchmark that fails is not a figure)
 */
export async function interleavedSamples<K extends string>(
  operations: Readonly<Record<K, Operation>>,
  options: TimingOptions = {},
): Promise<Record<K, number[]>> {
  const { batchMs = 4, budgetMs = 1_500, minRounds = 5, maxRounds = 60 } = options;
  const names = Object.keys(operations) as K[];
  const plan = new Map<K, { op: Operation; async: boolean; batch: number; samples: number[] }>();
  for (const name of names) {
    const op = operations[name];
    const result = op();
    const async = result instanceof Promise;
    if (async) await result;
    // Calibrate: double the batch until it takes a measurable time, then scale to batchMs.
    let batch = 1;
    let elapsed = await timeBatch(op, batch, async);
    while (elapsed < batchMs / 8 && batch < 1 << 20) {
      batch *= 2;
      elapsed = await timeBatch(op, batch, async);
    }
    batch = Math.max(1, Math.round((batch * batchMs) / Math.max(elapsed, 1e-3)));
    plan.set(name, { op, async, batch, samples: [] });
  }
  const started = performance.now();
  for (let round = 0; round < maxRounds; round++) {
    if (round >= minRounds && performance.now() - started > budgetMs) break;
    for (let i = 0; i < names.length; i++) {
      const entry = plan.get(names[(i + round) % names.length] as K);
      if (!entry) continue;
      entry.samples.push((await timeBatch(entry.op, entry.batch, entry.async)) / entry.batch);
    }
  }
  const result = {} as Record<K, number[]>;
  for (const name of names) result[name] = plan.get(name)?.samples ?? [];
  return result;
}
