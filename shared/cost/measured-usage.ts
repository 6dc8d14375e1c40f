import { indexUsagePerWrite, SPARSE_INDEX_LOAD, SPARSE_SEALER_INVOCATIONS_PER_WRITE } from './index-usage';
import type { Usage } from './usage';

/**
 * Billable units per operation as the emulator bench counted them (docs/infrastructure.md, "Cost
 * and quotas"; bench/RESULTS.md, "Calls per operation"), the functions' and the agent's client's
 * calls together:
 *
 * - `write` (run of 2026-12-06 03:57 UTC, bench/RESULTS.md "One deployment-head read per sealer
 *   invocation"; the append as built, record then head and marker, small head, lineage
 *   checkpoints unsigned: the defaults): the sparse scenario (50 lineages at one write a second,
 *   1 KiB payload, 100-key manifest), the sealer's path: guard `SendMessageBatch` to the FIFO
 *   queue (0.955 calls a write), the record's `GenerateMac` and the sealer invocation's one
 *   head-state `GenerateMac` (run of 2026-12-06 09:54 UTC, bench/RESULTS.md "One head-state MAC
 *   per sealer invocation": 1.175 `GenerateMac` a write, 0.175 of them head-state MACs, one per
 *   invocation of 5.7 writes, against 2.000 with one per run), and no `VerifyMac` (run of 2026-12-06 04:16 UTC, bench/RESULTS.md "A warm sealer remembers the
 *   head-state MACs it generated": the head a run extends was stored by the same warm sealer, so
 *   its MAC is checked from memory, docs/verifiable-log.md "Appending"; the bench counted 1.000
 *   `VerifyMac` a write, all the integrator's, against 1.75 before; on AWS a run that lands on
 *   another container, a cold start or a head older than 15 minutes still makes one, at most one
 *   a write, $3.00 per million more), no `Sign` (the sealer signs only its refusals); the
 *   append's `PutItem`s, **4 WCU** (the record 2, the head 1, the marker 1, docs/sealing.md, "The
 *   write"; the bench counted 5.41 `PutItem` WCU a write: 4 of them the append, 1.25 the 5-WCU
 *   manifest item of each lineage's first write, four writes a lineage here, and 0.16 the
 *   integrator's lease, both left out); the functions' `GetItem` and `Query` (3.29 and 2 a write,
 *   the deployment head read once per sealer invocation, docs/pipeline.md "Concurrency", and
 *   the integrator's reads among them) and the client's (8.5 and 4.75: its outcome polls and
 *   proof reads); `PutEvents`; the client's `SendMessage`; the queue pollers' `ReceiveMessage` +
 *   `DeleteMessageBatch` per invocation (guard 0.955, sealer 0.13: 7.7 writes an invocation);
 *   Lambda invocations, GB-s and log bytes of the guard and the sealer. The integrator's calls
 *   (its index tile writes, its `Sign`, its commits and lease, the sealed-run notice) are left
 *   out here: the emulator integrates a few writes at a time on an index of a few hundred keys,
 *   so `index` models them instead.
 * - `recall` (run of 2026-12-05 13:33 UTC): latest record of a 100-record lineage: two events
 *   (`RecallRequested`, `TriageCompleted`), triage's reads and its stored report (2 WCU), the
 *   client's proof reads.
 * - `index`: the deployment index's share of a write, modelled at 10^6 keys for the sparse
 *   scenario at its nominal rate (shared/cost/index-usage.ts): the sealer's index read per run and
 *   the integrator's work per integration, amortized. The deploy estimate adds it to `write`.
 *
 * Read units are a lower bound (the emulator reports none for `BatchGetItem`).
 */
export const MEASURED_USAGE = {
  source:
    'bench/RESULTS.md, emulator bench runs of 2026-12-06 03:57 UTC (write; its VerifyMac of 04:16 UTC, its GenerateMac of 09:54 UTC) and 2026-12-05 13:33 UTC (recall); the index modelled at 10^6 keys',
  write: {
    kmsSymmetricRequest: 1 + SPARSE_SEALER_INVOCATIONS_PER_WRITE + 0,
    kmsAsymmetricRequest: 0,
    dynamodbWriteRequestUnit: 4,
    dynamodbReadRequestUnit: 3.29 + 2 + 8.5 + 4.75,
    sqsStandardRequest: 1 + 2 * 0.955,
    sqsFifoRequest: 0.955 + 2 * 0.13,
    eventBridgeCustomEvent: 1,
    lambdaRequest: 0.955 + 0.13,
    lambdaArmGbSecond: 0.0515 + 0.0709,
    logsIngestedGb: (1195 + 868) / 1e9,
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
