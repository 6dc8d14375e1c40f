import { z } from 'zod';

/**
 * The lineage tree head a sealed run stored (RFC 9162 tree size and root hash, hex): sealed,
 * awaiting integration. Nobody signed it: it is the sealer's word until the deployment index
 * commits to the lineage at that size or beyond (docs/deployment-log.md, "What changes for the sealer").
 */
export const SealedTreeHeadSchema = z.strictObject({
  treeSize: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  rootHash: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex characters (SHA-256)'),
});
/** Type of {@link SealedTreeHeadSchema}. */
export type SealedTreeHead = z.infer<typeof SealedTreeHeadSchema>;
