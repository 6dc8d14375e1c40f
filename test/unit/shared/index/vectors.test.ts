import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HashDomain } from '../../../../shared/canonical/hash-domain';
import { IndexProofFormatError } from '../../../../shared/errors';
import { applyIndexUpdates } from '../../../../shared/index/apply-index-updates';
import { checkIndexAbsence, checkIndexPresence } from '../../../../shared/index/check-index';
import { entryDigest, entryKey, type IndexEntry, parseIndexEntry } from '../../../../shared/index/index-entry';
import { emptyIndexHash, indexLeafHash } from '../../../../shared/index/index-hash';
import { indexKeyPath, parseIndexKey } from '../../../../shared/index/index-key';
import {
  decodeIndexProof,
  encodeIndexProof,
  type IndexProof,
  indexProofFromJson,
} from '../../../../shared/index/index-proof';
import { parseIndexUpdates } from '../../../../shared/index/index-update';
import { MemoryIndexNodeStore } from '../../../../shared/index/memory-index-node-store';
import { proveIndexKey } from '../../../../shared/index/prove-index-key';
import { hexOf, updatesFor } from '../../../helpers/index-factories';
import {
  REFERENCE_EMPTY,
  REFERENCE_SHARED_PATH_BITS,
  referenceCheck,
  referenceEntryDigest,
  referenceKeyHash,
  referenceKeyPath,
  referenceLeafHash,
  referenceRoot,
} from '../../../helpers/index-reference';
import vectors from '../../../vectors/index.json';

const entries = vectors.entries.map((e) => parseIndexEntry(e.entry));
const bytes = (hex: string) => Buffer.from(hex, 'hex');

describe('test/vectors/index.json, recomputed with plain node:crypto (docs/verifiable-index.md, "Vectors")', () => {
  it('tags, empty hash, key paths, entry digests and leaf hashes follow the byte layout', () => {
    expect(vectors.tags).toEqual({
      key: HashDomain.INDEX_KEY,
      entry: HashDomain.INDEX_ENTRY,
      leaf: HashDomain.INDEX_LEAF,
      node: HashDomain.INDEX_NODE,
      empty: HashDomain.INDEX_EMPTY,
    });
    const sha = (...parts: (string | Buffer)[]) => {
      const h = createHash('sha256');
      for (const p of parts) h.update(p);
      return h.digest('hex');
    };
    expect(vectors.emptyHex).toBe(sha('reseal/v1/index-empty\0'));
    expect(vectors.emptyHex).toBe(hexOf(REFERENCE_EMPTY));
    for (const [i, v] of vectors.entries.entries()) {
      const entry = entries[i] as IndexEntry;
      expect(v.keyHashHex).toBe(sha('reseal/v1/index-key\0', v.keyMessage));
      expect(v.keyHashHex).toBe(hexOf(referenceKeyHash(entry)));
      expect(v.keyPathHex).toBe(hexOf(referenceKeyPath(entry)));
      if (entry.kind === 'lineage') expect(v.keyPathHex).toBe(v.keyHashHex);
      expect(v.entryDigestHex).toBe(sha('reseal/v1/index-entry\0', v.entryMessage));
      expect(v.entryDigestHex).toBe(hexOf(referenceEntryDigest(entry)));
      expect(v.leafHashHex).toBe(sha('reseal/v1/index-leaf\0', bytes(v.keyPathHex), bytes(v.entryDigestHex)));
      expect(v.leafHashHex).toBe(hexOf(referenceLeafHash(entry)));
    }
  });

  it("a residual id's path: its lineage's first P bits, then the rest of its own key hash", () => {
    expect(vectors.residualSharedPathBits).toBe(REFERENCE_SHARED_PATH_BITS);
    const P = vectors.residualSharedPathBits;
    const bits = (hex: string) => [...bytes(hex)].map((b) => b.toString(2).padStart(8, '0')).join('');
    const residuals = vectors.entries.filter((v) => v.entry.kind === 'residual');
    expect(residuals.length).toBeGreaterThan(0);
    for (const v of residuals) {
      const lineage = vectors.entries.find(
        (l) => l.entry.kind === 'lineage' && l.entry.lineageId === v.entry.lineageId,
      );
      if (lineage === undefined) throw new Error(`no lineage entry for ${v.entry.lineageId}`);
      expect(bits(v.keyPathHex)).toBe(bits(lineage.keyPathHex).slice(0, P) + bits(v.keyHashHex).slice(P));
      expect(v.keyPathHex).not.toBe(v.keyHashHex);
    }
  });

  it('the root is the recursive definition over the entries, and every proof checks against it', () => {
    expect(vectors.rootHex).toBe(hexOf(referenceRoot(entries)));
    const root = bytes(vectors.rootHex);
    const kinds = new Set<number>();
    for (const p of vectors.proofs) {
      const proof = bytes(p.proofHex);
      kinds.add(proof[1] as number);
      expect(referenceCheck(root, p.key, p.entry === null ? null : parseIndexEntry(p.entry), proof), p.note).toBe(true);
    }
    expect([...kinds].sort()).toEqual([0, 1, 2]);
  });

  it('the update step gives the reference root of the map it leaves', () => {
    const [forward, fresh] = parseIndexUpdates(vectors.update.updates);
    const after = entries.map((e) =>
      e.kind === 'lineage' && forward?.kind === 'lineage' && e.lineageId === forward.lineageId
        ? { kind: 'lineage' as const, lineageId: e.lineageId, value: forward.value }
        : e,
    );
    expect(vectors.update.rootHex).toBe(hexOf(referenceRoot([...after, fresh as IndexEntry])));
    expect(vectors.update.findings).toEqual(['RESIDUAL_CHANGED']);
  });
});

