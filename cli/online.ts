import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { StackOutputsError } from '../client/errors';
import { ResealClient } from '../client/reseal-client';
import { DEFAULT_STACK_NAME, resolveStackOutputs } from '../client/stack-outputs';
import { CliError } from './errors';
import { ExitCode } from './exit-codes';
import type { CliIo } from './io';

/** `--stack` option shared by the online commands. */
export const STACK_OPTION = ['--stack <name>', 'CloudFormation stack of the deployment', DEFAULT_STACK_NAME] as const;

/** SDK client configuration from the run's environment: `AWS_ENDPOINT_URL` (an emulator) and region. */
export function sdkConfig(env: CliIo['env']): { region: string; endpoint?: string } {
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1';
  return env.AWS_ENDPOINT_URL ? { region, endpoint: env.AWS_ENDPOINT_URL } : { region };
}

/**
 * A {@link ResealClient} for a deployed stack, its resources resolved from the stack's
 * CloudFormation outputs.
 *
 * @throws {CliError} (exit 1) when the stack or one of its outputs cannot be found
 */
export async function connect(io: CliIo, stackName: string): Promise<ResealClient> {
  if (io.connect) return io.connect(stackName);
  const config = sdkConfig(io.env);
  try {
    const outputs = await resolveStackOutputs(stackName, new CloudFormationClient(config));
    return new ResealClient(outputs, {
      sqs: new SQSClient(config),
      eventBridge: new EventBridgeClient(config),
      dynamodb: new DynamoDBClient(config),
      kms: new KMSClient(config),
      nowMs: io.nowMs,
    });
  } catch (error) {
    if (error instanceof StackOutputsError) throw new CliError(error.message, ExitCode.UNEXPECTED, { cause: error });
    throw error;
  }
}
