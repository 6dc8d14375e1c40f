import type { TestProject } from 'vitest/node';
import type { StackOutputs } from '../../client/stack-outputs';
import { deployStack } from '../../scripts/emulator/deploy';
import { startEmulator } from '../../scripts/emulator/emulator';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Outputs of the stack deployed for this run. */
    stack: StackOutputs;
    /** The endpoint every client must use (the embedded MiniStack, or AWS_ENDPOINT_URL). */
    endpoint: string;
    /** True when the endpoint is the MiniStack this run started. */
    embedded: boolean;
  }
}

/**
 * Once per integration run: start the emulator (or borrow AWS_ENDPOINT_URL), deploy the real stack
 * with the real CDK CLI, and provide the outputs. The returned teardown stops the emulator; a
 * failed deploy stops it before rethrowing, and Ctrl-C is handled by the emulator's own hooks.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const emulator = await startEmulator();
  try {
    // RESEAL_TEST_SIGN_LINEAGE_CHECKPOINTS=true deploys the sealer as it ran before it stopped signing
    // lineage checkpoints (docs/deployment-log.md, "What changes for the sealer", step 3).
    const sign = process.env.RESEAL_TEST_SIGN_LINEAGE_CHECKPOINTS;
    const stack = await deployStack(emulator.endpoint, {
      embedded: emulator.embedded,
      ...(sign === undefined ? {} : { context: { signLineageCheckpoints: sign } }),
    });
    project.provide('stack', stack);
    project.provide('endpoint', emulator.endpoint);
    project.provide('embedded', emulator.embedded);
  } catch (error) {
    await emulator.stop();
    throw error;
  }
  return () => emulator.stop();
}
