import { describe, expect, it } from 'vitest';
import { IndexNodeMissingError, IndexProofFormatError, InvalidInputError } from '../../../../shared/errors';
import { applyIndexUpdates } from '../../../../shared/index/apply-index-updates';
import { checkIndexAbsence, checkIndexPresence } from '../../../../shared/index/check-index';
import { entryKey, type IndexEntry, parseIndexEntry } from '../../../../shared/index/index-entry';
import { emptyIndexHash } from '../../../../shared/index/index-hash';
import { indexKeyPath, parseIndexKey } from '../../../../shared/index/index-key';
import {
  decodeIndexProof,
  encodeIndexProof,
  type IndexProof,
  indexProofFromJson,
  indexProofToJson,
} from '../../../../shared/index/index-proof';
import { parseIndexUpdates } from '../../../../shared/index/index-update';
import { MemoryIndexNodeStore } from '../../../../shared/index/memory-index-node-store';
import { proveIndexKey } from '../../../../shared/index/prove-index-key';
import { builtIndex } from '../../../helpers/built-index';
import {
  hexOf,
  lineageEntry,
  lineageValue,
  residualEntry,
  residualValue,
  updatesFor,
  updateTo,
} from '../../../helpers/index-factories';
import { referenceLeafHash, referenceRoot } from '../../../helpers/index-reference';

const ref = (entries: readonly IndexEntry[]) => hexOf(referenceRoot(entries));

/** A small map: three lineages, four residual ids. */
const MAP: IndexEntry[] = [
  lineageEntry('lineage-1', lineageValue(3, 'a')),
  lineageEntry('lineage-2', lineageValue(1, 'b')),
  lineageEntry('lineage-3', lineageValue(7, 'c')),
  residualEntry('lineage-1', 'r-0', residualValue(0, 'a')),
  residualEntry('lineage-1', 'r-1', residualValue(1, 'a')),
  residualEntry('lineage-1', 'r-2', residualValue(2, 'a')),
  residualEntry('lineage-2', 'r-0', residualValue(0, 'b')),
];

const mapIndex = (entries: readonly IndexEntry[] = MAP) => builtIndex(entries);

describe('verifiable index: roots', () => {
  it('the empty index has the empty-subtree hash as root, and every key is provably absent from it', async () => {
    const store = new MemoryIndexNodeStore();
    const key = { kind: 'lineage', lineageId: 'x' } as const;
    const proven = await proveIndexKey(store, emptyIndexHash(), key);
    expect(proven.kind).toBe('absence');
    expect(encodeIndexProof(proven.proof)).toEqual(Uint8Array.of(1, 1, 0, 0));
    expect(checkIndexAbsence(emptyIndexHash(), key, proven.proof)).toBeNull();
  });

  it('an index of one entry has that entry’s leaf as root (the leaf shortcut)', async () => {
    const [entry] = MAP as [IndexEntry];
    const { root } = await mapIndex([entry]);
    expect(hexOf(root)).toBe(hexOf(referenceLeafHash(entry)));
  });

  it('a batch gives the root the recursive definition gives, in any order of updates', async () => {
    const { root, result } = await mapIndex();
    expect(hexOf(root)).toBe(ref(MAP));
    expect(result.changedKeys).toBe(MAP.length);
    expect(result.findings).toEqual([]);
    const reversed = await mapIndex([...MAP].reverse());
    expect(hexOf(reversed.root)).toBe(hexOf(root));
  });

  it('one batch or one update at a time: the same root', async () => {
    const store = new MemoryIndexNodeStore();
    let root = emptyIndexHash();
    for (const entry of MAP) root = (await applyIndexUpdates(store, root, [updateTo(entry)])).root;
    expect(hexOf(root)).toBe(ref(MAP));
  });
});

