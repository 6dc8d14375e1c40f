import { StackOutputsError } from '../client/errors';
import { CliError } from './errors';
import { ExitCode } from './exit-codes';
import type { CliIo } from './io';
import { kmsReachable } from './kms-reachable';
import type { AnchorOptions, KeyPin } from './mac-anchor-choice';
import { sdkConfig } from './sdk-config';

/** Reads a stack's `MacKeyArn` output (injectable for tests). */
export type StackKeyResolver = (io: CliIo, stackName: string) => Promise<string>;

/** The default {@link StackKeyResolver}: `DescribeStacks` through the run's endpoint and region. */
export const resolveStackMacKey: StackKeyResolver = async (io, stackName) => {
  const [{ CloudFormationClient }, { resolveStackOutputs }] = await Promise.all([
    import('@aws-sdk/client-cloudformation'),
    import('../client/stack-outputs'),
  ]);
  return (await resolveStackOutputs(stackName, new CloudFormationClient(sdkConfig(io.env)))).macKeyArn;
};

/**
 * The key pin of `reseal verify --export` when neither `--key-id` nor `--local-key-hex` is given
 * and KMS is reachable: the stack's `MacKeyArn` output. When the stack cannot be read, an explicit
 * `--stack` is an error (exit 1); the default stack leaves the key unpinned (`null`, so the
 * verdict fails closed) and says why in `unpinnedWhy`.
 *
 * @throws {CliError} (exit 1) when an explicitly named stack cannot be read
 */
export async function stackKeyPin(
  io: CliIo,
  options: AnchorOptions,
  stack: { readonly name: string; readonly explicit: boolean },
  resolve: StackKeyResolver = resolveStackMacKey,
): Promise<{ pin: KeyPin | null; unpinnedWhy: string | null }> {
  const needed =
    options.keyId === undefined &&
    options.localKeyHex === undefined &&
    !options.offline &&
    (options.kms || kmsReachable(io.env));
  if (!needed) return { pin: null, unpinnedWhy: null };
  try {
    const keyId = await resolve(io, stack.name);
    return { pin: { keyId, source: `stack ${stack.name} output MacKeyArn` }, unpinnedWhy: null };
  } catch (error) {
    if (!(error instanceof StackOutputsError)) throw error;
    if (stack.explicit) {
      throw new CliError(`cannot pin the MAC key: ${error.message}`, ExitCode.UNEXPECTED, { cause: error });
    }
    return { pin: null, unpinnedWhy: error.message };
  }
}
