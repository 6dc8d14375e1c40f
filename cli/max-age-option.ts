import { Option } from 'commander';
import { BadInputError } from './errors';
import { integerOption } from './integer-option';
import type { CliIo } from './io';

/**
 * `--max-age-seconds` (docs/cli.md, "Time units"): the oldest quorum of cosignatures accepted,
 * seconds, named with its unit as every duration option is. `description` is the command's own
 * wording; `defaultSeconds` is shown and applied by commander when given.
 */
export function maxAgeSecondsOption(description: string, defaultSeconds?: number): Option {
  const option = new Option('--max-age-seconds <s>', description).argParser(integerOption);
  return defaultSeconds === undefined ? option : option.default(defaultSeconds);
}

/** The former `--max-age` (seconds too): still accepted, hidden from `--help`. */
export function formerMaxAgeOption(): Option {
  return new Option('--max-age <s>', 'former name of --max-age-seconds').argParser(integerOption).hideHelp();
}

/**
 * The maximum age in seconds: `--max-age-seconds`, else the former `--max-age` (same unit, with a
 * one-line note on stderr naming the new one), else `undefined`.
 *
 * @throws {BadInputError} (exit 2) when both are given on the command line
 */
export function maxAgeSeconds(
  io: CliIo,
  options: { readonly maxAgeSeconds?: number; readonly maxAge?: number },
  explicit: boolean = options.maxAgeSeconds !== undefined,
): number | undefined {
  if (options.maxAge === undefined) return options.maxAgeSeconds;
  if (explicit) {
    throw new BadInputError('give --max-age-seconds or --max-age, not both (--max-age-seconds replaces it)');
  }
  io.stderr('reseal: --max-age is now --max-age-seconds (seconds); --max-age still works for now\n');
  return options.maxAge;
}