describe('verifiable index: proofs', () => {
  it('proves every entry present and other keys absent, and the two never swap', async () => {
    const { store, root } = await mapIndex();
    for (const entry of MAP) {
      const proven = await proveIndexKey(store, root, entryKey(entry));
      expect(proven).toMatchObject({ kind: 'presence', entry });
      const bytes = encodeIndexProof(proven.proof);
      expect(checkIndexPresence(root, entry, bytes)).toBeNull();
      expect(checkIndexAbsence(root, entryKey(entry), bytes)?.code).toBe('WRONG_KIND');
    }
    for (const key of [
      { kind: 'lineage', lineageId: 'lineage-9' },
      { kind: 'residual', lineageId: 'lineage-2', residualId: 'r-1' },
      { kind: 'residual', lineageId: 'lineage-3', residualId: 'r-0' },
    ] as const) {
      const proven = await proveIndexKey(store, root, key);
      expect(proven.kind).toBe('absence');
      expect(checkIndexAbsence(root, key, encodeIndexProof(proven.proof))).toBeNull();
    }
  });

  it('a presence proof refuses another value, and an absence proof of one key does not prove another absent', async () => {
    const { store, root } = await mapIndex();
    const entry = MAP[3] as IndexEntry;
    const { proof } = await proveIndexKey(store, root, entryKey(entry));
    const other = residualEntry('lineage-1', 'r-0', residualValue(0, 'forged'));
    expect(checkIndexPresence(root, other, proof)?.code).toBe('ROOT_MISMATCH');
    const absent = { kind: 'lineage', lineageId: 'lineage-9' } as const;
    const absence = (await proveIndexKey(store, root, absent)).proof;
    // Every present key, shown "absent" with another key's absence proof: refused.
    for (const e of MAP) expect(checkIndexAbsence(root, entryKey(e), absence)).not.toBeNull();
  });

  it('an absence proof whose other leaf is the key itself, or off its path, is refused by name', async () => {
    const { store, root } = await mapIndex();
    const entry = MAP[0] as IndexEntry;
    const present = await proveIndexKey(store, root, entryKey(entry));
    const path = indexKeyPath(entryKey(entry));
    const own: IndexProof = {
      kind: 'absence',
      siblings: present.proof.siblings,
      leaf: { keyPath: path, entryDigest: new Uint8Array(32) },
    };
    expect(checkIndexAbsence(root, entryKey(entry), own)?.code).toBe('WRONG_KIND');
    const flipped = path.slice();
    flipped[0] = (flipped[0] as number) ^ 0x80;
    const off: IndexProof = { kind: 'absence', siblings: [null], leaf: { keyPath: flipped, entryDigest: path } };
    expect(checkIndexAbsence(root, entryKey(entry), off)?.code).toBe('NOT_ON_PATH');
  });

  it('binary and JSON forms carry the same proof, and a malformed one is a finding, not a throw', async () => {
    const { store, root } = await mapIndex();
    const key = { kind: 'lineage', lineageId: 'lineage-9' } as const;
    const { proof } = await proveIndexKey(store, root, key);
    const bytes = encodeIndexProof(proof);
    expect(encodeIndexProof(decodeIndexProof(bytes))).toEqual(bytes);
    const json = JSON.parse(JSON.stringify(indexProofToJson(proof)));
    expect(encodeIndexProof(indexProofFromJson(json))).toEqual(bytes);
    expect(checkIndexAbsence(root, key, Uint8Array.of(9))?.code).toBe('MALFORMED');
    expect(checkIndexAbsence(new Uint8Array(31), key, bytes)?.code).toBe('MALFORMED');
  });

  it.each([
    ['fewer than the header', Uint8Array.of(1, 0, 0), ''],
    ['an unknown version', Uint8Array.of(2, 0, 0, 0), 'version'],
    ['an unknown kind', Uint8Array.of(1, 3, 0, 0), 'kind'],
    ['a depth beyond 256', Uint8Array.of(1, 0, 1, 1), 'depth'],
    ['a padding bit set', Uint8Array.of(1, 0, 0, 1, 0x40), 'bitmap'],
    ['a missing bitmap', Uint8Array.of(1, 0, 0, 9), 'bitmap'],
    ['a missing sibling', Uint8Array.of(1, 0, 0, 1, 0x80), 'siblings.0'],
    ['a missing other leaf', Uint8Array.of(1, 2, 0, 0), 'leaf.keyPath'],
    ['bytes after the proof', Uint8Array.of(1, 0, 0, 0, 0), ''],
    ['the empty hash spelled out', Uint8Array.from([1, 0, 0, 1, 0x80, ...emptyIndexHash()]), 'siblings.0'],
  ])('decoding refuses %s, naming the part', (_what, bytes, path) => {
    const error = (() => {
      try {
        decodeIndexProof(bytes);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(IndexProofFormatError);
    expect((error as IndexProofFormatError).issues[0]?.path).toBe(path);
  });

  it('the JSON form is strict: a presence with a leaf, an unknown member, upper-case hex are refused', () => {
    const leaf = { keyPath: 'a'.repeat(64), entryDigest: 'b'.repeat(64) };
    expect(() => indexProofFromJson({ v: 1, kind: 'presence', siblings: [], leaf })).toThrow(IndexProofFormatError);
    expect(() => indexProofFromJson({ v: 1, kind: 'absence', siblings: [], leaf: null, x: 1 })).toThrow(
      IndexProofFormatError,
    );
    expect(() => indexProofFromJson({ v: 1, kind: 'absence', siblings: ['A'.repeat(64)], leaf: null })).toThrow(
      /siblings\.0/,
    );
  });
});

describe('verifiable index: the update rule', () => {
  const L1 = 'lineage-1';
  const held = lineageValue(3, 'a');

  it('a residual id, once set, never changes: the finding carries both values, the rest of the batch applies', async () => {
    const { store, root } = await mapIndex();
    const offered = residualValue(5, 'a');
    const fresh = residualEntry('lineage-3', 'r-9', residualValue(6, 'c'));
    const result = await applyIndexUpdates(store, root, [updateTo(residualEntry(L1, 'r-1', offered)), updateTo(fresh)]);
    expect(result.findings).toEqual([
      expect.objectContaining({
        kind: 'RESIDUAL_CHANGED',
        key: { kind: 'residual', lineageId: L1, residualId: 'r-1' },
        held: residualValue(1, 'a'),
        offered,
      }),
    ]);
    expect(hexOf(result.root)).toBe(ref([...MAP, fresh]));
    expect(result.changedKeys).toBe(1);
  });

  it('the same entries again change nothing and write nothing', async () => {
    const { store, root } = await mapIndex();
    const again = MAP.map((e) => updateTo(e, e.kind === 'lineage' ? (e.value as typeof held) : null));
    const before = store.writes;
    const result = await applyIndexUpdates(store, root, again);
    expect(result).toMatchObject({ changedKeys: 0, nodesWritten: 0, findings: [] });
    expect(hexOf(result.root)).toBe(hexOf(root));
    expect(store.writes).toBe(before);
  });

  it('a lineage moves forward when checked from the head the index holds', async () => {
    const { store, root } = await mapIndex();
    const next = lineageValue(5, 'a');
    const result = await applyIndexUpdates(store, root, [updateTo(lineageEntry(L1, next), held)]);
    expect(result.findings).toEqual([]);
    expect(hexOf(result.root)).toBe(
      ref(MAP.map((e) => (e.kind === 'lineage' && e.lineageId === L1 ? lineageEntry(L1, next) : e))),
    );
  });

  it.each([
    ['a smaller tree', lineageValue(2, 'a'), held, 'LINEAGE_ROLLBACK'],
    ['an older generation epoch', { ...lineageValue(4, 'a'), generationEpoch: 0 }, held, 'LINEAGE_ROLLBACK'],
    ['another root at the same size', lineageValue(3, 'forked'), held, 'LINEAGE_FORK'],
    ['a check from another head', lineageValue(5, 'a'), lineageValue(2, 'a'), 'LINEAGE_UNCHECKED'],
    ['a check from nothing (as if new)', lineageValue(5, 'a'), null, 'LINEAGE_UNCHECKED'],
  ] as const)('a lineage head is refused for %s, with both heads', async (_what, offered, from, kind) => {
    const { store, root } = await mapIndex();
    const result = await applyIndexUpdates(store, root, [updateTo(lineageEntry(L1, offered), from)]);
    expect(result.findings).toEqual([expect.objectContaining({ kind, held, offered })]);
    expect(hexOf(result.root)).toBe(hexOf(root));
    expect(result.nodesWritten).toBe(0);
  });

  it('a new lineage checked from a head the index never held is refused', async () => {
    const { store, root } = await mapIndex();
    const result = await applyIndexUpdates(store, root, [
      updateTo(lineageEntry('lineage-9', lineageValue(4, 'z')), held),
    ]);
    expect(result.findings).toEqual([expect.objectContaining({ kind: 'LINEAGE_UNCHECKED', held: null })]);
    expect(hexOf(result.root)).toBe(hexOf(root));
  });

  it('refuses two updates of one key in a batch, and a root that is not 32 bytes', async () => {
    const store = new MemoryIndexNodeStore();
    const update = updateTo(MAP[3] as IndexEntry);
    await expect(applyIndexUpdates(store, emptyIndexHash(), [update, update])).rejects.toThrow(
      /updates 0 and 1 name the same key/,
    );
    await expect(applyIndexUpdates(store, new Uint8Array(3), [update])).rejects.toBeInstanceOf(InvalidInputError);
    await expect(proveIndexKey(store, new Uint8Array(3), entryKey(MAP[3] as IndexEntry))).rejects.toBeInstanceOf(
      InvalidInputError,
    );
  });

  it('writes only the changed path: one new leaf and one node per level above it', async () => {
    const { store, root } = await mapIndex();
    const next = lineageValue(4, 'a');
    const result = await applyIndexUpdates(store, root, [updateTo(lineageEntry(L1, next), held)]);
    const changedDepth = (await proveIndexKey(store, result.root, { kind: 'lineage', lineageId: L1 })).proof.siblings
      .length;
    expect(result.nodesWritten).toBe(changedDepth + 1);
    expect(store.putCalls).toBe(2);
  });
});

describe('verifiable index: the node store', () => {
  it('a node edited or deleted behind the index is caught when read', async () => {
    const { store, root } = await mapIndex();
    const key = entryKey(MAP[0] as IndexEntry);
    store.tamper(root, { kind: 'interior', left: emptyIndexHash(), right: root });
    await expect(proveIndexKey(store, root, key)).rejects.toMatchObject({
      name: 'IndexNodeMissingError',
      corrupt: true,
    });
    store.tamper(root, undefined);
    await expect(applyIndexUpdates(store, root, [updateTo(MAP[0] as IndexEntry)])).rejects.toBeInstanceOf(
      IndexNodeMissingError,
    );
  });

  it('a leaf rewritten with another value is caught too', async () => {
    const entry = MAP[3] as IndexEntry;
    const { store, root } = await mapIndex([entry]);
    store.tamper(root, { kind: 'leaf', entry: residualEntry('lineage-1', 'r-0', residualValue(9, 'x')) });
    await expect(proveIndexKey(store, root, entryKey(entry))).rejects.toMatchObject({ corrupt: true });
  });
});

describe('verifiable index: inputs from outside', () => {
  it('keys, entries and updates are strict', () => {
    expect(parseIndexKey({ kind: 'lineage', lineageId: 'a' })).toEqual({ kind: 'lineage', lineageId: 'a' });
    expect(() => parseIndexKey({ kind: 'lineage', lineageId: 'a', residualId: 'b' })).toThrow(/invalid index key/);
    expect(() => parseIndexKey({ kind: 'residual', lineageId: 'a' })).toThrow(/residualId/);
    expect(() => parseIndexEntry({ ...MAP[0], value: { ...lineageValue(1), extra: 1 } })).toThrow(
      /invalid index entry/,
    );
    expect(() => parseIndexEntry({ ...MAP[0], value: { ...lineageValue(1), treeSize: 0 } })).toThrow(/treeSize/);
    expect(() => parseIndexEntry({ ...MAP[3], value: { seq: 1, recordHash: 'AB' } })).toThrow(/recordHash/);
    expect(parseIndexUpdates(updatesFor(MAP))).toHaveLength(MAP.length);
    expect(() => parseIndexUpdates([{ ...MAP[0] }])).toThrow(/consistentFrom/);
  });
});
