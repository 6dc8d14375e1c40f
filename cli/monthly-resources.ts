import { readFile } from 'node:fs/promises';
import type { MonthlyDimension } from '../shared/cost/price-table';

/** The resources of a synthesized template that cost a fixed amount a month, counted. */
export async function monthlyResources(templatePath: string): Promise<Record<MonthlyDimension, number>> {
  const template = JSON.parse(await readFile(templatePath, 'utf8')) as {
    Resources?: Record<string, { Type?: string }>;
  };
  const count = (type: string) => Object.values(template.Resources ?? {}).filter((r) => r.Type === type).length;
  return { kmsKeyMonth: count('AWS::KMS::Key'), cloudWatchAlarmMonth: count('AWS::CloudWatch::Alarm') };
}
