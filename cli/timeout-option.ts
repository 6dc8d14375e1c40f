import { Option } from 'commander';
import { BadInputError } from './errors';
import { integerOption } from './integer-option';
import type { CliIo } from './io';

/** How long `publish --wait` and `recall` wait for the pipeline's answer by default, seconds. */
export const DEFAULT_TIMEOUT_SECONDS = 60;

/**
 * `--timeout-seconds` of the commands that wait for the pipeline (docs/cli.md, "Time units"):
 * every duration option of the CLI is in seconds and says so in its name.
 */
export function timeoutSecondsOption(what: string): Option {
  return new Option('--timeout-seconds <s>', `${what}, seconds (default ${DEFAULT_TIMEOUT_SECONDS})`).argParser(
    integerOption,
  );
}

/** A command's former timeout option: still accepted in its own unit, hidden from `--help`. */
export interface FormerTimeout {
  /** `--timeout` (seconds) of `publish`, `--timeout-ms` (milliseconds) of `recall`. */
  readonly flag: '--timeout' | '--timeout-ms';
  readonly unitMs: 1000 | 1;
}

/** The hidden {@link FormerTimeout} option, parsed as `--timeout-seconds` is. */
export function formerTimeoutOption(former: FormerTimeout): Option {
  const unit = former.unitMs === 1000 ? '<s>' : '<ms>';
  return new Option(`${former.flag} ${unit}`, 'former name of --timeout-seconds').argParser(integerOption).hideHelp();
}

/**
 * The wait in milliseconds: `--timeout-seconds`, else the command's former option in its own
 * unit (with a note on stderr naming the new one), else {@link DEFAULT_TIMEOUT_SECONDS}.
 *
 * @throws {BadInputError} (exit 2) when both are given: which unit was meant cannot be told
 */
export function timeoutMs(
  io: CliIo,
  timeoutSeconds: number | undefined,
  former: FormerTimeout,
  formerValue: number | undefined,
): number {
  if (timeoutSeconds !== undefined && formerValue !== undefined) {
    throw new BadInputError(`give --timeout-seconds or ${former.flag}, not both (--timeout-seconds replaces it)`);
  }
  if (timeoutSeconds !== undefined) return timeoutSeconds * 1000;
  if (formerValue === undefined) return DEFAULT_TIMEOUT_SECONDS * 1000;
  io.stderr(`reseal: ${former.flag} is now --timeout-seconds (seconds); ${former.flag} still works for now\n`);
  return formerValue * former.unitMs;
}
