import type { CostBreakdown } from '../../shared/cost/cost-per-million';
import type { DeployEstimate } from '../../shared/cost/deploy-estimate';
import type { DeploySettings } from '../../shared/cost/deploy-settings';

const usd = (value: number) => `$${value < 10 ? value.toFixed(2) : value.toFixed(1)}`;
const largest = (cost: CostBreakdown) =>
  [...cost.lines]
    .sort((a, b) => b.usd - a.usd)
    .slice(0, 3)
    .map((line) => `${line.dimension} ${usd(line.usd)}`)
    .join(', ');

/** The settings in words: the guard's window, the interval, the table's billing. */
function settingsText(settings: DeploySettings): string {
  const window = settings.guardBatchingWindowSeconds;
  const table = settings.tableCapacity;
  return [
    window > 0 ? `guard window ${window} s` : 'no guard window',
    `integration every ${settings.integrationIntervalSeconds} s`,
    table.mode === 'provisioned'
      ? `table provisioned (${table.minCapacity} to ${table.maxCapacity} units, auto scaled)`
      : 'table on demand',
  ].join(', ');
}

/** Whether two settings are the same deployment's. */
function sameSettings(a: DeploySettings, b: DeploySettings): boolean {
  const key = (s: DeploySettings) =>
    JSON.stringify([
      s.guardBatchingWindowSeconds,
      s.integrationIntervalSeconds,
      Object.entries(s.tableCapacity).sort(),
    ]);
  return key(a) === key(b);
}

/**
 * The cost estimate as `reseal deploy` prints it: per million writes under the deployment's
 * settings and per million recalls, fixed monthly, the sparse write under the alternatives
 * against the target, and where the figures come from.
 */
export function deployEstimateText(estimate: DeployEstimate): string {
  const monthly = estimate.monthly.lines.map((l) => `${l.units} × ${l.dimension}`).join(', ');
  const target = estimate.targetUsdPerMillionWrites;
  const ratio = (cost: CostBreakdown) => `${(cost.usdPerMillion / target).toFixed(2)}×`;
  const labelWidth = Math.max(...estimate.alternatives.map((a) => a.label.length));
  return [
    `cost estimate (${estimate.region} list prices read ${estimate.priceDates.join(', ')}; usage per operation from ${estimate.usageSource}):`,
    `  per million writes   ${usd(estimate.write.usdPerMillion).padStart(8)}   as deployed: ${settingsText(estimate.settings)}; largest: ${largest(estimate.write)}`,
    `    of which the index  ${usd(estimate.index.usdPerMillion).padStart(8)}   modelled at 10^6 keys: the sealer's index read, the integrator's work`,
    `  per million recalls  ${usd(estimate.recall.usdPerMillion).padStart(8)}   largest: ${largest(estimate.recall)}`,
    `  fixed, a month       ${usd(estimate.monthly.usdPerMonth).padStart(8)}   ${monthly}`,
    `  per million sparse writes (50 lineages at 1 write/s) by settings, each row adding to the one above; target ${usd(target)}:`,
    ...estimate.alternatives.map((a, i) => {
      // Rows add up, so a minimum capacity the row above already pays is the same one, not another.
      const before = estimate.alternatives[i - 1]?.usdPerMonthCapacity ?? 0;
      const fixed =
        a.usdPerMonthCapacity <= 0
          ? ''
          : a.usdPerMonthCapacity === before
            ? `the same ${usd(a.usdPerMonthCapacity)} a month fixed; `
            : `+ ${usd(a.usdPerMonthCapacity - before)} a month fixed; `;
      const mark = sameSettings(a.settings, estimate.settings) ? ' (this deployment)' : '';
      return `    ${a.label.padEnd(labelWidth)} ${usd(a.write.usdPerMillion).padStart(7)}  ${ratio(a.write).padStart(5)}   ${fixed}${a.tradeOff}${mark}`;
    }),
    '  free tiers left out; read units are a lower bound; see docs/infrastructure.md, "What a deployment costs"',
    `  prices: bench/prices.json (${estimate.priceSources.join(', ')})`,
  ].join('\n');
}
