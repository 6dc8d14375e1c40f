/**
 * What the emulator's SQS event source mappings handed each function, read from MiniStack's own
 * log (`.emulator/ministack-<port>.log`, scripts/emulator/emulator.ts): after each batch it logs
 * `ESM: Lambda <function> processed <n> SQS messages from <queue>` (with `(<k> partial
 * failures)` when the function reported some), and `ESM: Lambda <function> failed processing SQS
 * batch` when the invocation failed. With the Powertools lines of the function's output that
 * follow (each with a millisecond `timestamp` and the invocation's `function_request_id`), this
 * tells what MiniStack bounds (how many records an invocation gets, how long the queue waits
 * between invocations) from what the function does with them (how long its invocation takes).
 * Pure: the parser of what the emulator wrote.
 */

/** One batch an event source mapping delivered and its function finished. */
export interface EventSourceBatch {
  /** The log line's time, ms since the Unix epoch (MiniStack logs whole seconds, UTC). */
  readonly atMs: number;
  readonly functionName: string;
  readonly queueName: string;
  /** Records in the batch. */
  readonly records: number;
  /** Records the function reported failed (partial batch response). */
  readonly failed: number;
}

/** One sealer invocation, from its `batch handled` line (functions/sealer/create-handler.ts). */
export interface SealerInvocation {
  /** When it ended (the line's Powertools `timestamp`), ms since the Unix epoch. */
  readonly endMs: number;
  /** From the handler's start to its end, ms. */
  readonly durationMs: number;
  readonly records: number;
  readonly lineages: number;
  readonly failed: number;
}

const LINE =
  /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) \S+ \[[^\]]+\] ESM: Lambda (\S+) processed (\d+) SQS messages from (\S+)(?: \((\d+) partial failures\))?/;

/** The batches of a MiniStack log, in log order. */
export function eventSourceBatches(log: string): EventSourceBatch[] {
  const out: EventSourceBatch[] = [];
  for (const line of log.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    out.push({
      atMs: Date.parse(`${m[1]}T${m[2]}Z`),
      functionName: m[3] as string,
      queueName: m[5] as string,
      records: Number(m[4]),
      failed: Number(m[6] ?? 0),
    });
  }
  return out;
}

/** The sealer's `batch handled` lines of a MiniStack log (the functions' output it logs), in order of their end. */
export function sealerInvocations(log: string): SealerInvocation[] {
  const out: SealerInvocation[] = [];
  for (const line of log.split('\n')) {
    if (!line.startsWith('{') || !line.includes('"batch handled"')) continue;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    const endMs = typeof entry.timestamp === 'string' ? Date.parse(entry.timestamp) : Number.NaN;
    if (entry.message !== 'batch handled' || Number.isNaN(endMs)) continue;
    out.push({
      endMs,
      durationMs: Number(entry.durationMs),
      records: Number(entry.records),
      lineages: Number(entry.lineages),
      failed: Number(entry.failed),
    });
  }
  return out.sort((a, b) => a.endMs - b.endMs);
}

/**
 * The sealer's invocations between two instants, summarised: what bounds its rate on one FIFO
 * event source (MiniStack delivers one batch at a time per FIFO queue, AWS one per message group):
 * records per invocation, the invocations' own time, and the queue's wait between one
 * invocation's end and the next one's start (the emulator's polling, dispatch and worker
 * hand-over). `busy` is the invocations' time over the span from the first start to the last end.
 */
export function sealerThroughput(
  invocations: readonly SealerInvocation[],
  fromMs: number,
  toMs: number,
): {
  invocations: number;
  records: number;
  recordsPerInvocation: number;
  durationsMs: number[];
  gapsMs: number[];
  busy: number;
  recordsPerSecond: number;
} {
  const within = invocations.filter((i) => i.endMs - i.durationMs >= fromMs && i.endMs <= toMs);
  const records = within.reduce((sum, i) => sum + i.records, 0);
  const durationsMs = within.map((i) => i.durationMs);
  const gapsMs = within.slice(1).map((i, k) => i.endMs - i.durationMs - (within[k] as SealerInvocation).endMs);
  const first = within[0];
  const last = within.at(-1);
  const spanMs = first && last ? last.endMs - (first.endMs - first.durationMs) : 0;
  return {
    invocations: within.length,
    records,
    recordsPerInvocation: within.length > 0 ? records / within.length : 0,
    durationsMs,
    gapsMs,
    busy: spanMs > 0 ? durationsMs.reduce((a, b) => a + b, 0) / spanMs : 0,
    recordsPerSecond: spanMs > 0 ? records / (spanMs / 1000) : 0,
  };
}

/** What one function's event sources delivered in a span (see {@link deliveredBatches}). */
export interface DeliveredBatches {
  /** Batches, one invocation each. */
  readonly batches: number;
  /** Records delivered, failed ones included. */
  readonly records: number;
  /** Records per invocation (0 without a batch). */
  readonly perInvocation: number;
  /** Records of each batch, in log order. */
  readonly sizes: readonly number[];
}

/**
 * The batches `functionName` was handed between two instants (ms since the Unix epoch), failed
 * records included: how full the guard's batches really were (bench/stack/guard-window.ts).
 * MiniStack logs whole seconds, so a batch logged in the second `fromMs` falls in counts.
 */
export function deliveredBatches(
  batches: readonly EventSourceBatch[],
  functionName: string,
  fromMs: number,
  toMs: number,
): DeliveredBatches {
  const fromSecondMs = Math.floor(fromMs / 1000) * 1000;
  const sizes = batches
    .filter((b) => b.functionName === functionName && b.atMs >= fromSecondMs && b.atMs <= toMs)
    .map((b) => b.records + b.failed);
  const records = sizes.reduce((sum, n) => sum + n, 0);
  return { batches: sizes.length, records, perInvocation: sizes.length > 0 ? records / sizes.length : 0, sizes };
}
