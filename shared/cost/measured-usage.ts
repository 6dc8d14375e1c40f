import type { Usage } from './cost-model';
import { indexUsagePerWrite, SPARSE_INDEX_LOAD } from './index-usage';

/**
 * Billable units per operation as the emulator bench counted them (docs/infrastructure.md, "Cost
 * and quotas"; bench/RESULTS.md, "Calls per operation", run of 2026-12-05 02:02 UTC), the
 * functions' and the agent's client's calls together:
 *
 * - `write`: the sparse scenario (50 lineages at one write a second, 1 KiB payload, 100-key
 *   manifest): guard `SendMessage` to the FIFO queue, sealer `GetItem` × 2, `GenerateMac`, `Sign`,
 *   `TransactWriteItems` (32 WCU), `PutEvents`; the client's `SendMessage` and its outcome polls
 *   (13 RCU at a 500 ms poll); the queue pollers' `ReceiveMessage` + `DeleteMessageBatch` per
 *   invocation; Lambda invocations, GB-s and log bytes as measured.
 * - `recall`: latest record of a 100-record lineage: two events (`RecallRequested`,
 *   `TriageCompleted`), triage's reads and its stored report (2 WCU), the client's proof reads.
 *
 * - `index`: the deployment index's share of a write, modelled at 10^6 keys for the sparse
 *   scenario (shared/cost/index-usage.ts): the sealer's index read per run and the integrator's
 *   work per integration, amortized. The deploy estimate adds it to `write`.
 *
 * Read units are a lower bound (the emulator reports none for `BatchGetItem`).
 */
export const MEASURED_USAGE = {
  source: 'bench/RESULTS.md, emulator bench run of 2026-12-05 02:02 UTC',
  write: {
    kmsSymmetricRequest: 1,
    kmsAsymmetricRequest: 1,
    dynamodbWriteRequestUnit: 32,
    dynamodbReadRequestUnit: 2 + 5.995 + 6.99,
    sqsStandardRequest: 1 + 2 * 0.88,
    sqsFifoRequest: 1 + 2 * 0.105,
    eventBridgeCustomEvent: 1,
    lambdaRequest: 0.88 + 0.105,
    lambdaArmGbSecond: 0.1025 + 0.1277,
    logsIngestedGb: (1096 + 726) / 1e9,
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
