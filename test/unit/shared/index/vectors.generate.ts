/**
 * Writes test/vectors/index.json: run once with
 * `npx tsx test/unit/shared/index/vectors.generate.ts > /tmp/index.json && mv /tmp/index.json test/vectors/index.json`,
 * then review the diff by hand. `vectors.test.ts` checks the code against the file and recomputes
 * it with plain node:crypto, so a change of the index format shows up as a failing test, never as
 * a silently regenerated file.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../../shared/canonical/canonical-json';
import { HashDomain } from '../../../../shared/canonical/hash-domain';
import { applyIndexUpdates } from '../../../../shared/index/apply-index-updates';
import { entryDigest, entryKey, type IndexEntry } from '../../../../shared/index/index-entry';
import { emptyIndexHash, indexLeafHash } from '../../../../shared/index/index-hash';
import { type IndexKey, indexKeyPath, keyObject, RESIDUAL_SHARED_PATH_BITS } from '../../../../shared/index/index-key';
import { encodeIndexProof, indexProofToJson } from '../../../../shared/index/index-proof';
import { MemoryIndexNodeStore } from '../../../../shared/index/memory-index-node-store';
import { proveIndexKey } from '../../../../shared/index/prove-index-key';
import {
  hexOf,
  lineageEntry,
  lineageValue,
  residualEntry,
  residualValue,
  updatesFor,
  updateTo,
} from '../../../helpers/index-factories';

const MAP: IndexEntry[] = [
  lineageEntry('lineage-1', lineageValue(3, 'a')),
  lineageEntry('lineage-2', { ...lineageValue(1, 'b'), writerPolicyDigest: hexOf(new Uint8Array(32).fill(7)) }),
  lineageEntry('lineage-3', lineageValue(7, 'c', 2)),
  residualEntry('lineage-1', 'r-0', residualValue(0, 'a')),
  residualEntry('lineage-1', 'r-1', residualValue(1, 'a')),
  residualEntry('lineage-1', 'r-2', residualValue(2, 'a')),
  residualEntry('lineage-2', 'r-0', residualValue(0, 'b')),
];

const store = new MemoryIndexNodeStore();
const { root } = await applyIndexUpdates(store, emptyIndexHash(), updatesFor(MAP));

async function proofCase(key: IndexKey, note: string) {
  const proven = await proveIndexKey(store, root, key);
  return {
    note,
    key,
    kind: proven.kind,
    entry: proven.kind === 'presence' ? proven.entry : null,
    proofHex: hexOf(encodeIndexProof(proven.proof)),
    proofJson: indexProofToJson(proven.proof),
  };
}

/** The first key `lineage-<n>` whose absence proof ends as `shape` says. */
async function absentKey(shape: 'empty' | 'leaf'): Promise<IndexKey> {
  for (let n = 100; ; n += 1) {
    const key = { kind: 'lineage', lineageId: `lineage-${n}` } as const;
    const proven = await proveIndexKey(store, root, key);
    if (
      proven.kind === 'absence' &&
      (proven.proof.leaf === null) === (shape === 'empty') &&
      proven.proof.siblings.length > 0
    ) {
      return key;
    }
  }
}

const proofs = [
  ...(await Promise.all(MAP.map((e) => proofCase(entryKey(e), 'presence')))),
  await proofCase(await absentKey('empty'), 'absence: the path ends at an empty subtree'),
  await proofCase(await absentKey('leaf'), "absence: the path ends at another key's leaf (leaf shortcut)"),
  await proofCase({ kind: 'residual', lineageId: 'lineage-3', residualId: 'r-0' }, 'absence of a residual id'),
];

const held = MAP[0]?.value as ReturnType<typeof lineageValue>;
const step = [
  updateTo(lineageEntry('lineage-1', lineageValue(5, 'a')), held),
  updateTo(residualEntry('lineage-1', 'r-3', residualValue(3, 'a'))),
  updateTo(residualEntry('lineage-1', 'r-1', residualValue(4, 'a'))),
];
const after = await applyIndexUpdates(store, root, step);

console.log(
  JSON.stringify(
    {
      source:
        'test/unit/shared/index/vectors.generate.ts; recomputed by test/unit/shared/index/vectors.test.ts with plain node:crypto (docs/verifiable-index.md, "Vectors")',
      tags: {
        key: HashDomain.INDEX_KEY,
        entry: HashDomain.INDEX_ENTRY,
        leaf: HashDomain.INDEX_LEAF,
        node: HashDomain.INDEX_NODE,
        empty: HashDomain.INDEX_EMPTY,
      },
      emptyHex: hexOf(emptyIndexHash()),
      residualSharedPathBits: RESIDUAL_SHARED_PATH_BITS,
      entries: MAP.map((entry) => {
        const key = entryKey(entry);
        const path = indexKeyPath(key);
        const digest = entryDigest(entry);
        return {
          entry,
          keyMessage: canonicalJson(keyObject(key)),
          keyHashHex: createHash('sha256')
            .update(`${HashDomain.INDEX_KEY}\0${canonicalJson(keyObject(key))}`)
            .digest('hex'),
          keyPathHex: hexOf(path),
          entryMessage: canonicalJson({ ...keyObject(key), value: entry.value }),
          entryDigestHex: hexOf(digest),
          leafHashHex: hexOf(indexLeafHash(path, digest)),
        };
      }),
      rootHex: hexOf(root),
      proofs,
      update: {
        note: 'applied to the map above in one batch: lineage-1 moves from size 3 to 5, r-3 is new, r-1 would change and is refused',
        updates: step,
        rootHex: hexOf(after.root),
        findings: after.findings.map((f) => f.kind),
        nodesWritten: after.nodesWritten,
      },
    },
    null,
    2,
  ),
);
