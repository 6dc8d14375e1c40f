import {
  indexUsagePerWrite,
  SPARSE_INDEX_LOAD,
  SPARSE_SEALER_INVOCATIONS_PER_WRITE,
  sparseIndexLoad,
} from './index-usage';
import type { Usage } from './usage';

/**
 * Guard invocations per write in the sparse scenario: 0.13 (7.7 messages an invocation), as the
 * emulator bench counted them with the guard's 1 s batching window emulated (run of 2026-12-06
 * 18:53 UTC, bench/RESULTS.md "Notice-vouched heads, the sealer's copies of the head and the
 * guard's CPU", table "The guard's batches": 26 invocations for 200 writes published at 50.0
 * writes/s; 0.135 at 15:59). Without the window it was 0.9, about one message an invocation (the 13:34 run).
 * Each costs its pollers' `DeleteMessageBatch`, one `SendMessageBatch` to `seal-requests` and one
 * Lambda request. Replace it only with a count the bench took (`npm run bench:stack`, "The
 * guard's batches"), never with the fill the window promises (docs/infrastructure.md, "The
 * guard's batching window").
 */
export const SPARSE_GUARD_INVOCATIONS_PER_WRITE = 0.13;

/**
 * Billed `ReceiveMessage` units of the guard's pollers per sparse write, the same run: 0.31. Apart
 * from {@link SPARSE_GUARD_INVOCATIONS_PER_WRITE} because SQS bills a receive by its payload's
 * 64 KiB chunks: a full batch of ten 13 KB bench writes is three units, not one (the bench prints
 * "receive units per write" beside its guard batches).
 */
export const SPARSE_GUARD_RECEIVE_UNITS_PER_WRITE = 0.31;

/**
 * Billed units of one sealer invocation's FIFO traffic in the same run: the guard's
 * `SendMessageBatch` of a full batch (100,767 bytes a call) is two 64 KiB chunks, and so is the
 * sealer pollers' `ReceiveMessage` of it.
 */
const FIFO_CHUNKS_PER_BATCH = 2;

/**
 * The guard's share of a sparse write (units per write), apart from {@link MEASURED_USAGE}'s
 * `write` because it depends on the deployment's `guardBatchingWindowSeconds`
 * (docs/infrastructure.md, "The guard's batching window"):
 *
 * - `unbatched` (the default, no window; run of 2026-12-06 13:34 UTC): about one message an
 *   invocation, 0.9 invocations a write, each its pollers' `ReceiveMessage` (one 64 KiB chunk) and
 *   `DeleteMessageBatch`, one `SendMessageBatch` to `seal-requests` (one chunk), one Lambda
 *   request, 0.0304 GB-s and 997 log bytes a write;
 * - `batched` (a 1 s window, emulated; run of 18:53 UTC): {@link SPARSE_GUARD_INVOCATIONS_PER_WRITE}
 *   invocations, {@link SPARSE_GUARD_RECEIVE_UNITS_PER_WRITE} receive units, a
 *   `SendMessageBatch` of two chunks an invocation, 0.0087 GB-s and 253 log bytes a write (0.0208
 *   at 15:59, before the guard took the sealer's checks of the two large bodies, bench/write-cpu.ts).
 */
export const SPARSE_GUARD_SHARE = {
  unbatched: {
    sqsStandardRequest: 0.9 + 0.9,
    sqsFifoRequest: 0.9,
    lambdaRequest: 0.9,
    lambdaArmGbSecond: 0.0304,
    logsIngestedGb: 997 / 1e9,
  },
  batched: {
    sqsStandardRequest: SPARSE_GUARD_RECEIVE_UNITS_PER_WRITE + SPARSE_GUARD_INVOCATIONS_PER_WRITE,
    sqsFifoRequest: FIFO_CHUNKS_PER_BATCH * SPARSE_GUARD_INVOCATIONS_PER_WRITE,
    lambdaRequest: SPARSE_GUARD_INVOCATIONS_PER_WRITE,
    lambdaArmGbSecond: 0.0087,
    logsIngestedGb: 253 / 1e9,
  },
} as const satisfies Record<'unbatched' | 'batched', Usage>;

