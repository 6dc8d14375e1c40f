import { isAbsolute, resolve } from 'node:path';
import type { FreshnessPolicy } from '../client/freshness-policy';
import type { ResealClient } from '../client/reseal-client';
import { DEFAULT_STACK_NAME } from '../client/stack-name';
import type { WriterSigner } from '../shared/ports/writer-signer';
import type { CliIo } from './io';
import { notePinUsed } from './pin-note';
import { readStackPin } from './read-stack-pin';

/** `--stack` option shared by the online commands. */
export const STACK_OPTION = ['--stack <name>', 'CloudFormation stack of the deployment', DEFAULT_STACK_NAME] as const;

/**
 * `--checkpoint-store` option shared by the online commands: where the last verified signed
 * checkpoint per lineage and the newest deployment checkpoint are kept (docs/verifiable-log.md,
 * "Checkpoints the client keeps"; with unsigned lineage checkpoints, the default, the deployment
 * checkpoint is the only one kept).
 */
export const CHECKPOINT_STORE_OPTION = [
  '--checkpoint-store <FILE>',
  'keep the last verified signed checkpoint per lineage and the newest deployment checkpoint in FILE and check every read against them (default: $RESEAL_CHECKPOINT_STORE; without one, nothing kept checks a rollback)',
] as const;

/** The checkpoint store file to use: the option, else `RESEAL_CHECKPOINT_STORE`, else none. */
function checkpointStorePath(io: CliIo, option: string | undefined): string | null {
  const path = option ?? io.env.RESEAL_CHECKPOINT_STORE;
  if (!path) return null;
  return isAbsolute(path) ? path : resolve(io.cwd, path);
}

/**
 * A {@link ResealClient} for a deployed stack: its resources and the log, guard and sealer keys from the
 * stack pin when there is one ({@link readStackPin}: no `DescribeStacks`, no `GetPublicKey`),
 * else from the stack's CloudFormation outputs and KMS.
 *
 * @param options.pin - `false` to ignore any pin (`reseal pin` itself)
 * @throws {CliError} (exit 1) when the stack or one of its outputs cannot be found
 * @throws {BadInputError} (exit 2) when the pin file is not valid or pins another stack
 */
export async function connect(
  io: CliIo,
  stackName: string,
  options: {
    readonly checkpointStore?: string;
    readonly pin?: boolean;
    readonly writer?: WriterSigner;
    /** The tlog-policy deployment checkpoints must meet (`--policy`); default the stack's. */
    readonly policy?: FreshnessPolicy;
  } = {},
): Promise<ResealClient> {
  const storePath = checkpointStorePath(io, options.checkpointStore);
  if (io.connect) return io.connect(stackName, storePath, options.writer, options.policy);
  const pin = options.pin === false ? null : await readStackPin(io, stackName);
  if (pin) notePinUsed(io, pin.path);
  // The AWS SDK is loaded here, on the first online call, never at start.
  const { connectStack } = await import('./connect-stack');
  return connectStack(io, stackName, storePath, pin, options.writer, options.policy);
}
