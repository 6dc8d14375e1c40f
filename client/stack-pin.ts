import { z } from 'zod';
import { describeError } from '../shared/describe-error';
import { guardKeyName, sealerKeyName } from '../shared/log/log-names';
import { formatVerifierKey, type NoteVerifierKey, parseVerifierKey } from '../shared/log/note-key';
import { TenantId } from '../shared/tenancy/tenants';
import { IntegrationIntervalSeconds } from './integration-interval-seconds';
import type { ResealStackOutputs } from './stack-outputs';

/** Where `reseal pin` writes the pin, relative to the working directory, unless {@link STACK_PIN_ENV} names a file. */
export const DEFAULT_STACK_PIN_PATH = '.reseal/stack.json';
/** Environment variable naming the pin file to write and read instead of {@link DEFAULT_STACK_PIN_PATH}. */
export const STACK_PIN_ENV = 'RESEAL_STACK_FILE';

const nonEmpty = z.string().min(1).max(2048);

/** A vkey text (`<name>+<hash>+<key>`) that parses as an Ed25519 note verifier key. */
const VerifierKeyText = z.string().superRefine((text, ctx) => {
  try {
    parseVerifierKey(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: describeError(error) });
  }
});

/** The stack pin's format: 2 added the sealer key (`sealerKey`, `outputs.sealerKeyArn`). */
export const STACK_PIN_FORMAT_VERSION = 2;

/**
 * The stack pin file (docs/cli.md, "Pinning the stack"): the stack's outputs a client needs and
 * the log, guard and sealer verifier keys, so an online command makes no `DescribeStacks` and no
 * `GetPublicKey` call. Strict: an unknown field, a missing output or a key that does not parse,
 * or a key named for another log, is refused; so is a pin of format 1, which has no sealer key.
 */
export const StackPinSchema = z
  .strictObject({
    formatVersion: z.literal(STACK_PIN_FORMAT_VERSION, {
      error: (issue) =>
        issue.input === 1
          ? 'format 1 pins no sealer key: run `reseal pin` again'
          : `expected ${STACK_PIN_FORMAT_VERSION}`,
    }),
    stackName: nonEmpty,
    outputs: z.strictObject({
      tableName: nonEmpty,
      residualWritesQueueUrl: nonEmpty,
      eventBusName: nonEmpty,
      macKeyArn: nonEmpty,
      logKeyArn: nonEmpty,
      guardKeyArn: nonEmpty,
      sealerKeyArn: nonEmpty,
      logName: nonEmpty,
      /** Each tenant's queue URL, in a stack with tenants (docs/authorship.md, "Tenancy"). */
      tenantQueueUrls: z.record(TenantId, nonEmpty).optional(),
      /**
       * The stack's integration interval, whole seconds 1..300; absent in a pin of a stack deployed
       * before its `IntegrationIntervalSeconds` output: the default 2 s.
       */
      integrationIntervalSeconds: IntegrationIntervalSeconds.optional(),
    }),
    /** The log's verifier key (`reseal log-key`'s form). */
    logKey: VerifierKeyText,
    /** The guard's verifier key. */
    guardKey: VerifierKeyText,
    /** The sealer's verifier key (its refusals). */
    sealerKey: VerifierKeyText,
  })
  .superRefine((pin, ctx) => {
    const named = (text: string) => {
      try {
        return parseVerifierKey(text).name;
      } catch {
        return null; // reported by the field's own check
      }
    };
    const logName = named(pin.logKey);
    if (logName !== null && logName !== pin.outputs.logName) {
      ctx.addIssue({
        code: 'custom',
        path: ['logKey'],
        message: `names ${logName}, not the log ${pin.outputs.logName}`,
      });
    }
    for (const [field, expected] of [
      ['guardKey', guardKeyName(pin.outputs.logName)],
      ['sealerKey', sealerKeyName(pin.outputs.logName)],
    ] as const) {
      const name = named(pin[field]);
      if (name !== null && name !== expected) {
        ctx.addIssue({ code: 'custom', path: [field], message: `names ${name}, not ${expected}` });
      }
    }
  });

/** Type of {@link StackPinSchema}. */
export type StackPin = z.infer<typeof StackPinSchema>;

/** A stack pin, read and checked: the outputs and the three keys, ready for `ResealClient`. */
export interface PinnedStack {
  readonly stackName: string;
  readonly outputs: ResealStackOutputs;
  readonly logKey: NoteVerifierKey;
  readonly guardKey: NoteVerifierKey;
  readonly sealerKey: NoteVerifierKey;
}

/** The pin's keys parsed (call on a value {@link StackPinSchema} accepted). */
export function pinnedStackOf(pin: StackPin): PinnedStack {
  return {
    stackName: pin.stackName,
    outputs: { ...pin.outputs },
    logKey: parseVerifierKey(pin.logKey),
    guardKey: parseVerifierKey(pin.guardKey),
    sealerKey: parseVerifierKey(pin.sealerKey),
  };
}

/** The pin file's content for a stack, its outputs and keys. */
export function stackPinOf(stack: PinnedStack): StackPin {
  return {
    formatVersion: STACK_PIN_FORMAT_VERSION,
    stackName: stack.stackName,
    outputs: { ...stack.outputs },
    logKey: formatVerifierKey(stack.logKey),
    guardKey: formatVerifierKey(stack.guardKey),
    sealerKey: formatVerifierKey(stack.sealerKey),
  };
}
