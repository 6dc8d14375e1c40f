import { z } from 'zod';

/** `format` of a {@link StackPinShape}: bumped only when a field changes meaning or goes away. */
export const STACK_PIN_FORMAT = 'reseal.stack-pin/1';

/**
 * What `reseal pin` pinned (docs/cli.md, "Pinning the stack"): the shape `reseal pin --json`
 * prints (camelCase, `format` `reseal.stack-pin/1`): the pin file written, the stack, and the log
 * guard and sealer verifier keys (C2SP signed-note vkeys) every later command checks with.
 */
export const StackPinShape = z.object({
  format: z.literal(STACK_PIN_FORMAT),
  path: z.string(),
  stackName: z.string(),
  logKey: z.string(),
  guardKey: z.string(),
  sealerKey: z.string(),
});
/** Type of {@link StackPinShape}. */
export type StackPinShape = z.infer<typeof StackPinShape>;

/** The {@link StackPinShape} of a pin written to `path`. */
export function stackPinShape(
  path: string,
  pin: { readonly stackName: string; readonly logKey: string; readonly guardKey: string; readonly sealerKey: string },
): StackPinShape {
  return {
    format: STACK_PIN_FORMAT,
    path,
    stackName: pin.stackName,
    logKey: pin.logKey,
    guardKey: pin.guardKey,
    sealerKey: pin.sealerKey,
  };
}
