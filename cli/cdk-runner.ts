import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MonthlyDimension } from '../shared/cost/price-table';
import { CliError } from './errors';
import { ExitCode } from './exit-codes';
import type { CliIo } from './io';

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

/**
 * Runs the project's CDK CLI (node_modules/.bin/cdk) in `root`. Its output goes to stderr line by
 * line when stderr is a terminal and `quiet` is not set (a command's `--json`); otherwise it is
 * kept, and its tail is the error when the CDK fails.
 *
 * @throws {CliError} (exit 1) naming the CDK command and its last lines when it fails
 */
export function runCdk(
  io: CliIo,
  root: string,
  args: readonly string[],
  options: { readonly quiet: boolean; readonly env: NodeJS.ProcessEnv },
): Promise<void> {
  const bin = join(root, 'node_modules', '.bin', 'cdk');
  const show = io.stderrIsTty && !options.quiet;
  return new Promise((resolveRun, reject) => {
    const child = spawn(bin, [...args], { cwd: root, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const take = (chunk: Buffer) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-8_000);
      if (show) io.stderr(text);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.once('error', (error) =>
      reject(new CliError(`cannot run the CDK (${bin}): ${error.message}`, ExitCode.UNEXPECTED)),
    );
    child.once('close', (code) =>
      code === 0
        ? resolveRun()
        : reject(
            new CliError(
              `cdk ${args[0]} failed (exit ${code}):\n${tail.split('\n').slice(-25).join('\n')}`,
              ExitCode.UNEXPECTED,
            ),
          ),
    );
  });
}

/** The resources of a synthesized template that cost a fixed amount a month, counted. */
export async function monthlyResources(templatePath: string): Promise<Record<MonthlyDimension, number>> {
  const template = JSON.parse(await readFile(templatePath, 'utf8')) as {
    Resources?: Record<string, { Type?: string }>;
  };
  const count = (type: string) => Object.values(template.Resources ?? {}).filter((r) => r.Type === type).length;
  return { kmsKeyMonth: count('AWS::KMS::Key'), cloudWatchAlarmMonth: count('AWS::CloudWatch::Alarm') };
}
