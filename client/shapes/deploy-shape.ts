import { z } from 'zod';
import type { CostLine } from '../../shared/cost/cost-per-million';
import type { DeployEstimate, PricedAlternative } from '../../shared/cost/deploy-estimate';
import type { DeploySettings } from '../../shared/cost/deploy-settings';

/** `format` of a {@link DeployShape}: bumped only when a field changes meaning or goes away. */
export const DEPLOY_FORMAT = 'reseal.deploy/1';

/** One priced dimension: units per operation (per month for fixed costs) and dollars per million operations (per month). */
const CostLineShape = z.object({ dimension: z.string(), units: z.number(), usd: z.number() });

/** The settings a write's cost depends on, as the stack's context names them (bounds `null` on demand). */
const DeploySettingsShape = z.object({
  guardBatchingWindowSeconds: z.number(),
  integrationIntervalSeconds: z.number(),
  tableCapacity: z.enum(['on-demand', 'provisioned']),
  tableMinCapacity: z.number().nullable(),
  tableMaxCapacity: z.number().nullable(),
});

/** One row of the estimate's alternatives: settings and what a sparse write costs under them. */
const DeployAlternativeShape = z.object({
  id: z.string(),
  label: z.string(),
  settings: DeploySettingsShape,
  usdPerMillionWrites: z.number(),
  /** A provisioned table's minimum capacity, dollars a month (0 on demand). */
  usdPerMonthCapacity: z.number(),
  tradeOff: z.string(),
});

/**
 * The cost estimate of a deployment (docs/infrastructure.md, "What a deployment costs"), dollars:
 * per million writes and recalls from the bench's measured usage, and fixed a month.
 * `usdPerMillionWrites`, `usdPerMillionWritesWithGuardWindow` and `writeLines` keep their meaning
 * (the stack's defaults; a 1 s guard window); the deployment's own settings are priced in the
 * `…AsDeployed` fields, and recalls and the fixed cost follow them.
 */
export const DeployEstimateShape = z.object({
  region: z.string(),
  priceDates: z.array(z.string()),
  priceSources: z.array(z.string()),
  usageSource: z.string(),
  /** Per million writes with the stack's defaults (no guard window, 2 s interval, on demand). */
  usdPerMillionWrites: z.number(),
  /** Per million writes with the guard's batching window on (`guardBatchingWindowSeconds` 1), the rest the defaults. */
  usdPerMillionWritesWithGuardWindow: z.number(),
  usdPerMillionRecalls: z.number(),
  usdPerMonthFixed: z.number(),
  writeLines: z.array(CostLineShape),
  recallLines: z.array(CostLineShape),
  monthlyLines: z.array(CostLineShape),
  /** The settings the deployment was synthesized with. */
  settings: DeploySettingsShape,
  /** Per million writes under {@link DeploySettingsShape settings}. */
  usdPerMillionWritesAsDeployed: z.number(),
  writeLinesAsDeployed: z.array(CostLineShape),
  targetUsdPerMillionWrites: z.number(),
  alternatives: z.array(DeployAlternativeShape),
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

const settingsShape = (settings: DeploySettings): z.infer<typeof DeploySettingsShape> => ({
  guardBatchingWindowSeconds: settings.guardBatchingWindowSeconds,
  integrationIntervalSeconds: settings.integrationIntervalSeconds,
  tableCapacity: settings.tableCapacity.mode,
  tableMinCapacity: settings.tableCapacity.mode === 'provisioned' ? settings.tableCapacity.minCapacity : null,
  tableMaxCapacity: settings.tableCapacity.mode === 'provisioned' ? settings.tableCapacity.maxCapacity : null,
});

/** The priced alternative `id` of an estimate. @throws {Error} when the estimate has none (a bug). */
function alternative(estimate: DeployEstimate, id: string): PricedAlternative {
  const found = estimate.alternatives.find((a) => a.id === id);
  if (!found) throw new Error(`deploy estimate: no alternative ${id}`);
  return found;
}

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
      usdPerMillionWrites: alternative(estimate, 'defaults').write.usdPerMillion,
      usdPerMillionWritesWithGuardWindow: alternative(estimate, 'guardWindow').write.usdPerMillion,
      usdPerMillionRecalls: estimate.recall.usdPerMillion,
      usdPerMonthFixed: estimate.monthly.usdPerMonth,
      writeLines: lines(alternative(estimate, 'defaults').write),
      recallLines: lines(estimate.recall),
      monthlyLines: lines(estimate.monthly),
      settings: settingsShape(estimate.settings),
      usdPerMillionWritesAsDeployed: estimate.write.usdPerMillion,
      writeLinesAsDeployed: lines(estimate.write),
      targetUsdPerMillionWrites: estimate.targetUsdPerMillionWrites,
      alternatives: estimate.alternatives.map((a) => ({
        id: a.id,
        label: a.label,
        settings: settingsShape(a.settings),
        usdPerMillionWrites: a.write.usdPerMillion,
        usdPerMonthCapacity: a.usdPerMonthCapacity,
        tradeOff: a.tradeOff,
      })),
    },
  };
}
