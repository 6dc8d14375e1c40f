import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capacityUnitHours, HOURS_A_MONTH } from '../../../../shared/cost/capacity-unit-hours';
import { costPerMillion, DESIGN_FLOOR } from '../../../../shared/cost/cost-per-million';
import { monthlyCost } from '../../../../shared/cost/monthly-cost';
import {
  CAPACITY_DIMENSIONS,
  MONTHLY_DIMENSIONS,
  PER_USE_DIMENSIONS,
  type PriceTable,
  PriceTableSchema,
} from '../../../../shared/cost/price-table';
import { addUsage, usagePerOperation } from '../../../../shared/cost/usage';
import { usageOfCalls } from '../../../../shared/cost/usage-of-calls';
import { parseInput } from '../../../../shared/schemas/parse';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const prices: PriceTable = parseInput(
  PriceTableSchema,
  JSON.parse(readFileSync(join(ROOT, 'bench', 'prices.json'), 'utf8')),
  'price table',
);

/** A table where every dimension costs $1 per unit, so dollars per million = units × 10^6. */
const unitPrices: PriceTable = {
  ...prices,
  prices: Object.fromEntries(
    Object.entries(prices.prices).map(([k, p]) => [k, { ...p, usd: 1 }]),
  ) as PriceTable['prices'],
};

