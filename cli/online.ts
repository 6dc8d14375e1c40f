import { isAbsolute, resolve } from 'node:path';
import type { ResealClient } from '../client/reseal-client';
import { DEFAULT_STACK_NAME } from '../client/stack-name';
import type { CliIo } from './io';

/** `--stack` option shared by the online commands. */
export const STACK_OPTION = ['--stack <name>', 'CloudFormation stack of the deployment', DEFAULT_STACK_NAME] as const;

/**
 * `--checkpoint-store` option shared by the online commands: where the last verified signed
 * checkpoint per lineage is kept (docs/verifiable-log.md, "Checkpoints the client keeps").
 */
export const CHECKPOINT_STORE_OPTION = [
  '--checkpoint-store <FILE>',
  'keep the last verified signed checkpoint per lineage in FILE and check every read against it (default: $RESEAL_CHECKPOINT_STORE; without one, truncation cannot be checked)',
] as const;

/** The checkpoint store file to use: the option, else `RESEAL_CHECKPOINT_STORE`, else none. */
export function checkpointStorePath(io: CliIo, option: string | undefined): string | null {
  const path = option ?? io.env.RESEAL_CHECKPOINT_STORE;
  if (!path) return null;
  return isAbsolute(path) ? path : resolve(io.cwd, path);
}

/** SDK client configuration from the run's environment: `AWS_ENDPOINT_URL` (an emulator) and region. */
export function sdkConfig(env: CliIo['env']): { region: string; endpoint?: string } {
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1';
  return env.AWS_ENDPOINT_URL ? { region, endpoint: env.AWS_ENDPOINT_URL } : { region };
}

/**
 * A {@link ResealClient} for a deployed stack, its resources resolved from the stack's
 * CloudFormation outputs. The AWS SDK is loaded here, on the first online call, never at start.
 *
 * @throws {CliError} (exit 1) when the stack or one of its outputs cannot be found
 */
export async function connect(
  io: CliIo,
  stackName: string,
  options: { readonly checkpointStore?: string } = {},
): Promise<ResealClient> {
  const storePath = checkpointStorePath(io, options.checkpointStore);
  if (io.connect) return io.connect(stackName, storePath);
  const { connectStack } = await import('./online-client');
  return connectStack(io, stackName, storePath);
}
