import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../shared/canonical/canonical-json';
import { applyIndexUpdates } from '../../../../shared/index/apply-index-updates';
import { checkIndexAbsence, checkIndexPresence } from '../../../../shared/index/check-index';
import {
  entryKey,
  type IndexEntry,
  type LineageIndexValue,
  parseIndexEntry,
} from '../../../../shared/index/index-entry';
import { emptyIndexHash } from '../../../../shared/index/index-hash';
import type { IndexKey } from '../../../../shared/index/index-key';
import { encodeIndexProof } from '../../../../shared/index/index-proof';
import type { IndexUpdate } from '../../../../shared/index/index-update';
import { MemoryIndexNodeStore } from '../../../../shared/index/memory-index-node-store';
import { proveIndexKey } from '../../../../shared/index/prove-index-key';
import { digestOf, hexOf } from '../../../helpers/index-factories';
import { referenceRoot } from '../../../helpers/index-reference';

const LINEAGES = ['l0', 'l1', 'l2', 'l3'];
const RESIDUALS = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'];
/** Every key the generated batches may touch. */
const UNIVERSE: IndexKey[] = LINEAGES.flatMap((lineageId) => [
  { kind: 'lineage', lineageId } as const,
  ...RESIDUALS.map((residualId) => ({ kind: 'residual', lineageId, residualId }) as const),
]);
const name = (key: IndexKey) => (key.kind === 'lineage' ? key.lineageId : `${key.lineageId}/${key.residualId}`);

const digestArb = fc.integer({ min: 0, max: 3 }).map((i) => digestOf(`d${i}`));
const lineageValueArb: fc.Arbitrary<LineageIndexValue> = fc.record({
  treeSize: fc.integer({ min: 1, max: 4 }),
  rootHash: digestArb,
  headRecordHash: digestArb,
  generationEpoch: fc.integer({ min: 0, max: 2 }),
  writerPolicyDigest: fc.option(digestArb, { nil: null }),
});
const residualValueArb = fc.record({ seq: fc.integer({ min: 0, max: 3 }), recordHash: digestArb });

/** How a lineage update names the head it was checked from: the held one (mostly), none, or another. */
const fromArb = fc.constantFrom('held', 'held', 'held', 'none', 'other');

/** One proposed change: a key of the universe and a value for it. */
const changeArb = fc.record({
  key: fc.constantFrom(...UNIVERSE),
  lineage: lineageValueArb,
  residual: residualValueArb,
  from: fromArb,
});
const batchesArb = fc.array(fc.uniqueArray(changeArb, { selector: (c) => name(c.key), maxLength: 12 }), {
  minLength: 1,
  maxLength: 5,
});

/** The update rule of docs/verifiable-index.md, "Update rule", restated: whether the index must refuse. */
function refused(held: IndexEntry | undefined, update: IndexUpdate): boolean {
  if (update.kind === 'residual')
    return held !== undefined && canonicalJson(held.value) !== canonicalJson(update.value);
  const h = held?.value as LineageIndexValue | undefined;
  const from = update.consistentFrom;
  if (h === undefined) return from !== null;
  if (from === null || from.treeSize !== h.treeSize || from.rootHash !== h.rootHash) return true;
  const v = update.value;
  if (v.treeSize < h.treeSize || v.generationEpoch < h.generationEpoch) return true;
  return v.treeSize === h.treeSize && (v.rootHash !== h.rootHash || v.headRecordHash !== h.headRecordHash);
}

/** One generated change. */
type Change = typeof changeArb extends fc.Arbitrary<infer C> ? C : never;

/** The update a change makes against the map `model` holds (lineages checked from what `from` says). */
function updateOf(change: Change, model: ReadonlyMap<string, IndexEntry>): IndexUpdate {
  const { key } = change;
  if (key.kind === 'residual') return { ...key, value: change.residual };
  const held = model.get(name(key))?.value as LineageIndexValue | undefined;
  const consistentFrom =
    change.from === 'none'
      ? null
      : change.from === 'other' || held === undefined
        ? { treeSize: 2, rootHash: digestOf('elsewhere') }
        : { treeSize: held.treeSize, rootHash: held.rootHash };
  return {
    ...key,
    value: change.lineage,
    consistentFrom: change.from === 'held' && held === undefined ? null : consistentFrom,
  };
}

const entryOf = (update: IndexUpdate): IndexEntry => {
  const { consistentFrom: _, ...entry } = update as IndexUpdate & { consistentFrom?: unknown };
  return entry as IndexEntry;
};

