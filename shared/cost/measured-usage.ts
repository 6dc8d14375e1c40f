import type { Usage } from './cost-model';
import { indexUsagePerWrite, SPARSE_INDEX_LOAD } from './index-usage';

/**
 * Billable units per operation as the emulator bench counted them (docs/infrastructure.md, "Cost
 * and quotas"; bench/RESULTS.md, "Calls per operation", run of 2026-12-05 13:33 UTC), the
 * functions' and the agent's client's calls together:
 *
 * - `write`: the sparse scenario (50 lineages at one write a second, 1 KiB payload, 100-key
 *   manifest), the sealer's path: guard `SendMessageBatch` to the FIFO queue, sealer `GetItem`s and
 *   `Query`, `GenerateMac`, `Sign`, `TransactWriteItems` (10.6 WCU: the record compressed),
 *   `PutEvents`; the client's `SendMessage` and its outcome polls; the queue pollers'
 *   `ReceiveMessage` + `DeleteMessageBatch` per invocation; Lambda invocations, GB-s and log bytes
 *   of the guard and the sealer. The integrator's calls (its index node writes, its `Sign`, its
 *   commits, the sealed-run notice) are left out here: the emulator integrates a few writes at a
 *   time on an index of a few hundred keys, so `index` models them instead.
 * - `recall`: latest record of a 100-record lineage: two events (`RecallRequested`,
 *   `TriageCompleted`), triage's reads and its stored report (2 WCU), the client's proof reads.
 * - `index`: the deployment index's share of a write, modelled at 10^6 keys for the sparse
 *   scenario at its nominal rate (shared/cost/index-usage.ts): the sealer's index read per run and
 *   the integrator's work per integration, amortized. The deploy estimate adds it to `write`.
 *
 * Read units are a lower bound (the emulator reports none for `BatchGetItem`).
 */
export const MEASURED_USAGE = {
  source: 'bench/RESULTS.md, emulator bench run of 2026-12-05 13:33 UTC; the index modelled at 10^6 keys',
  write: {
    kmsSymmetricRequest: 1,
    kmsAsymmetricRequest: 1 + 0.01,
    dynamodbWriteRequestUnit: 10.6,
    dynamodbReadRequestUnit: 4.625 + 1 + 11.9 + 15.7,
    sqsStandardRequest: 1 + 2 * 0.99,
    sqsFifoRequest: 0.99 + 2 * 0.105,
    eventBridgeCustomEvent: 1,
    lambdaRequest: 0.99 + 0.105,
    lambdaArmGbSecond: 0.1436 + 0.3762,
    logsIngestedGb: (1212 + 792) / 1e9,
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
