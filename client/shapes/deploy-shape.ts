import { z } from 'zod';
import type { CostLine } from '../../shared/cost/cost-per-million';
import type { DeployEstimate } from '../../shared/cost/deploy-estimate';

/** `format` of a {@link DeployShape}: bumped only when a field changes meaning or goes away. */
export const DEPLOY_FORMAT = 'reseal.deploy/1';

/** One priced dimension: units per operation (per month for fixed costs) and dollars per million operations (per month). */
const CostLineShape = z.object({ dimension: z.string(), units: z.number(), usd: z.number() });

/**
 * The cost estimate of a deployment (docs/infrastructure.md, "What a deployment costs"), dollars:
 * per million writes and recalls from the bench's measured usage, and fixed a month.
 */
export const DeployEstimateShape = z.object({
  region: z.string(),
  priceDates: z.array(z.string()),
  priceSources: z.array(z.string()),
  usageSource: z.string(),
  usdPerMillionWrites: z.number(),
  /** Per million writes with the guard's batching window on (`guardBatchingWindowSeconds` ≥ 1). */
  usdPerMillionWritesWithGuardWindow: z.number(),
  usdPerMillionRecalls: z.number(),
  usdPerMonthFixed: z.number(),
  writeLines: z.array(CostLineShape),
  recallLines: z.array(CostLineShape),
  monthlyLines: z.array(CostLineShape),
});

/**
 * What `reseal deploy --json` prints (docs/infrastructure.md, "Deploying to AWS"; camelCase,
 * `format` `reseal.deploy/1`): the stack, whether it was a dry run, its CloudFormation outputs and
 * the log key to pin (`null` in a dry run), and the cost estimate.
 */
export const DeployShape = z.object({
  format: z.literal(DEPLOY_FORMAT),
  stack: z.string(),
  dryRun: z.boolean(),
  outputs: z.record(z.string(), z.string()).nullable(),
  logKey: z.string().nullable(),
  estimate: DeployEstimateShape,
});
/** Type of {@link DeployShape}. */
export type DeployShape = z.infer<typeof DeployShape>;

const lines = (cost: { readonly lines: readonly CostLine<string>[] }) =>
  cost.lines.map((l) => ({ dimension: l.dimension, units: l.units, usd: l.usd }));

/** The {@link DeployShape} of a deployment (or a dry run: no outputs, no log key) and its estimate. */
export function deployShape(deployment: {
  readonly stack: string;
  readonly dryRun: boolean;
  readonly outputs: Readonly<Record<string, string>> | null;
  readonly logKey: string | null;
  readonly estimate: DeployEstimate;
}): DeployShape {
  const { estimate } = deployment;
  return {
    format: DEPLOY_FORMAT,
    stack: deployment.stack,
    dryRun: deployment.dryRun,
    outputs: deployment.outputs && { ...deployment.outputs },
    logKey: deployment.logKey,
    estimate: {
      region: estimate.region,
      priceDates: [...estimate.priceDates],
      priceSources: [...estimate.priceSources],
      usageSource: estimate.usageSource,
      usdPerMillionWrites: estimate.write.usdPerMillion,
      usdPerMillionWritesWithGuardWindow: estimate.writeWithGuardWindow.usdPerMillion,
      usdPerMillionRecalls: estimate.recall.usdPerMillion,
      usdPerMonthFixed: estimate.monthly.usdPerMonth,
      writeLines: lines(estimate.write),
      recallLines: lines(estimate.recall),
      monthlyLines: lines(estimate.monthly),
    },
  };
}
