import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { DEFAULT_MAX_AGE_SECONDS, type FreshnessPolicy, freshnessPolicy } from '../client/freshness-policy';
import { describeError } from '../shared/describe-error';
import { InvalidInputError, PolicyFormatError } from '../shared/errors';
import { MAX_POLICY_BYTES } from '../shared/witness/tlog-policy';
import { BadInputError } from './errors';
import type { CliIo } from './io';

/** `--policy` of the online readers: a C2SP tlog-policy file (docs/deployment-log.md, "Clients"). */
export const POLICY_OPTION = [
  '--policy <FILE>',
  "C2SP tlog-policy the deployment checkpoint must meet (default: the stack's log key alone, UNWITNESSED; reseal policy prints it)",
] as const;

/** What `--max-age-seconds` of the online readers means: the oldest quorum of cosignatures accepted. */
export const MAX_AGE_DESCRIPTION = `with --policy: oldest quorum of cosignatures accepted, seconds (default ${DEFAULT_MAX_AGE_SECONDS})`;

/**
 * The policy of `--policy FILE` with `--max-age-seconds`, or `undefined` for the stack's default.
 *
 * @throws {BadInputError} (exit 2) when the file cannot be read, is not a valid tlog-policy
 *   (naming the line), or `--max-age-seconds` is not a positive whole number of seconds
 */
export async function readPolicyOption(
  io: CliIo,
  file: string | undefined,
  maxAgeSeconds: number | undefined,
): Promise<FreshnessPolicy | undefined> {
  if (file === undefined) {
    if (maxAgeSeconds !== undefined)
      throw new BadInputError('--max-age-seconds needs --policy (the default policy has no witness)');
    return undefined;
  }
  let text: string;
  try {
    const bytes = await readFile(isAbsolute(file) ? file : resolve(io.cwd, file));
    if (bytes.byteLength > MAX_POLICY_BYTES) throw new BadInputError(`${file}: larger than ${MAX_POLICY_BYTES} bytes`);
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    if (error instanceof BadInputError) throw error;
    const reason = describeError(error);
    throw new BadInputError(`${file}: cannot read the policy (${reason})`, { cause: error });
  }
  try {
    return freshnessPolicy(text, maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS);
  } catch (error) {
    if (error instanceof PolicyFormatError || error instanceof InvalidInputError) {
      throw new BadInputError(`${file}: not a valid tlog-policy: ${error.message}`, { cause: error });
    }
    throw error;
  }
}
