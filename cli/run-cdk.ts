import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CliError } from './errors';
import { ExitCode } from './exit-codes';
import type { CliIo } from './io';

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
