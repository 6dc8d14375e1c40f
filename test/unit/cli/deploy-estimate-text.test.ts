import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deployEstimateText } from '../../../cli/format/deploy-estimate';
import { deployEstimate } from '../../../shared/cost/deploy-estimate';
import { PriceTableSchema } from '../../../shared/cost/price-table';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const prices = PriceTableSchema.parse(JSON.parse(readFileSync(join(ROOT, 'bench', 'prices.json'), 'utf8')));

/** The printed row of the table of alternatives whose label contains `label`. */
const rowOf = (text: string, label: string) => {
  const found = text.split('\n').find((line) => line.startsWith('    ') && line.includes(label));
  if (!found) throw new Error(`no row ${label}`);
  return found;
};

describe('deployEstimateText: the table of alternatives (docs/infrastructure.md, "What a deployment costs")', () => {
  it('adds the minimum capacity once, where the table turns provisioned; the row after it pays the same, not more', () => {
    const text = deployEstimateText(deployEstimate(prices, { kmsKeyMonth: 5, cloudWatchAlarmMonth: 4 }));
    expect(text).toContain('each row adding to the one above');
    expect(rowOf(text, 'the defaults')).not.toContain('a month fixed');
    expect(rowOf(text, 'guardBatchingWindowSeconds=1')).not.toContain('a month fixed');
    expect(rowOf(text, 'tableCapacity=provisioned')).toContain('+ $2.85 a month fixed; ');
    const interval = rowOf(text, 'integrationIntervalSeconds=10');
    expect(interval).toContain('the same $2.85 a month fixed; ');
    expect(interval).not.toContain('+ $2.85');
  });
});