/**
 * Read units of the sealer's `GetItem` (1.63) and `Query` (0.61) per sparse write, counted apart
 * from the other functions' (run of 2026-12-07 01:22 UTC, bench/RESULTS.md "Heads MAC'd under the
 * notice data key"): its runs' heads and records past them, the deployment head once per invocation.
 */
export const SEALER_READ_UNITS_PER_WRITE = 1.63 + 0.61;

/**
 * Read units of the agent's client per write, from publish to its proven seal, in the paced
 * scenario of the same run (p50 1.7 s): `GetItem` 7.35, `Query` 3.33, `BatchGetItem` items 1.88 by
 * their size (docs/pipeline.md, "Learning the outcome of a write").
 */
export const CLIENT_OUTCOME_READ_UNITS_PER_WRITE = 7.35 + 3.33 + 1.88;

/**
 * Billable units per operation as the emulator bench counted them (docs/infrastructure.md, "Cost
 * and quotas"; bench/RESULTS.md, "Calls per operation"), the functions' and the agent's client's
 * calls together:
 *
 * - `write`: the sparse scenario (50 lineages at one write a second, 1 KiB payload, 100-key
 *   manifest), the guard's 1 s window emulated, its share kept apart; the append as built (record
 *   then head and marker, small head, lineage checkpoints unsigned: the defaults). The sealer's
 *   path (the guard's `SendMessageBatch` to the FIFO queue is in {@link SPARSE_GUARD_SHARE}, not
 *   here): per sealer invocation ({@link SPARSE_SEALER_INVOCATIONS_PER_WRITE}, modelled at 0.175 a
 *   write, the dearest the bench has counted: the runs of 2026-12-07 counted 0.10, ten writes an
 *   invocation) one `GenerateMac`, whatever its runs and records (one record-batch MAC for all its
 *   records, taken before they are stored, docs/sealing.md "The record and its seal"; its heads
 *   are MAC'd in process under its notice data key, no KMS call, docs/verifiable-log.md
 *   "Appending"; the run of 2026-12-07 01:22 UTC counted 0.100 `GenerateMac` against 0.100
 *   invocations), one `ResidualSealed` event for every run it sealed (docs/pipeline.md, "Message
 *   shapes"), its pollers' `ReceiveMessage` (two chunks) and `DeleteMessageBatch`, and one Lambda
 *   request; no `VerifyMac` of the sealer's (a head another container stored is checked under its
 *   data key, one `Decrypt` per container and data key); no `Sign` (the sealer signs only its
 *   refusals); the append's `PutItem`s, **4 WCU** (the record 2, the head 1, the marker 1,
 *   docs/sealing.md, "The write"; the bench counted 5.23 `PutItem` WCU a write: 4 of them the
 *   append, the rest the 5-WCU manifest item of each lineage's first write, four writes a lineage
 *   here, left out); **the sealer's** `GetItem` and `Query` (1.63 and 0.61 read units a write, run
 *   of 2026-12-07 01:22 UTC, each function's calls counted apart: a run's head and the records
 *   past it read as an eventually consistent copy when they lead straight to the conditional
 *   append, docs/sealing.md "The reads of a run"; the deployment head read once per sealer
 *   invocation, docs/pipeline.md "Concurrency"; the integrator's reads are not here: `index`
 *   models them, where the runs of 2026-12-06 counted them in both) and **the client's** proof of
 *   its seal in the paced scenario (10 lineages at one write a second, which the emulator seals as
 *   they come: p50 1.7 s from publish, the same run; `GetItem` 9.70 for 7.35 read units, `Query`
 *   5.00 for 3.33, and its `BatchGetItem` items, 1.88 read units by their size, the emulator
 *   reporting none for them; the 50-lineage scenario's own 9.5 units (7.33 reported, 2.15 by
 *   size) were fewer only because the bench waits on eight writes at a time there, so a write
 *   queued behind the emulator's backlog is not polled; docs/pipeline.md "Learning the outcome of a write": a poll every 500 ms, the
 *   refusals on a backoff, the local admission check one head read); the client's `SendMessage`;
 *   Lambda invocations, GB-s and log bytes of the sealer (one summary line per invocation on the
 *   success path, docs/pipeline.md "Logs and metrics"; 0.0251 GB-s and 227 bytes, the run of
 *   2026-12-06 18:53 UTC: the runs of 2026-12-07 ran beside tests, their durations are not kept).
 *   The integrator's calls (its reads, its index tile writes, its commits and lease, its `Sign`,
 *   the sealed-run notices, one `SendMessageBatch` per sealer invocation) are left out here: the
 *   emulator integrates a few writes at a time on an index of a few hundred keys, so `index`
 *   models them instead.
 * - `recall` (run of 2026-12-05 13:33 UTC): latest record of a 100-record lineage: two events
 *   (`RecallRequested`, `TriageCompleted`), triage's reads and its stored report (2 WCU), the
 *   client's proof reads.
 * - `guard`: the guard's share of a write, without and with its batching window
 *   ({@link SPARSE_GUARD_SHARE}); the deploy estimate adds the one of the deployment's setting.
 * - `index`: the deployment index's share of a write, modelled at 10^6 keys for the sparse
 *   scenario at its nominal rate (shared/cost/index-usage.ts): the sealer's index reads per
 *   invocation and the integrator's work per integration, amortized, less the sealer's
 *   deployment-head reads `write` already holds (`MEASURED_SEALER_HEAD_READ_UNITS`), at the
 *   default 2 s interval; `indexAt` the same at another interval ({@link sparseIndexLoad}). The
 *   deploy estimate adds the one of the deployment's interval to `write`.
 *
 * Read units of the functions are a lower bound (the emulator reports none for `BatchGetItem`).
 */
