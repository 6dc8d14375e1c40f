import type { z } from 'zod';
import { RecordRefSchema } from '../schemas/record-ref';

/**
 * A trusted head `{ seq, recordHash }`: a head the caller saw earlier and checks the chain
 * against (kept by the client from its own verification or `publish --wait`, or one run's head in
 * a `ResidualSealed` event, `sealedRunHead`), passed as the `checkpoint` option or `--checkpoint`.
 * Not the log's signed checkpoint (a C2SP note, shared/log/checkpoint.ts). The table alone cannot
 * prove its own tail (docs/sealing.md, "Checkpoints and trusted starts"); a trusted head can: a
 * chain that ends before `seq` was truncated, and a record at `seq` with another hash means the
 * history was rewritten (a fork). Nothing checks the head itself (a whole `LineageHead`'s `mac`
 * and `keyId` are not verified): it is as trustworthy as where it came from. One from an event is
 * the word of the bus's publishers, which the bus policy keeps to the sealer's role: the table's
 * writer cannot forge it, but whoever can put events as that role or edit the bus policy can, and
 * then causes false `TRUNCATION_DETECTED` / `LINEAGE_BROKEN` on an intact lineage; never a hidden
 * edit, as long as a head never replaces a newer one the caller already verified.
 */
export const TrustedHeadSchema = RecordRefSchema;
/** Type of {@link TrustedHeadSchema}. */
export type TrustedHead = z.infer<typeof TrustedHeadSchema>;
