import { z } from 'zod';

/** `format` of a {@link LogKeyShape}: bumped only when a field changes meaning or goes away. */
export const LOG_KEY_FORMAT = 'reseal.log-key/1';

/**
 * A stack's log verifier key (docs/cli.md, `reseal log-key`; docs/verifiable-log.md, "Checkpoints"):
 * the shape `reseal log-key --json` prints (camelCase, `format` `reseal.log-key/1`). `logKey` is
 * the C2SP signed-note vkey (`<name>+<hash>+<key>`) to pin where receipts and checkpoints are
 * checked; `logName` the name the log signs with.
 */
export const LogKeyShape = z.object({
  format: z.literal(LOG_KEY_FORMAT),
  logName: z.string(),
  logKey: z.string(),
});
/** Type of {@link LogKeyShape}. */
export type LogKeyShape = z.infer<typeof LogKeyShape>;

/** The {@link LogKeyShape} of a log's name and its formatted verifier key. */
export function logKeyShape(logName: string, logKey: string): LogKeyShape {
  return { format: LOG_KEY_FORMAT, logName, logKey };
}
