import { readFileSync } from 'node:fs';
import { deployEstimate } from './shared/cost/deploy-estimate';
import { PriceTableSchema } from './shared/cost/price-table';

const prices = PriceTableSchema.parse(JSON.parse(readFileSync('bench/prices.json', 'utf8')));
const e = deployEstimate(prices, { kmsKeyMonth: 4, cloudWatchAlarmMonth: 4 });
console.log(
  'write',
  e.write.usdPerMillion.toFixed(3),
  'window',
  e.writeWithGuardWindow.usdPerMillion.toFixed(3),
  'index',
  e.index.usdPerMillion.toFixed(3),
);
for (const l of e.writeWithGuardWindow.lines) console.log(l.dimension, l.units.toFixed(4), l.usd.toFixed(3));
console.log('--- default');
for (const l of e.write.lines) console.log(l.dimension, l.units.toFixed(4), l.usd.toFixed(3));
console.log('--- index');
for (const l of e.index.lines) console.log(l.dimension, l.units.toFixed(4), l.usd.toFixed(3));
