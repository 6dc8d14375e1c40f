/**
 * Interleaved-median timing: every benchmark figure is set beside its floor measured in the same
 * rounds, so noise from other jobs on a shared machine hits both sides alike.
 *
 * Each round times one batch of every operation, in an order rotated from round to round; an
 * operation's figure is the median over rounds of (batch time ÷ batch size). Batch sizes are
 * calibrated once so a batch takes about `batchMs`. Libraries such as `tinybench` or `mitata`
 * time each task in one block before the next, which lets a noisy second of the machine land on
 * one side of a ratio only; this loop is the small part of them that the ratios need.
 */

/** An operation to time; may be async (it is then awaited one call at a time). */
export type Operation = () => unknown;

/** Options of {@link interleavedMedians}. */
export interface TimingOptions {
  /** Target wall time of one batch, ms (default 4). */
  readonly batchMs?: number;
  /** Wall-clock budget for the timed rounds after warm-up, ms (default 1,500). */
  readonly budgetMs?: number;
  /** Rounds at least, even past the budget (default 5). */
  readonly minRounds?: number;
  /** Rounds at most (default 60). */
  readonly maxRounds?: number;
}

const now = () => performance.now();

/** Runs `op` `count` times and returns the elapsed wall time in ms. */
async function timeBatch(op: Operation, count: number, async: boolean): Promise<number> {
  const started = now();
  if (async) for (let i = 0; i < count; i++) await op();
  else for (let i = 0; i < count; i++) op();
  return now() - started;
}

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Times the operations interleaved and returns, per name, the median time of one call in ms.
 *
 * @param operations - name → operation; each is called once for warm-up and calibration first
 * @throws whatever an operation throws (a benchmark that fails is not a figure)
 */
export async function interleavedMedians<K extends string>(
  operations: Readonly<Record<K, Operation>>,
  options: TimingOptions = {},
): Promise<Record<K, number>> {
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
  const started = now();
  for (let round = 0; round < maxRounds; round++) {
    if (round >= minRounds && now() - started > budgetMs) break;
    for (let i = 0; i < names.length; i++) {
      const entry = plan.get(names[(i + round) % names.length] as K);
      if (!entry) continue;
      entry.samples.push((await timeBatch(entry.op, entry.batch, entry.async)) / entry.batch);
    }
  }
  const result = {} as Record<K, number>;
  for (const name of names) result[name] = median(plan.get(name)?.samples ?? [Number.NaN]);
  return result;
}
