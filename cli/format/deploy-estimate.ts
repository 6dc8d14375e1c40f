import type { CostBreakdown } from '../../shared/cost/cost-per-million';
import type { DeployEstimate } from '../../shared/cost/deploy-estimate';

const usd = (value: number) => `$${value < 10 ? value.toFixed(2) : value.toFixed(1)}`;
const largest = (cost: CostBreakdown) =>
  [...cost.lines]
    .sort((a, b) => b.usd - a.usd)
    .slice(0, 3)
    .map((line) => `${line.dimension} ${usd(line.usd)}`)
    .join(', ');

/** The cost estimate as `reseal deploy` prints it: per million writes and recalls, fixed monthly, and where the figures come from. */
export function deployEstimateText(estimate: DeployEstimate): string {
  const monthly = estimate.monthly.lines.map((l) => `${l.units} × ${l.dimension}`).join(', ');
  return [
    `cost estimate (${estimate.region} list prices read ${estimate.priceDates.join(', ')}; usage per operation from ${estimate.usageSource}):`,
    `  per million writes   ${usd(estimate.write.usdPerMillion).padStart(8)}   (no guard window, the default); largest: ${largest(estimate.write)}`,
    `    of which the index  ${usd(estimate.index.usdPerMillion).padStart(8)}   modelled at 10^6 keys: the sealer's index read, the integrator's work`,
    `  with a guard window  ${usd(estimate.writeWithGuardWindow.usdPerMillion).padStart(8)}   per million writes, -c guardBatchingWindowSeconds=1: the guard's batches fill from about 10 writes/s`,
    `  per million recalls  ${usd(estimate.recall.usdPerMillion).padStart(8)}   largest: ${largest(estimate.recall)}`,
    `  fixed, a month       ${usd(estimate.monthly.usdPerMonth).padStart(8)}   ${monthly}`,
    '  free tiers left out; read units are a lower bound; see docs/infrastructure.md, "What a deployment costs"',
    `  prices: bench/prices.json (${estimate.priceSources.join(', ')})`,
  ].join('\n');
}
