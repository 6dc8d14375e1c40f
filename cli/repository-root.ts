import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError } from './errors';
import { ExitCode } from './exit-codes';

/**
 * The repository `reseal deploy` and `reseal destroy` deploy from: the nearest folder above this
 * module with `cdk.json` and `infra/app.ts` (the CDK app is not part of the installed package).
 *
 * @throws {CliError} (exit 2) outside a clone of the repository
 */
export function repositoryRoot(start: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'cdk.json')) && existsSync(join(dir, 'infra', 'app.ts'))) return dir;
    if (dirname(dir) === dir) break;
  }
  throw new CliError(
    'deploy and destroy run in a clone of the Reseal repository: they deploy its infra/ with its CDK (docs/infrastructure.md, "Deploying")',
    ExitCode.BAD_INPUT,
  );
}