export const MEASURED_USAGE = {
  source:
    "bench/RESULTS.md, emulator bench runs of 2026-12-07 01:22 UTC (write: the sealer's and the client's calls), 2026-12-06 18:53 UTC (the sealer's GB-s and log bytes; the guard's share with a 1 s window), 2026-12-06 13:34 UTC (the guard's share without a window, the default) and 2026-12-05 13:33 UTC (recall); the index modelled at 10^6 keys",
  write: {
    kmsSymmetricRequest: SPARSE_SEALER_INVOCATIONS_PER_WRITE,
    kmsAsymmetricRequest: 0,
    dynamodbWriteRequestUnit: 4,
    dynamodbReadRequestUnit: SEALER_READ_UNITS_PER_WRITE + CLIENT_OUTCOME_READ_UNITS_PER_WRITE,
    sqsStandardRequest: 1,
    sqsFifoRequest: (FIFO_CHUNKS_PER_BATCH + 1) * SPARSE_SEALER_INVOCATIONS_PER_WRITE,
    eventBridgeCustomEvent: SPARSE_SEALER_INVOCATIONS_PER_WRITE,
    lambdaRequest: SPARSE_SEALER_INVOCATIONS_PER_WRITE,
    lambdaArmGbSecond: 0.0251,
    logsIngestedGb: 227 / 1e9,
  },
  recall: {
    dynamodbWriteRequestUnit: 2,
    dynamodbReadRequestUnit: 4.333 + 3 + 1,
    eventBridgeCustomEvent: 2,
    lambdaRequest: 1,
    lambdaArmGbSecond: 0.1145,
    logsIngestedGb: 1427 / 1e9,
  },
  index: indexUsagePerWrite(SPARSE_INDEX_LOAD),
  indexAt: (intervalSeconds: number): Usage => indexUsagePerWrite(sparseIndexLoad(intervalSeconds)),
  guard: SPARSE_GUARD_SHARE,
} as const satisfies {
  source: string;
  write: Usage;
  recall: Usage;
  index: Usage;
  indexAt: (intervalSeconds: number) => Usage;
  guard: Record<'unbatched' | 'batched', Usage>;
};