describe('verifiable index (properties, against a naive reference)', () => {
  it('random batches: the root is the reference root of the admitted entries, refusals follow the rule, every key proves what the map holds', async () => {
    await fc.assert(
      fc.asyncProperty(
        batchesArb,
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 5, maxLength: 5 }),
        async (batches, levels) => {
          // Tiles of any height, changing between batches (docs/verifiable-index.md, "Tiles"): only
          // storage changes, so the root is the reference root whatever the tiles.
          const store = new MemoryIndexNodeStore();
          const model = new Map<string, IndexEntry>();
          let root = emptyIndexHash();
          for (const [b, batch] of batches.entries()) {
            store.tileLevels = levels[b] as number;
            const updates = batch.map((change) => updateOf(change, model));
            const expectRefused = updates.map((u) => refused(model.get(name(entryKey(entryOf(u)))), u));
            const result = await applyIndexUpdates(store, root, updates);
            expect(result.findings).toHaveLength(expectRefused.filter(Boolean).length);
            updates.forEach((u, i) => {
              if (!expectRefused[i]) model.set(name(entryKey(entryOf(u))), entryOf(u));
            });
            root = result.root;
            expect(hexOf(root)).toBe(hexOf(referenceRoot([...model.values()])));
          }
          for (const key of UNIVERSE) {
            const proven = await proveIndexKey(store, root, key);
            const held = model.get(name(key));
            const bytes = encodeIndexProof(proven.proof);
            if (held) {
              expect(proven).toMatchObject({ kind: 'presence', entry: held });
              expect(checkIndexPresence(root, held, bytes)).toBeNull();
              expect(checkIndexAbsence(root, key, bytes)).not.toBeNull();
            } else {
              expect(proven.kind).toBe('absence');
              expect(checkIndexAbsence(root, key, bytes)).toBeNull();
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  /** A map of random entries over the universe, built in one batch. */
  const mapArb = fc
    .uniqueArray(changeArb, { selector: (c) => name(c.key), minLength: 1, maxLength: 20 })
    .map((changes) => changes.map((c) => entryOf(updateOf({ ...c, from: 'none' }, new Map()))));

  it('absence and presence never both verify for a key, whichever proof of the map is offered', async () => {
    await fc.assert(
      fc.asyncProperty(
        mapArb,
        fc.array(fc.constantFrom(...UNIVERSE), { minLength: 1, maxLength: 6 }),
        async (entries, keys) => {
          const store = new MemoryIndexNodeStore();
          const { root } = await applyIndexUpdates(
            store,
            emptyIndexHash(),
            entries.map((e) => (e.kind === 'lineage' ? { ...e, consistentFrom: null } : e)),
          );
          const held = new Map(entries.map((e) => [name(entryKey(e)), e]));
          const proofs = await Promise.all(
            UNIVERSE.map(async (key) => encodeIndexProof((await proveIndexKey(store, root, key)).proof)),
          );
          for (const key of keys) {
            const entry = held.get(name(key));
            const present = proofs.some((p) => entry !== undefined && checkIndexPresence(root, entry, p) === null);
            const absent = proofs.some((p) => checkIndexAbsence(root, key, p) === null);
            expect(present).toBe(entry !== undefined);
            expect(absent).toBe(entry === undefined);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('every single bit flip in a proof, in the root or in the value is refused', async () => {
    await fc.assert(
      fc.asyncProperty(mapArb, fc.constantFrom(...UNIVERSE), async (entries, key) => {
        const store = new MemoryIndexNodeStore();
        const { root } = await applyIndexUpdates(
          store,
          emptyIndexHash(),
          entries.map((e) => (e.kind === 'lineage' ? { ...e, consistentFrom: null } : e)),
        );
        const proven = await proveIndexKey(store, root, key);
        const bytes = encodeIndexProof(proven.proof);
        const check = (r: Uint8Array, p: Uint8Array) =>
          proven.kind === 'presence' ? checkIndexPresence(r, proven.entry, p) : checkIndexAbsence(r, key, p);
        expect(check(root, bytes)).toBeNull();
        for (let bit = 0; bit < bytes.byteLength * 8; bit += 1) expect(check(root, flip(bytes, bit))).not.toBeNull();
        for (let bit = 0; bit < 256; bit += 1) expect(check(flip(root, bit), bytes)).not.toBeNull();
        if (proven.kind === 'presence') {
          const text = Buffer.from(canonicalJson(proven.entry));
          for (let bit = 0; bit < text.byteLength * 8; bit += 1) {
            const edited = flip(text, bit);
            let entry: IndexEntry;
            try {
              entry = parseIndexEntry(JSON.parse(Buffer.from(edited).toString('utf8')));
            } catch {
              continue; // refused at the boundary: no longer an entry at all
            }
            expect(checkIndexPresence(root, entry, bytes), Buffer.from(edited).toString('utf8')).not.toBeNull();
          }
        }
      }),
      { numRuns: 40 },
    );
  });
});

function flip(bytes: Uint8Array, bit: number): Uint8Array {
  const copy = Uint8Array.from(bytes);
  copy[bit >>> 3] = (copy[bit >>> 3] as number) ^ (0x80 >>> (bit & 7));
  return copy;
}
