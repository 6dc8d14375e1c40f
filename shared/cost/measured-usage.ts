import { indexUsagePerWrite, SPARSE_INDEX_LOAD, SPARSE_SEALER_INVOCATIONS_PER_WRITE } from './index-usage';
import type { Usage } from './usage';

/**
 * Guard invocations per write in the sparse scenario: 0.9 (about one message an invocation), as
 * the emulator bench counted them (run of 2026-12-06 13:34 UTC, bench/RESULTS.md "Every count
 * after the record batch, batched notices and eventually consistent proof reads"), before the
 * guard's batching window (docs/infrastructure.md, "The guard's batching window"). Each costs its
 * pollers' `ReceiveMessage` and `DeleteMessageBatch`, one `SendMessageBatch` to `seal-requests`
 * and one Lambda request. Replace it only with a count the bench took (`npm run bench:stack`,
 * "The guard's batches", with the window emulated), never with the fill the window promises.
 */
export const SPARSE_GUARD_INVOCATIONS_PER_WRITE = 0.9;

/**
 * Billed `ReceiveMessage` units of the guard's pollers per sparse write: one per invocation while
 * each got about one 13 KB message (the 13:34 run), so {@link SPARSE_GUARD_INVOCATIONS_PER_WRITE}.
 * Apart from it because SQS bills a receive by its payload's 64 KiB chunks: a full batch of ten
 * bench writes is three units, not one (the bench prints "receive units per write" beside its
 * guard batches).
 */
export const SPARSE_GUARD_RECEIVE_UNITS_PER_WRITE = SPARSE_GUARD_INVOCATIONS_PER_WRITE;

/**
 * Billable units per operation as the emulator bench counted them (docs/infrastructure.md, "Cost
 * and quotas"; bench/RESULTS.md, "Calls per operation"), the functions' and the agent's client's
 * calls together:
 *
 * - `write` (run of 2026-12-06 13:34 UTC, bench/RESULTS.md "Every count after the record batch,
 *   batched notices and eventually consistent proof reads"; the append as built, record then head
 *   and marker, small head, lineage checkpoints unsigned: the defaults): the sparse scenario (50
 *   lineages at one write a second, 1 KiB payload, 100-key manifest), the sealer's path: guard
 *   `SendMessageBatch` to the FIFO queue (one per guard invocation, 0.9 a write); two `GenerateMac` per sealer
 *   invocation, whatever its runs and records: one record-batch MAC for all its records, taken
 *   before they are stored (docs/sealing.md, "The record and its seal"), and one head-state MAC for
 *   all its heads (docs/verifiable-log.md, "Appending"), so `2 *`
 *   {@link SPARSE_SEALER_INVOCATIONS_PER_WRITE} a write (modelled at 0.175 invocations a write, the
 *   dearest the bench has counted; this run counted 0.12, 0.24 `GenerateMac` a write), and no
 *   `VerifyMac` of the sealer's (a warm sealer checks the head it stored from memory; on AWS a run
 *   that lands on another container, a cold start or a head older than 15 minutes still makes
 *   one, at most one a write, $3.00 per million more; the bench's 0.135 are the integrator's,
 *   which `index` models); no `Sign` (the sealer signs only its refusals); the append's
 *   `PutItem`s, **4 WCU** (the record 2, the head 1, the marker 1, docs/sealing.md, "The write";
 *   the bench counted 5.37 `PutItem` WCU a write: 4 of them the append, 1.25 the 5-WCU manifest
 *   item of each lineage's first write, four writes a lineage here, and the integrator's lease,
 *   both left out); the functions' `GetItem` and `Query` (3.24 and 2 a write, the deployment head
 *   read once per sealer invocation, docs/pipeline.md "Concurrency", and the integrator's reads
 *   among them) and the client's proof of its seal (`GetItem` 7.0 for 6.51 read units, `Query`
 *   3.57 for 3.19, records and proof items read eventually consistent, docs/pipeline.md "Learning
 *   the outcome of a write"; and its `BatchGetItem` items, 3.70 read units by their size: the
 *   emulator reports none for them); `PutEvents`; the client's `SendMessage`; the queue pollers'
 *   `ReceiveMessage` + `DeleteMessageBatch` per invocation (guard {@link SPARSE_GUARD_INVOCATIONS_PER_WRITE}, sealer 0.12: 8.3 writes an
 *   invocation); Lambda invocations, GB-s and log bytes of the guard and the sealer (one summary
 *   line per invocation on the success path, docs/pipeline.md "Logs and metrics"). The
 *   integrator's calls (its index tile writes, its `VerifyMac` and `Sign`, its commits and lease,
 *   the sealed-run notices, one `SendMessageBatch` per sealer invocation) are left out here: the
 *   emulator integrates a few writes at a time on an index of a few hundred keys, so `index`
 *   models them instead.
 * - `recall` (run of 2026-12-05 13:33 UTC): latest record of a 100-record lineage: two events
 *   (`RecallRequested`, `TriageCompleted`), triage's reads and its stored report (2 WCU), the
 *   client's proof reads.
 * - `index`: the deployment index's share of a write, modelled at 10^6 keys for the sparse
 *   scenario at its nominal rate (shared/cost/index-usage.ts): the sealer's index read per run and
 *   the integrator's work per integration, amortized. The deploy estimate adds it to `write`.
 *
 * Read units of the functions are a lower bound (the emulator reports none for `BatchGetItem`).
 */
export const MEASURED_USAGE = {
  source:
    'bench/RESULTS.md, emulator bench runs of 2026-12-06 13:34 UTC (write) and 2026-12-05 13:33 UTC (recall); the index modelled at 10^6 keys',
  write: {
    kmsSymmetricRequest: 2 * SPARSE_SEALER_INVOCATIONS_PER_WRITE,
    kmsAsymmetricRequest: 0,
    dynamodbWriteRequestUnit: 4,
    dynamodbReadRequestUnit: 3.24 + 2 + 6.51 + 3.19 + 3.7,
    sqsStandardRequest: 1 + SPARSE_GUARD_RECEIVE_UNITS_PER_WRITE + SPARSE_GUARD_INVOCATIONS_PER_WRITE,
    sqsFifoRequest: SPARSE_GUARD_INVOCATIONS_PER_WRITE + 2 * 0.12,
    eventBridgeCustomEvent: 1,
    lambdaRequest: SPARSE_GUARD_INVOCATIONS_PER_WRITE + 0.12,
    lambdaArmGbSecond: 0.0304 + 0.0473,
    logsIngestedGb: (997 + 243) / 1e9,
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
} as const satisfies { source: string; write: Usage; recall: Usage; index: Usage };
