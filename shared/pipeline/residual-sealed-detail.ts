import { z } from 'zod';
import { FORMAT_VERSION } from '../canonical/hash-domain';
import { EpochMillis } from '../schemas/epoch-millis';
import { Identifier } from '../schemas/identifier';
import { LineageHeadSchema } from '../seal/lineage-head';
import { SignedNoteText } from './signed-note-text';

/**
 * The lineage tree head a sealed run stored (RFC 9162 tree size and root hash, hex): sealed,
 * awaiting integration. Nobody signed it: it is the sealer's word until the deployment index
 * commits to the lineage at that size or beyond (docs/deployment-log.md, "What changes for the sealer").
 */
const SealedTreeHeadSchema = z.strictObject({
  treeSize: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  rootHash: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex characters (SHA-256)'),
});
/** Type of {@link SealedTreeHeadSchema}. */
export type SealedTreeHead = z.infer<typeof SealedTreeHeadSchema>;

/**
 * `detail` of a `ResidualSealed` event (docs/pipeline.md, "Message shapes"; strict): the record's
 * residual id, the new head, and the lineage tree head that holds the record, sealed and awaiting
 * integration (`sealedTreeHead`; `null` only when a redelivery found no authenticated head).
 * `checkpoint` is what events carried before the sealer stopped signing (a signed lineage
 * checkpoint); the sealer now sends `null`. A write is proven once integrated: the deployment
 * chain, not this event, commits to it (docs/verifiable-log.md).
 */
export const ResidualSealedDetailSchema = LineageHeadSchema.extend({
  formatVersion: z.literal(FORMAT_VERSION),
  residualId: Identifier,
  sealedAtMs: EpochMillis,
  sealedTreeHead: SealedTreeHeadSchema.nullable(),
  checkpoint: SignedNoteText.nullable(),
});
/** Type of {@link ResidualSealedDetailSchema}. */
export type ResidualSealedDetail = z.infer<typeof ResidualSealedDetailSchema>;
