import { z } from 'zod';

/**
 * Prices charged per use, one per billing dimension the cost model knows (docs/infrastructure.md,
 * "Cost and quotas"). Each is in US dollars per one unit of its dimension.
 */
export const PER_USE_DIMENSIONS = [
  'kmsSymmetricRequest',
  'kmsAsymmetricRequest',
  'dynamodbWriteRequestUnit',
  'dynamodbReadRequestUnit',
  'sqsStandardRequest',
  'sqsFifoRequest',
  'eventBridgeCustomEvent',
  'lambdaRequest',
  'lambdaArmGbSecond',
  'logsIngestedGb',
] as const;
/** One of {@link PER_USE_DIMENSIONS}. */
export type PerUseDimension = (typeof PER_USE_DIMENSIONS)[number];

/**
 * Prices of provisioned DynamoDB capacity, dollars per capacity unit and hour (Standard table
 * class): what a table with `tableCapacity` provisioned pays instead of the request units of
 * {@link PER_USE_DIMENSIONS}, whether the capacity is used or not (shared/cost/table-capacity.ts).
 */
export const CAPACITY_DIMENSIONS = ['dynamodbWriteCapacityUnitHour', 'dynamodbReadCapacityUnitHour'] as const;
/** One of {@link CAPACITY_DIMENSIONS}. */
export type CapacityDimension = (typeof CAPACITY_DIMENSIONS)[number];

/** Prices charged per month, whatever the traffic. */
export const MONTHLY_DIMENSIONS = ['kmsKeyMonth', 'cloudWatchAlarmMonth'] as const;
/** One of {@link MONTHLY_DIMENSIONS}. */
export type MonthlyDimension = (typeof MONTHLY_DIMENSIONS)[number];

const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date YYYY-MM-DD');

/** One list price: dollars per unit, what the unit is, and where and when it was read. */
export const PriceSchema = z.strictObject({
  usd: z.number().nonnegative().finite(),
  unit: z.string().min(1),
  source: z.url({ protocol: /^https$/ }),
  date: IsoDate,
  note: z.string().optional(),
});
/** Type of {@link PriceSchema}. */
export type Price = z.infer<typeof PriceSchema>;

/**
 * A price table (bench/prices.json): AWS list prices of one region, every dimension of
 * {@link PER_USE_DIMENSIONS}, {@link CAPACITY_DIMENSIONS} and {@link MONTHLY_DIMENSIONS} present,
 * each with its source page and date.
 */
export const PriceTableSchema = z.strictObject({
  region: z.string().min(1),
  currency: z.literal('USD'),
  prices: z.strictObject({
    ...Object.fromEntries(PER_USE_DIMENSIONS.map((d) => [d, PriceSchema] as const)),
    ...Object.fromEntries(CAPACITY_DIMENSIONS.map((d) => [d, PriceSchema] as const)),
    ...Object.fromEntries(MONTHLY_DIMENSIONS.map((d) => [d, PriceSchema] as const)),
  } as Record<PerUseDimension | CapacityDimension | MonthlyDimension, typeof PriceSchema>),
});
/** Type of {@link PriceTableSchema}. */
export type PriceTable = z.infer<typeof PriceTableSchema>;
