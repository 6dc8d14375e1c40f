import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deploySettingsFromContext } from '../shared/cost/deploy-settings';
import { BadInputError } from './errors';

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
 * "Configuration") before the CDK runs, with the app's own parser (`deploySettingsFromContext`),
 * so that a bad value is one line and exit 2, with nothing bootstrapped, bundled or deployed,
 * where the synth would fail later with a stack trace.
 *
 * @throws {BadInputError} naming the setting, the value given and what it takes
 */
export function checkDeployContext(context: Readonly<Record<string, unknown>>): void {
  try {
    deploySettingsFromContext(context);
  } catch (error) {
    throw new BadInputError((error as Error).message);
  }
}
