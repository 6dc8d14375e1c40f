import { z } from 'zod';
import { ToolErrorCode } from './tool-error-code';

/**
 * `structuredContent` of every tool error: the code, a message, what to do (`action`), and the
 * details of the code (e.g. `rejectedVariables` of `WRITE_REJECTED`, `verdict` of `TAMPER_DETECTED`).
 */
export const ToolErrorSchema = z
  .object({ error: z.enum(ToolErrorCode), message: z.string(), action: z.string() })
  .catchall(z.unknown());
/** Type of {@link ToolErrorSchema}. */
export type ToolError = z.infer<typeof ToolErrorSchema>;