describe('test/vectors/index.json, reproduced by shared/index', () => {
  it('keys, entries, leaves, the root and every proof, binary and JSON, are what the code makes', async () => {
    for (const [i, v] of vectors.entries.entries()) {
      const entry = entries[i] as IndexEntry;
      const path = indexKeyPath(entryKey(entry));
      expect(hexOf(path)).toBe(v.keyPathHex);
      expect(hexOf(entryDigest(entry))).toBe(v.entryDigestHex);
      expect(hexOf(indexLeafHash(path, entryDigest(entry)))).toBe(v.leafHashHex);
    }
    expect(hexOf(emptyIndexHash())).toBe(vectors.emptyHex);
    const store = new MemoryIndexNodeStore();
    const { root } = await applyIndexUpdates(store, emptyIndexHash(), updatesFor(entries));
    expect(hexOf(root)).toBe(vectors.rootHex);
    for (const p of vectors.proofs) {
      const key = parseIndexKey(p.key);
      const proven = await proveIndexKey(store, root, key);
      expect(hexOf(encodeIndexProof(proven.proof)), p.note).toBe(p.proofHex);
      expect(encodeIndexProof(indexProofFromJson(p.proofJson))).toEqual(
        encodeIndexProof(decodeIndexProof(bytes(p.proofHex))),
      );
      const finding =
        p.entry === null
          ? checkIndexAbsence(root, key, bytes(p.proofHex))
          : checkIndexPresence(root, parseIndexEntry(p.entry), bytes(p.proofHex));
      expect(finding, p.note).toBeNull();
    }
    const after = await applyIndexUpdates(store, root, parseIndexUpdates(vectors.update.updates));
    expect(hexOf(after.root)).toBe(vectors.update.rootHex);
    expect(after.findings.map((f) => f.kind)).toEqual(vectors.update.findings);
    expect(after.nodesWritten).toBe(vectors.update.nodesWritten);
  });
});

/**
 * The hostile proofs python/tests/test_index.py builds the same way from the same vector proofs:
 * a decoded proof meets the rules of the binary and JSON forms, so no form holds what another refuses.
 */
describe('test/vectors/index.json: a proof passed decoded meets the rules of its encoded forms', () => {
  const root = bytes(vectors.rootHex);
  const presence = vectors.proofs[0] as (typeof vectors.proofs)[number];
  const atLeaf = vectors.proofs.find((p) => p.proofJson.leaf !== null) as (typeof vectors.proofs)[number];
  const entry = parseIndexEntry(presence.entry);
  const good = decodeIndexProof(bytes(presence.proofHex));
  const leafProof = decodeIndexProof(bytes(atLeaf.proofHex));
  const firstEmpty = good.siblings.indexOf(null);
  const withSibling = (i: number, s: Uint8Array | null) => good.siblings.map((x, j) => (j === i ? s : x));
  const hostile: [string, unknown, 'presence' | 'absence'][] = [
    [
      'an empty sibling spelled as the empty hash',
      { ...good, siblings: withSibling(firstEmpty, emptyIndexHash()) },
      'presence',
    ],
    [
      'a proof 300 deep',
      { ...good, siblings: [...good.siblings, ...Array(300 - good.siblings.length).fill(null)] },
      'presence',
    ],
    [
      'a proof 257 deep',
      { ...good, siblings: [...good.siblings, ...Array(257 - good.siblings.length).fill(null)] },
      'presence',
    ],
    [
      'a sibling of 31 bytes',
      { ...good, siblings: withSibling(1, (good.siblings[1] as Uint8Array).slice(1)) },
      'presence',
    ],
    ['a presence carrying another leaf', { ...good, leaf: leafProof.leaf }, 'presence'],
    ['an unknown kind', { ...good, kind: 'both' }, 'presence'],
    [
      'an other leaf with a 31-byte key path',
      { ...leafProof, leaf: { ...leafProof.leaf, keyPath: new Uint8Array(31) } },
      'absence',
    ],
  ];

  it('the unaltered proofs hold decoded, as in bytes and JSON', () => {
    expect(firstEmpty).toBeGreaterThanOrEqual(0);
    expect(checkIndexPresence(root, entry, good)).toBeNull();
    expect(checkIndexAbsence(root, parseIndexKey(atLeaf.key), leafProof)).toBeNull();
  });

  it.each(hostile)('%s is MALFORMED, as its encoding would be refused', (_what, proof, kind) => {
    const finding =
      kind === 'presence'
        ? checkIndexPresence(root, entry, proof as IndexProof)
        : checkIndexAbsence(root, parseIndexKey(atLeaf.key), proof as IndexProof);
    expect(finding?.code).toBe('MALFORMED');
    expect(() => encodeIndexProof(proof as IndexProof)).toThrow(IndexProofFormatError);
  });

  it('a hole in the siblings array is refused, not read as an empty sibling', () => {
    const holed: (Uint8Array | null)[] = good.siblings.slice();
    delete holed[firstEmpty];
    expect(checkIndexPresence(root, entry, { ...good, siblings: holed })?.code).toBe('MALFORMED');
  });
});
