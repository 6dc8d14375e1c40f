import { z } from 'zod';

/** `format` of a {@link DestroyShape}: bumped only when a field changes meaning or goes away. */
export const DESTROY_FORMAT = 'reseal.destroy/1';

/**
 * What `reseal destroy --yes --json` prints (docs/infrastructure.md, "Deploying to AWS"; camelCase,
 * `format` `reseal.destroy/1`): the stack, deleted.
 */
export const DestroyShape = z.object({
  format: z.literal(DESTROY_FORMAT),
  stack: z.string(),
  destroyed: z.literal(true),
});
/** Type of {@link DestroyShape}. */
export type DestroyShape = z.infer<typeof DestroyShape>;

/** The {@link DestroyShape} of a destroyed stack. */
export function destroyShape(stack: string): DestroyShape {
  return { format: DESTROY_FORMAT, stack, destroyed: true };
}
