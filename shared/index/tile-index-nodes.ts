import type { IndexNode, IndexTile } from '../ports/index-node-store';
import { hashKey } from './hash-key';
import { isEmptyIndexHash } from './index-hash';
import type { IndexNodeReader } from './index-node-reader';
import { encodeIndexTile } from './index-tile';

/**
 * The tiles to store for the nodes an update made (docs/verifiable-index.md, "Tiles"): a tile for
 * the new root and for every node on a tile's cut (`levels` levels below its root) that is not
 * stored as a tile's root yet: the new nodes, a held leaf moved down onto the cut, and a held node
 * read inside a tile of another height. Each tile spells out the nodes above its cut, new ones and
 * the unchanged ones `known` holds from the tiles the update read. A node neither new nor held is
 * a reference: the walk saw it only as a reference, so it is a stored tile's root. So every
 * reference names a stored tile. Pure.
 *
 * @param root - the new root (not empty), one of `fresh`
 * @param fresh - the nodes the update made or moved, by hash (latin1 key, `hashKey`)
 * @param known - the reader the update walked with
 * @param levels - levels per tile (the store's `tileLevels`, ≥ 1)
 */
export function tileIndexNodes(
  root: Uint8Array,
  fresh: ReadonlyMap<string, IndexNode>,
  known: Pick<IndexNodeReader, 'held' | 'isTileRoot'>,
  levels: number,
): IndexTile[] {
  const content = (hash: Uint8Array): IndexNode | undefined => fresh.get(hashKey(hash)) ?? known.held(hash);
  const tiles: IndexTile[] = [];
  const done = new Set<string>();
  const queue: Uint8Array[] = [root];
  while (queue.length > 0) {
    const top = queue.pop() as Uint8Array;
    const key = hashKey(top);
    if (done.has(key)) continue;
    done.add(key);
    tiles.push({ root: top, tile: encodeIndexTile(top, content, levels) });
    // The nodes on this tile's cut that must become tiles: new ones, and held ones stored inside another tile.
    const visit = (hash: Uint8Array, depth: number): void => {
      if (isEmptyIndexHash(hash)) return;
      const node = content(hash);
      if (node === undefined) return;
      if (depth === levels) {
        if (!known.isTileRoot(hash)) queue.push(hash);
        return;
      }
      if (node.kind === 'interior') {
        visit(node.left, depth + 1);
        visit(node.right, depth + 1);
      }
    };
    visit(top, 0);
  }
  return tiles;
}
