import type { Usage } from './cost-model';
import { indexUsagePerWrite, SPARSE_INDEX_LOAD } from './index-usage';

/**
 * Billable units per operation as the emulator bench counted them (docs/infrastructure.md, "Cost
 * and quotas"; bench/RESULTS.md, "Calls per operation"), the functions' and the agent's client's
 * calls together:
 *
 * - `write` (run of 2026-12-06 01:39 UTC, lineage checkpoints unsigned, the default): the sparse
 *   scenario (50 lineages at one write a second, 1 KiB payload, 100-key manifest), the sealer's
 *   path: guard `SendMessageBatch` to the FIFO queue, sealer `GetItem`s and `Query`, two
 *   `GenerateMac` (the record's and the run's head-state MAC) and one `VerifyMac` per run (the
 *   head it extends, docs/verifiable-log.md, "Appending"), no `Sign` (the sealer signs only its
 *   refusals), `TransactWriteItems` (10 WCU: the bench counted 10.7 with the integrator's
 *   commits among them), `PutEvents`; the client's `SendMessage` and its outcome polls; the
 *   queue pollers' `ReceiveMessage` + `DeleteMessageBatch` per invocation; Lambda invocations,
 *   GB-s and log bytes of the guard and the sealer. The integrator's calls (its index tile writes,
 *   its `Sign`, its commits, the sealed-run notice) are left out here: the emulator integrates a
 *   few writes at a time on an index of a few hundred keys, so `index` models them instead.
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
    'bench/RESULTS.md, emulator bench runs of 2026-12-06 01:39 UTC (write) and 2026-12-05 13:33 UTC (recall); the index modelled at 10^6 keys',
  write: {
    kmsSymmetricRequest: 2 + 1,
    kmsAsymmetricRequest: 0,
    dynamodbWriteRequestUnit: 10,
    dynamodbReadRequestUnit: 4.115 + 1 + 11.4 + 6.47,
    sqsStandardRequest: 1 + 2 * 1,
    sqsFifoRequest: 1 + 2 * 0.19,
    eventBridgeCustomEvent: 1,
    lambdaRequest: 1 + 0.19,
    lambdaArmGbSecond: 0.1423 + 0.2507,
    logsIngestedGb: (1217 + 926) / 1e9,
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
