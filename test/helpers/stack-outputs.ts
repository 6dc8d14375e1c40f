/**
 * The deployed stack's outputs (infra/reseal-stack.ts), as `cdk deploy --outputs-file` writes them.
 * Integration tests find every resource through these, never by guessing names.
 */
export interface StackOutputs {
  readonly TableName: string;
  readonly ResidualWritesQueueUrl: string;
  readonly ResidualWritesQueueArn: string;
  readonly ResidualWritesDlqUrl: string;
  /** FIFO; `MessageGroupId` = lineage id, `MessageDeduplicationId` = residual id. */
  readonly SealRequestsQueueUrl: string;
  readonly SealRequestsQueueArn: string;
  readonly SealRequestsDlqUrl: string;
  /** RecallRequested events EventBridge could not deliver to triage. */
  readonly TriageDlqUrl: string;
  readonly EventBusName: string;
  readonly EventBusArn: string;
  /** KMS HMAC_256 key ARN (the functions' `MAC_KEY_ID`). */
  readonly MacKeyArn: string;
  /** `alias/<stack name>-mac`. */
  readonly MacKeyAlias: string;
  /** KMS Ed25519 key of checkpoints and sealer outcomes. */
  readonly LogKeyArn: string;
  /** KMS Ed25519 key of guard refusals. */
  readonly GuardKeyArn: string;
  /** Signed-note key name of the log, `reseal/<stack name>`. */
  readonly LogName: string;
  readonly GuardFunctionName: string;
  readonly SealerFunctionName: string;
  readonly TriageFunctionName: string;
}

/** Every key of {@link StackOutputs}. */
export const STACK_OUTPUT_KEYS = [
  'TableName',
  'ResidualWritesQueueUrl',
  'ResidualWritesQueueArn',
  'ResidualWritesDlqUrl',
  'SealRequestsQueueUrl',
  'SealRequestsQueueArn',
  'SealRequestsDlqUrl',
  'TriageDlqUrl',
  'EventBusName',
  'EventBusArn',
  'MacKeyArn',
  'MacKeyAlias',
  'LogKeyArn',
  'GuardKeyArn',
  'LogName',
  'GuardFunctionName',
  'SealerFunctionName',
  'TriageFunctionName',
] as const satisfies readonly (keyof StackOutputs)[];

/**
 * Picks one stack's outputs out of a `cdk deploy --outputs-file` document.
 * @throws {Error} when the stack or any expected output is missing
 */
export function parseStackOutputs(document: unknown, stackName = 'ResealStack'): StackOutputs {
  const stack = (document as Record<string, Record<string, unknown> | undefined> | null)?.[stackName];
  if (!stack) throw new Error(`outputs: no stack ${stackName}`);
  const missing = STACK_OUTPUT_KEYS.filter((key) => typeof stack[key] !== 'string' || stack[key] === '');
  if (missing.length > 0) throw new Error(`outputs of ${stackName}: missing ${missing.join(', ')}`);
  return Object.fromEntries(STACK_OUTPUT_KEYS.map((key) => [key, stack[key]])) as unknown as StackOutputs;
}
