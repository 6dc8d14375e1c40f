import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableCapacity } from '../shared/cost/table-capacity';
import { BadInputError } from './errors';

/** The longest SQS event source batching window, seconds: the bound of the guard's window and of the integration interval. */
export const MAX_BATCHING_WINDOW_SECONDS = 300;

/**
 * The context values a `reseal deploy` hands the CDK app: `cdk.json`'s `context`, overridden by
 * the `-c KEY=VALUE` values given (later ones win, as the CDK's). `cdk.context.json` and
 * `~/.cdk.json` are not read: they hold lookups and user defaults, not this project's settings.
 *
 * @throws {BadInputError} when `cdk.json` is not JSON
 */
export async function deployContext(root: string, values: readonly string[]): Promise<Record<string, unknown>> {
  let fromFile: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(await readFile(join(root, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
    fromFile = parsed.context ?? {};
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new BadInputError(`cdk.json: ${(error as Error).message}`);
    }
  }
  const given = Object.fromEntries(values.map((v) => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]));
  return { ...fromFile, ...given };
}

/**
 * Checks the deployment settings among the context values (docs/infrastructure.md,
 * "Configuration": `guardBatchingWindowSeconds`, `integrationIntervalSeconds`, `tableCapacity`,
 * `tableMinCapacity`, `tableMaxCapacity`) before the CDK runs, so that a bad value is one line and
 * exit 2, with nothing bootstrapped, bundled or deployed, where the synth would fail later with a
 * stack trace. Whole numbers are decimal digits (a JSON number in cdk.json): `1.5`, `1e3`, `0x10`
 * and `abc` are refused. An empty value is unset, as the app reads it. The stack checks the same
 * again at synth, for a `cdk deploy` run directly.
 *
 * @throws {BadInputError} naming the setting, the value given and what it takes
 */
export function checkDeployContext(context: Readonly<Record<string, unknown>>): void {
  const given = (name: string): unknown => {
    const value = context[name];
    return value === undefined || value === null || value === '' ? undefined : value;
  };
  const whole = (name: string, min: number, max: number, what: string): number | undefined => {
    const value = given(name);
    if (value === undefined) return undefined;
    const n =
      typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new BadInputError(`context ${name}=${JSON.stringify(value)}: expected ${what}`);
    }
    return n;
  };
  whole(
    'guardBatchingWindowSeconds',
    0,
    MAX_BATCHING_WINDOW_SECONDS,
    `whole seconds, 0 to ${MAX_BATCHING_WINDOW_SECONDS}`,
  );
  whole(
    'integrationIntervalSeconds',
    1,
    MAX_BATCHING_WINDOW_SECONDS,
    `whole seconds, 1 to ${MAX_BATCHING_WINDOW_SECONDS}`,
  );
  const units = 'whole capacity units, 1 or more';
  const minCapacity = whole('tableMinCapacity', 1, Number.MAX_SAFE_INTEGER, units);
  const maxCapacity = whole('tableMaxCapacity', 1, Number.MAX_SAFE_INTEGER, units);
  const mode = given('tableCapacity');
  try {
    tableCapacity({ mode: mode === undefined ? undefined : String(mode), minCapacity, maxCapacity });
  } catch (error) {
    throw new BadInputError(`context ${(error as Error).message}`);
  }
}