describe('bench/prices.json: the price table', () => {
  it('has every dimension, each with a source page and the date it was read', () => {
    expect(Object.keys(prices.prices).sort()).toEqual(
      [...PER_USE_DIMENSIONS, ...CAPACITY_DIMENSIONS, ...MONTHLY_DIMENSIONS].sort(),
    );
    for (const [dimension, price] of Object.entries(prices.prices)) {
      expect(price.source).toMatch(/^https:\/\/aws\.amazon\.com\//);
      // The provisioned capacity prices were read a day after the rest.
      expect(price.date).toBe(
        (CAPACITY_DIMENSIONS as readonly string[]).includes(dimension) ? '2026-12-06' : '2026-12-05',
      );
    }
    expect(prices.region).toBe('us-east-1');
  });

  it('holds the us-east-1 list prices the docs quote', () => {
    const perMillion = (d: keyof PriceTable['prices']) => Math.round(prices.prices[d].usd * 1e6 * 1000) / 1000;
    expect(perMillion('kmsSymmetricRequest')).toBe(3);
    expect(perMillion('kmsAsymmetricRequest')).toBe(15);
    expect(perMillion('dynamodbWriteRequestUnit')).toBe(0.625);
    expect(perMillion('dynamodbReadRequestUnit')).toBe(0.125);
    expect(perMillion('sqsStandardRequest')).toBe(0.4);
    expect(perMillion('sqsFifoRequest')).toBe(0.5);
    expect(perMillion('eventBridgeCustomEvent')).toBe(1);
    expect(perMillion('lambdaRequest')).toBe(0.2);
    // Provisioned capacity, per unit and hour: $0.00065 a WCU-hour, $0.00013 an RCU-hour.
    expect(prices.prices.dynamodbWriteCapacityUnitHour.usd).toBe(0.00065);
    expect(prices.prices.dynamodbReadCapacityUnitHour.usd).toBe(0.00013);
    expect(prices.prices.dynamodbWriteCapacityUnitHour.source).toBe(
      'https://aws.amazon.com/dynamodb/pricing/provisioned/',
    );
  });

  it('refuses a table with a dimension missing, a negative price or a non-https source', () => {
    const { kmsKeyMonth: _dropped, ...rest } = prices.prices;
    expect(() => parseInput(PriceTableSchema, { ...prices, prices: rest }, 'price table')).toThrow(/kmsKeyMonth/);
    const { dynamodbReadCapacityUnitHour: _capacity, ...noCapacity } = prices.prices;
    expect(() => parseInput(PriceTableSchema, { ...prices, prices: noCapacity }, 'price table')).toThrow(
      /dynamodbReadCapacityUnitHour/,
    );
    const negative = {
      ...prices,
      prices: { ...prices.prices, lambdaRequest: { ...prices.prices.lambdaRequest, usd: -1 } },
    };
    expect(() => parseInput(PriceTableSchema, negative, 'price table')).toThrow(/lambdaRequest/);
    const http = {
      ...prices,
      prices: { ...prices.prices, lambdaRequest: { ...prices.prices.lambdaRequest, source: 'http://x.test/' } },
    };
    expect(() => parseInput(PriceTableSchema, http, 'price table')).toThrow(/source/);
  });
});

describe('costPerMillion', () => {
  it('prices each dimension by its units, in dollars per million operations', () => {
    const cost = costPerMillion(
      { kmsSymmetricRequest: 1, eventBridgeCustomEvent: 2, dynamodbWriteRequestUnit: 0 },
      prices,
    );
    expect(cost.lines.map((l) => l.dimension)).toEqual(['kmsSymmetricRequest', 'eventBridgeCustomEvent']);
    expect(cost.usdPerMillion).toBeCloseTo(3 + 2, 9);
  });

  it("puts the design card's floor at about $7 per million writes and $2 per million recalls", () => {
    // 3 standard SQS requests ($1.20) + 3 FIFO ($1.50) + one event ($1) + one GenerateMac ($3).
    expect(costPerMillion(DESIGN_FLOOR.write, prices).usdPerMillion).toBeCloseTo(6.7, 9);
    expect(costPerMillion(DESIGN_FLOOR.recall, prices).usdPerMillion).toBeCloseTo(2, 9);
  });

  it('is linear in the usage', () => {
    const one = costPerMillion({ lambdaArmGbSecond: 0.25, logsIngestedGb: 1e-6 }, unitPrices);
    const two = costPerMillion(
      addUsage({ lambdaArmGbSecond: 0.25, logsIngestedGb: 1e-6 }, { lambdaArmGbSecond: 0.25, logsIngestedGb: 1e-6 }),
      unitPrices,
    );
    expect(two.usdPerMillion).toBeCloseTo(2 * one.usdPerMillion, 6);
    expect(one.usdPerMillion).toBeCloseTo((0.25 + 1e-6) * 1e6, 6);
  });

  it('prices DynamoDB units per capacity-unit-hour on a provisioned table, at the 70 % target; the rest as on demand', () => {
    const usage = { dynamodbWriteRequestUnit: 7, dynamodbReadRequestUnit: 36, lambdaRequest: 1 };
    const provisioned = costPerMillion(usage, unitPrices, 'provisioned');
    // 7 units a second for an hour are 7 unit-hours; at 70 % 10 are provisioned: 7 / 3600 / 0.7.
    expect(provisioned.lines).toEqual([
      {
        dimension: 'dynamodbWriteCapacityUnitHour',
        units: expect.closeTo(7 / 3600 / 0.7, 12),
        usd: expect.closeTo((1e6 * 7) / 2520, 6),
      },
      {
        dimension: 'dynamodbReadCapacityUnitHour',
        units: expect.closeTo(36 / 3600 / 0.7, 12),
        usd: expect.closeTo((1e6 * 36) / 2520, 6),
      },
      { dimension: 'lambdaRequest', units: 1, usd: 1e6 },
    ]);
    expect(costPerMillion(usage, unitPrices)).toEqual(costPerMillion(usage, unitPrices, 'on-demand'));
    // At list prices a consumed unit costs 41 % of on demand's: $0.258 against $0.625 a million
    // write units, $0.0516 against $0.125 read units.
    const write = costPerMillion({ dynamodbWriteRequestUnit: 1 }, prices, 'provisioned').usdPerMillion;
    const read = costPerMillion({ dynamodbReadRequestUnit: 1 }, prices, 'provisioned').usdPerMillion;
    expect(write).toBeCloseTo(0.2579, 4);
    expect(read).toBeCloseTo(0.0516, 4);
    expect(write / 0.625).toBeCloseTo(0.41, 2);
    expect(read / 0.125).toBeCloseTo(0.41, 2);
    expect(capacityUnitHours(3600, 100)).toBe(1);
    expect(() => capacityUnitHours(1, 0)).toThrow(RangeError);
    expect(() => costPerMillion({ dynamodbReadRequestUnit: -1 }, prices, 'provisioned')).toThrow(
      /usage\.dynamodbReadRequestUnit/,
    );
  });

  it('refuses negative or non-finite units, naming the dimension', () => {
    expect(() => costPerMillion({ sqsFifoRequest: -1 }, prices)).toThrow(
      /usage\.sqsFifoRequest must be a finite number ≥ 0, got -1/,
    );
    expect(() => costPerMillion({ sqsFifoRequest: Number.NaN }, prices)).toThrow(RangeError);
  });
});

describe('monthlyCost', () => {
  it('prices keys and alarms per month, apart from per-use costs', () => {
    const monthly = monthlyCost({ kmsKeyMonth: 3, cloudWatchAlarmMonth: 3 }, prices);
    expect(monthly.usdPerMonth).toBeCloseTo(3.3, 9);
    expect(monthly.lines).toEqual([
      { dimension: 'kmsKeyMonth', units: 3, usd: 3 },
      { dimension: 'cloudWatchAlarmMonth', units: 3, usd: expect.closeTo(0.3, 9) },
    ]);
    expect(() => monthlyCost({ kmsKeyMonth: -3, cloudWatchAlarmMonth: 0 }, prices)).toThrow(/resources\.kmsKeyMonth/);
  });

  it("adds a provisioned table's minimum capacity, read and write, 730 hours a month; nothing on demand", () => {
    const resources = { kmsKeyMonth: 0, cloudWatchAlarmMonth: 0 };
    expect(HOURS_A_MONTH).toBe(730);
    expect(monthlyCost(resources, prices, { mode: 'on-demand' }).usdPerMonth).toBe(0);
    const monthly = monthlyCost(resources, prices, { mode: 'provisioned', minCapacity: 10, maxCapacity: 100 });
    // 10 × 730 = 7,300 unit-hours each: × $0.00013 = $0.949, × $0.00065 = $4.745.
    expect(monthly.lines.slice(2)).toEqual([
      { dimension: 'dynamodbReadCapacityUnitHour', units: 7300, usd: expect.closeTo(0.949, 9) },
      { dimension: 'dynamodbWriteCapacityUnitHour', units: 7300, usd: expect.closeTo(4.745, 9) },
    ]);
    expect(monthly.usdPerMonth).toBeCloseTo(5.694, 9);
  });
});

describe('usagePerOperation', () => {
  it('divides totals by the number of operations', () => {
    expect(usagePerOperation({ kmsSymmetricRequest: 10, sqsStandardRequest: 30 }, 10)).toEqual({
      kmsSymmetricRequest: 1,
      sqsStandardRequest: 3,
    });
  });

  it('refuses a count that is not a positive integer', () => {
    expect(() => usagePerOperation({}, 0)).toThrow(/operations must be a positive integer, got 0/);
    expect(() => usagePerOperation({}, 1.5)).toThrow(RangeError);
  });
});

describe('usageOfCalls', () => {
  const call = (
    calls: number,
    extra: Partial<{ billedUnits: number; readUnits: number; writeUnits: number }> = {},
  ) => ({
    calls,
    billedUnits: extra.billedUnits ?? calls,
    readUnits: extra.readUnits ?? 0,
    writeUnits: extra.writeUnits ?? 0,
  });

  it('maps each counted AWS operation to its billing dimension', () => {
    const { usage, unpriced } = usageOfCalls({
      'KMS.GenerateMac': call(10),
      'KMS.VerifyMac': call(2),
      'KMS.Sign': call(3),
      'KMS.GetPublicKey': call(1),
      'SQS.SendMessage': call(10, { billedUnits: 12 }),
      'SQS-FIFO.SendMessage': call(10),
      'EventBridge.PutEvents': call(10, { billedUnits: 20 }),
      'DynamoDB.TransactWriteItems': call(10, { writeUnits: 104 }),
      'DynamoDB.GetItem': call(11, { readUnits: 11 }),
      'CloudFormation.DescribeStacks': call(1),
    });
    expect(usage).toEqual({
      kmsSymmetricRequest: 12,
      kmsAsymmetricRequest: 4,
      sqsStandardRequest: 12,
      sqsFifoRequest: 10,
      eventBridgeCustomEvent: 20,
      dynamodbReadRequestUnit: 11,
      dynamodbWriteRequestUnit: 104,
    });
    expect(unpriced).toEqual(['CloudFormation.DescribeStacks']);
  });

  it('prices nothing for no calls', () => {
    expect(usageOfCalls({})).toEqual({ usage: {}, unpriced: [] });
  });
});
