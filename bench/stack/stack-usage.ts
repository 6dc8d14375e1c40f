/**
 * From a measured scenario (bench/stack/stack-bench.ts) to billable usage per operation, for the
 * cost model (shared/cost/cost-per-million.ts).
 */
import { addUsage, type Usage, usagePerOperation } from '../../shared/cost/usage';
import { usageOfCalls } from '../../shared/cost/usage-of-calls';
import { addCounts, BILLING_CHUNK_BYTES, type CallCounts } from './call-tally';
import type { FunctionsActivity } from './function-logs';
import type { Measured } from './stack-bench';

/** Which functions consume which queue (their pollers' requests are not HTTP calls in the emulator). */
const POLLED: Readonly<Record<string, 'sqsStandardRequest' | 'sqsFifoRequest'>> = {
  guard: 'sqsStandardRequest',
  sealer: 'sqsFifoRequest',
};

/**
 * The Lambda side of a scenario: invocations, GB-s and log bytes, and the SQS requests Lambda's
 * queue pollers make for the guard and the sealer, which the emulator does in-process: modelled
 * as one `ReceiveMessage` and one `DeleteMessageBatch` per invocation (a poller that never comes
 * back empty; AWS pollers also long-poll idle queues, a fixed cost left out here). A function's
 * `ReceiveMessage` units in `receives`, when known, replace its one per invocation: SQS bills a
 * receive by its payload's 64 KiB chunks, so a full batch of large messages is several requests
 * ({@link guardReceiveUnits}).
 */
export function lambdaUsage(
  activity: FunctionsActivity,
  receives: Readonly<Partial<Record<string, number>>> = {},
): Usage {
  let usage: Usage = {};
  for (const [name, { invocations, gbSeconds, logBytes }] of Object.entries(activity)) {
    const poller = POLLED[name];
    usage = addUsage(usage, {
      lambdaRequest: invocations,
      lambdaArmGbSecond: gbSeconds,
      logsIngestedGb: logBytes / 1e9,
      ...(poller ? { [poller]: (receives[name] ?? invocations) + invocations } : {}),
    });
  }
  return usage;
}

/**
 * Billed `ReceiveMessage` units of the guard's pollers: one per batch the guard was handed, each
 * its records times the mean `residual-writes` message (the client's `SendMessage` bytes per call)
 * in 64 KiB chunks, rounded up; `undefined` when the batches or the client's sends were not seen.
 */
export function guardReceiveUnits(measured: Pick<Measured, 'guardBatches' | 'client'>): number | undefined {
  const sends = measured.client['SQS.SendMessage'];
  if (!measured.guardBatches || !sends || sends.calls === 0) return undefined;
  const messageBytes = sends.requestBytes / sends.calls;
  return measured.guardBatches.sizes.reduce(
    (sum, records) => sum + Math.max(1, Math.ceil((records * messageBytes) / BILLING_CHUNK_BYTES)),
    0,
  );
}

/** Usage per operation of a scenario, by part: the agent's client, the stack (functions, Lambda). */
export interface ScenarioUsage {
  /** The client's calls (publish, outcome or answer proof, CLI audit). */
  readonly client: Usage;
  /** The functions' calls and Lambda's own usage. */
  readonly stack: Usage;
  /** Operations with no per-request price (e.g. CloudFormation `DescribeStacks`). */
  readonly unpriced: readonly string[];
}

/** {@link ScenarioUsage} of `measured`, per operation. */
export function scenarioUsage(measured: Measured): ScenarioUsage {
  const client = usageOfCalls(measured.client);
  const functions = usageOfCalls(measured.functions ?? {});
  const guardReceives = guardReceiveUnits(measured);
  const stack = addUsage(
    functions.usage,
    measured.lambda ? lambdaUsage(measured.lambda, guardReceives === undefined ? {} : { guard: guardReceives }) : {},
  );
  return {
    client: usagePerOperation(client.usage, measured.operations),
    stack: usagePerOperation(stack, measured.operations),
    unpriced: [...new Set([...client.unpriced, ...functions.unpriced])],
  };
}

/** Every call of a scenario, client and functions together. */
export function allCalls(measured: Measured): CallCounts {
  return addCounts(measured.client, measured.functions ?? {});
}
