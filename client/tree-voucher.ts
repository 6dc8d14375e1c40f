import type { ReadDeploymentChain } from '../shared/integrator/record-freshness';
import type { StoredTreeHead } from '../shared/log/latest-checkpoint';

/**
 * What vouches for a lineage tree head the client read, in words for a recall's reasons
 * (docs/verifiable-log.md, "Recall", step 6; docs/deployment-log.md, "Clients"): the lineage's
 * signed checkpoint (its `note`); for a head the sealer MAC'd (`note` `null`), the lineage's index
 * entry under deployment checkpoint N when the verified chain holds exactly that tree (size and
 * root), else the sealer's head MAC alone, awaiting integration: the table's word, never called
 * signed. `chain` is the deployment chain read for the lineage, or `null` (none read).
 */
export function treeVoucher(tree: StoredTreeHead, chain: ReadDeploymentChain | null): string {
  if (tree.note !== null) return `the lineage's signed checkpoint of ${tree.size} records`;
  const indexed = chain && (chain.kind === 'PROVEN' || chain.kind === 'ABSENT') ? chain : null;
  const entry = indexed?.lineage ?? null;
  if (
    indexed &&
    entry &&
    entry.treeSize === tree.size &&
    entry.rootHash === Buffer.from(tree.rootHash).toString('hex')
  ) {
    return `the lineage's tree of ${tree.size} records, its index entry under deployment checkpoint ${indexed.checkpoint.size}`;
  }
  return `the head item's tree of ${tree.size} records, which only the sealer's head MAC vouches for (awaiting integration; not signed)`;
}

/**
 * Where a recall proved its record, in words (`reseal recall`'s proof line, `reseal_recall`'s
 * text): "the signed checkpoint of N records", or, for a head the sealer MAC'd, the head item's
 * tree with what vouches for it: its index entry under deployment checkpoint M (freshness
 * `PROVEN`), else the sealer's head MAC alone, awaiting integration.
 */
export function provenTreeText(
  tree: Pick<StoredTreeHead, 'size' | 'note'>,
  freshness: { readonly state: string; readonly checkpointSize: number | null } | null,
): string {
  if (tree.note !== null) return `the signed checkpoint of ${tree.size} records`;
  const vouched =
    freshness?.state === 'PROVEN'
      ? `its index entry under deployment checkpoint ${freshness.checkpointSize}`
      : 'awaiting integration';
  return `the head item's tree of ${tree.size} records (the sealer's head MAC, not signed; ${vouched})`;
}
