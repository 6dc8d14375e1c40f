import { ResealError } from '../errors';
import { entryDigest, entryKey, type IndexEntry } from './index-entry';
import { emptyIndexHash, INDEX_HASH_BYTES, indexLeafHash, indexNodeHash } from './index-hash';
import { type IndexKey, indexKeyPath, keyPathBit } from './index-key';
import { assertIndexProofWellFormed, decodeIndexProof, type IndexProof } from './index-proof';

/** Why a proof about a key does not hold (docs/verifiable-index.md, "Verifying a proof"). */
export const IndexProofFindingCode = {
  /** The proof breaks the rules of its binary layout or JSON form, whichever form it came in (or the root is not 32 bytes). */
  MALFORMED: 'MALFORMED',
  /** A proof of absence offered for presence, or the other way round, or an absence "shown" by the key's own leaf. */
  WRONG_KIND: 'WRONG_KIND',
  /** The other leaf of an absence proof is not on the key's path. */
  NOT_ON_PATH: 'NOT_ON_PATH',
  /** The path does not hash to the index root: the entry, the key or a sibling is not what the root commits to. */
  ROOT_MISMATCH: 'ROOT_MISMATCH',
} as const;
/** One of {@link IndexProofFindingCode}. */
export type IndexProofFindingCode = (typeof IndexProofFindingCode)[keyof typeof IndexProofFindingCode];

/** A proof that does not hold: a code and a reason for people. */
export interface IndexProofFinding {
  readonly kind: 'FINDING';
  readonly code: IndexProofFindingCode;
  readonly reason: string;
}

const finding = (code: IndexProofFindingCode, reason: string): IndexProofFinding => ({ kind: 'FINDING', code, reason });

/**
 * The proof decoded, or the finding that it is malformed. A proof passed already decoded meets the
 * same rules as one read from bytes, so no form holds what another refuses.
 */
function opened(proof: Uint8Array | IndexProof): IndexProof | IndexProofFinding {
  try {
    if (!(proof instanceof Uint8Array)) {
      assertIndexProofWellFormed(proof);
      return proof;
    }
    return decodeIndexProof(proof);
  } catch (error) {
    if (error instanceof ResealError) return finding('MALFORMED', error.message);
    throw error;
  }
}

/** The root a path hashes to, from the node it ends at (depth = siblings.length) up. */
function rootOf(path: Uint8Array, terminal: Uint8Array, siblings: readonly (Uint8Array | null)[]): Uint8Array {
  const empty = emptyIndexHash();
  let h = terminal;
  for (let i = siblings.length - 1; i >= 0; i -= 1) {
    const sibling = siblings[i] ?? empty;
    h = keyPathBit(path, i) === 0 ? indexNodeHash(h, sibling) : indexNodeHash(sibling, h);
  }
  return h;
}

const matches = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;
const badRoot = (root: Uint8Array) => !(root instanceof Uint8Array) || root.byteLength !== INDEX_HASH_BYTES;

/**
 * Checks that `entry` is in the index of `root`: the entry's leaf, folded up with the proof's
 * siblings along its key's path, gives `root` (docs/verifiable-index.md, "Verifying a proof").
 * Needs nothing but the root, which the caller takes from a verified checkpoint. Never throws for a
 * bad proof.
 *
 * @param root - the index root, 32 bytes
 * @param entry - the entry claimed present, key and value (validated: `parseIndexEntry`)
 * @param proof - the binary layout, or a decoded proof
 * @returns `null` when it holds, else the finding
 */
export function checkIndexPresence(
  root: Uint8Array,
  entry: IndexEntry,
  proof: Uint8Array | IndexProof,
): IndexProofFinding | null {
  if (badRoot(root)) return finding('MALFORMED', 'the index root is not 32 bytes');
  const open = opened(proof);
  if ('code' in open) return open;
  if (open.kind !== 'presence') return finding('WRONG_KIND', 'a proof of absence, not of presence');
  const path = indexKeyPath(entryKey(entry));
  const computed = rootOf(path, indexLeafHash(path, entryDigest(entry)), open.siblings);
  return matches(computed, root)
    ? null
    : finding(
        'ROOT_MISMATCH',
        'the entry and its path do not hash to the index root (another value, or not in the index)',
      );
}

/**
 * Checks that `key` has no entry in the index of `root`: its path, from the root, ends at an
 * empty subtree or at another key's leaf, and the path hashes to `root` (docs/verifiable-index.md,
 * "Verifying a proof"). Never throws for a bad proof.
 *
 * @param root - the index root, 32 bytes
 * @param key - the key claimed absent (validated: `parseIndexKey`)
 * @param proof - the binary layout, or a decoded proof
 * @returns `null` when it holds, else the finding
 */
export function checkIndexAbsence(
  root: Uint8Array,
  key: IndexKey,
  proof: Uint8Array | IndexProof,
): IndexProofFinding | null {
  if (badRoot(root)) return finding('MALFORMED', 'the index root is not 32 bytes');
  const open = opened(proof);
  if ('code' in open) return open;
  if (open.kind !== 'absence') return finding('WRONG_KIND', 'a proof of presence, not of absence');
  const path = indexKeyPath(key);
  const depth = open.siblings.length;
  let terminal = emptyIndexHash();
  if (open.leaf) {
    const other = open.leaf.keyPath;
    if (matches(other, path))
      return finding('WRONG_KIND', "the leaf that ends the path is the key's own: it is present");
    for (let i = 0; i < depth; i += 1) {
      if (keyPathBit(other, i) !== keyPathBit(path, i)) {
        return finding('NOT_ON_PATH', `the other leaf leaves the key's path at depth ${i}, above depth ${depth}`);
      }
    }
    terminal = indexLeafHash(other, open.leaf.entryDigest);
  }
  return matches(rootOf(path, terminal, open.siblings), root)
    ? null
    : finding('ROOT_MISMATCH', 'the path does not hash to the index root');
}
