import type { z } from 'zod';
import { RecordRefSchema } from '../schemas/record-ref';

/**
 * A trusted head `{ seq, recordHash }`: a head the caller saw earlier (kept by the client, or
 * one run's head in a `ResidualSealed` event, `sealedRunHead`), passed as the `checkpoint` option or `--checkpoint`. Not
 * the log's signed checkpoint (a C2SP note, shared/log/checkpoint.ts). The table alone cannot
 * prove its own tail (docs/sealing.md, "Checkpoints and trusted starts"); a trusted head can: a
 * chain that ends before `seq` was truncated, and a record at `seq` with another hash means the
 * history was rewritten (a fork).
 */
export const TrustedHeadSchema = RecordRefSchema;
/** Type of {@link TrustedHeadSchema}. */
export type TrustedHead = z.infer<typeof TrustedHeadSchema>;
