import type { CliIo } from '../../../cli/io';
import { run } from '../../../cli/run';

/** What one in-process CLI run produced. */
export interface CliRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Fixed "now" of CLI test runs (the guard factories' clock). */
export const CLI_TEST_NOW_MS = 1_800_000_000_000;

/**
 * Runs the `reseal` CLI in-process with captured output, an empty environment (no endpoint, no
 * credentials: offline) unless `env` is given, a fixed clock ({@link CLI_TEST_NOW_MS}) unless
 * `nowMs` is given (a write sent to a deployed stack needs the real one: the guard checks the
 * signature's age against SQS's clock), `cwd` for relative paths, and stderr not a terminal
 * unless `stderrIsTty`.
 */
export async function runCli(
  argv: readonly string[],
  options: {
    cwd: string;
    env?: Record<string, string>;
    connect?: CliIo['connect'];
    stderrIsTty?: boolean;
    nowMs?: () => number;
  },
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: options.env ?? {},
    nowMs: options.nowMs ?? (() => CLI_TEST_NOW_MS),
    cwd: options.cwd,
    stderrIsTty: options.stderrIsTty ?? false,
    ...(options.connect ? { connect: options.connect } : {}),
  };
  const exitCode = await run(argv, io);
  return { exitCode, stdout, stderr };
}

/** The golden-file form of a run: the command, its exit code, then stdout and stderr. */
export function goldenText(argv: readonly string[], result: CliRun): string {
  return `$ reseal ${argv.join(' ')}\nexit: ${result.exitCode}\n--- stdout\n${result.stdout}--- stderr\n${result.stderr}`;
}
