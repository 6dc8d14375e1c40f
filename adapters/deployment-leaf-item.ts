import { HEX_DIGEST_PATTERN, type HexDigest } from '../shared/canonical/digest';
import type { StoredDeploymentLeaf } from '../shared/ports/deployment-log-store';
import { type Item, itemOf } from './item';
import { LineageKeys } from './lineage-keys';
import { readJson, readString } from './read-attribute';

/** The leaf item `DEPLOYMENT#log` / `LEAF#<16 digits>`: the index root it commits to and the tree nodes it completes. */
export function deploymentLeafItem(leaf: StoredDeploymentLeaf): Item {
  return itemOf({
    pk: LineageKeys.deploymentLog,
    sk: LineageKeys.deploymentLeaf(leaf.index),
    indexRoot: leaf.indexRoot,
    nodes: JSON.stringify(leaf.nodes),
  });
}

/** A leaf item's index root when it is 64 lowercase hex, else `null`. */
export function leafIndexRootOf(item: Item): HexDigest | null {
  const root = readString(item, 'indexRoot');
  return typeof root === 'string' && HEX_DIGEST_PATTERN.test(root) ? root : null;
}

/** The tree node a leaf item stores at `level` (hex, unverified), or `null` when absent or not a string. */
export function leafNodeOf(item: Item, level: number): HexDigest | null {
  const nodes = readJson<unknown>(item, 'nodes', null);
  const hash = Array.isArray(nodes) ? nodes[level] : undefined;
  return typeof hash === 'string' ? hash : null;
}
