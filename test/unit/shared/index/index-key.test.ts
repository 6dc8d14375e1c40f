import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../shared/canonical/canonical-json';
import { applyIndexUpdates } from '../../../../shared/index/apply-index-updates';
import type { IndexEntry } from '../../../../shared/index/index-entry';
import {
  type IndexKey,
  indexKeyPath,
  KEY_PATH_BITS,
  keyObject,
  keyPathBit,
  RESIDUAL_SHARED_PATH_BITS,
} from '../../../../shared/index/index-key';
import { INDEX_TILE_LEVELS } from '../../../../shared/index/index-tile';
import { builtIndex } from '../../../helpers/built-index';
import { lineageEntry, lineageValue, residualEntry, residualValue, updateTo } from '../../../helpers/index-factories';

const bits = (path: Uint8Array, from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => keyPathBit(path, from + i)).join('');
const keyHash = (key: IndexKey) =>
  createHash('sha256')
    .update(`reseal/v1/index-key\0${canonicalJson(keyObject(key))}`)
    .digest();

describe('index key paths (docs/verifiable-index.md, "Keys")', () => {
  it("a residual id's path is its lineage's first P bits, then the rest of its own key hash", () => {
    expect(RESIDUAL_SHARED_PATH_BITS).toBe(16);
    for (let l = 0; l < 20; l += 1) {
      const lineage: IndexKey = { kind: 'lineage', lineageId: `lineage-${l}` };
      const lineagePath = indexKeyPath(lineage);
      expect(Buffer.from(lineagePath)).toEqual(keyHash(lineage)); // a lineage's path is its key hash
      for (const residualId of ['r-0', 'r-1', `residual-${l}`]) {
        const residual: IndexKey = { kind: 'residual', lineageId: lineage.lineageId, residualId };
        const path = indexKeyPath(residual);
        expect(bits(path, 0, RESIDUAL_SHARED_PATH_BITS)).toBe(bits(lineagePath, 0, RESIDUAL_SHARED_PATH_BITS));
        expect(bits(path, RESIDUAL_SHARED_PATH_BITS, KEY_PATH_BITS)).toBe(
          bits(keyHash(residual), RESIDUAL_SHARED_PATH_BITS, KEY_PATH_BITS),
        );
        expect(Buffer.from(path)).not.toEqual(Buffer.from(lineagePath));
      }
    }
  });

  it("one write's two keys (its lineage's and its new residual id's) write fewer tiles than two independent keys", async () => {
    // 2,000 lineages of 4 residual ids each: 10,000 keys, a lineage's subtree at depth 16 holds its
    // own 5 keys (and rarely another), so a write's keys part there, not near the root.
    const lineages = 2_000;
    const entries: IndexEntry[] = [];
    for (let l = 0; l < lineages; l += 1) {
      entries.push(lineageEntry(`lineage-${l}`, lineageValue(4, `l${l}`)));
      for (let r = 0; r < 4; r += 1) entries.push(residualEntry(`lineage-${l}`, `r-${r}`, residualValue(r, `l${l}`)));
    }
    let { store, root } = await builtIndex(entries, INDEX_TILE_LEVELS);
    /** Tiles written by 40 single-write integrations, each moving a lineage and adding a residual id of `residualOf(l)`. */
    const tilesOf = async (first: number, residualOf: (l: number) => number) => {
      let tiles = 0;
      for (let l = first; l < first + 40; l += 1) {
        const result = await applyIndexUpdates(store, root, [
          updateTo(lineageEntry(`lineage-${l}`, lineageValue(5, `l${l}`)), lineageValue(4, `l${l}`)),
          updateTo(residualEntry(`lineage-${residualOf(l)}`, `new-${l}`, residualValue(4, `l${l}`))),
        ]);
        expect(result.changedKeys).toBe(2);
        tiles += result.tilesWritten;
        root = result.root;
      }
      return tiles / 40;
    };
    const ownLineage = await tilesOf(0, (l) => l);
    const otherLineage = await tilesOf(100, (l) => (l * 7 + 1_000) % lineages);
    // Measured: 6.1 tiles a write with the residual id under its own lineage, 10.1 with a residual
    // id of another lineage (its path crosses the 5 single-child levels between log2 2,000 and 16 on
    // its own); with independent paths (P = 0) 7.6 and 7.6: two whole paths below the root's tiles.
    expect(ownLineage).toBeLessThan(0.75 * otherLineage);
  });
});
