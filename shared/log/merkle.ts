import { createHash } from 'node:crypto';
import { InvalidInputError } from '../errors';

/**
 * The Merkle tree of a lineage's log, RFC 9162 §2.1 (the RFC 6962 tree): SHA-256, leaf hash
 * `SHA-256(0x00 || leaf)`, interior node `SHA-256(0x01 || left || right)`, and the left subtree
 * of every split holding the largest power of two of leaves below the range size.
 *
 * Sizes and indices are plain numbers up to 2^53 − 1 (`Number.MAX_SAFE_INTEGER`): the code halves
 * and doubles with `/` and `*` instead of 32-bit bitwise operators, which would wrap above 2^31.
 * Proof generators throw {@link InvalidInputError} on invalid arguments; verifiers never throw and
 * answer `false` instead, also for hashes that are not 32 bytes.
 */

/** Length in bytes of every hash in the tree (SHA-256). */
export const HASH_BYTES = 32;

const LEAF_PREFIX = Uint8Array.of(0x00);
const NODE_PREFIX = Uint8Array.of(0x01);

function sha256(...parts: Uint8Array[]): Uint8Array {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return Uint8Array.from(hash.digest());
}

/** Private copy, so a caller that mutates the exported constant cannot change what verifiers accept. */
const EMPTY = sha256();

/**
 * `MTH({})`, the root of the empty tree: SHA-256 of the empty string,
 * `e3b0c442…7852b855`. A fresh copy is returned wherever a function yields it.
 */
export const EMPTY_ROOT: Uint8Array = EMPTY.slice();

/** Leaf hash, RFC 9162 §2.1.1: `SHA-256(0x00 || leaf)`. Any leaf length (Reseal's leaves are 32 bytes). */
export function leafHash(leaf: Uint8Array): Uint8Array {
  return sha256(LEAF_PREFIX, leaf);
}

/** Interior node hash, RFC 9162 §2.1.1: `SHA-256(0x01 || left || right)`. */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(NODE_PREFIX, left, right);
}

/**
 * A perfect subtree: the 2^level leaves starting at index * 2^level. Level 0 is a leaf (index =
 * leaf index = record seq); every node of a tree is addressed this way whatever the tree's size,
 * so a stored node never changes once written.
 */
export interface NodeRef {
  readonly level: number;
  readonly index: number;
}

/** A stored node: a NodeRef with its hash. */
export interface TreeNode extends NodeRef {
  readonly hash: Uint8Array;
}

/** Fetches node hashes, in the order of `refs`; rejects when one is missing (e.g. with `MerkleNodeMissingError`). */
export type NodeSource = (refs: readonly NodeRef[]) => Promise<Uint8Array[]>;

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
const isHash = (h: unknown): h is Uint8Array => h instanceof Uint8Array && h.byteLength === HASH_BYTES;
const half = (n: number): number => Math.floor(n / 2);
const isOdd = (n: number): boolean => n % 2 === 1;

function requireCount(what: string, path: string, n: unknown): asserts n is number {
  if (!isCount(n)) {
    throw new InvalidInputError(what, [{ path, message: `expected a safe non-negative integer, got ${String(n)}` }]);
  }
}

function requireHashes(what: string, hashes: unknown): asserts hashes is readonly Uint8Array[] {
  if (!Array.isArray(hashes)) throw new InvalidInputError(what, [{ path: '', message: 'expected an array of hashes' }]);
  hashes.forEach((hash, i) => {
    if (!isHash(hash))
      throw new InvalidInputError(what, [{ path: String(i), message: `expected ${HASH_BYTES} bytes` }]);
  });
}

/** Largest power of two strictly below `n` (n ≥ 2): the split point k of RFC 9162 §2.1.1. */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** Smallest power of two ≥ `n` (1 for n ≤ 1). */
function ceilPowerOfTwo(n: number): number {
  let k = 1;
  while (k < n) k *= 2;
  return k;
}

/** Number of ones in the binary form of `n` = the length of the frontier of a tree of `n` leaves. */
function popCount(n: number): number {
  let count = 0;
  for (let rest = n; rest > 0; rest = half(rest)) if (isOdd(rest)) count += 1;
  return count;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let diff = 0;
  for (let i = 0; i < a.byteLength; i += 1) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

/**
 * Decomposition of the leaf range [start, end) as it occurs in MTH (start aligned) into maximal
 * aligned perfect subtrees, left to right: one per one-bit of `end - start`, largest first. The
 * MTH of the range is then {@link rangeRoot} of their hashes, so proofs can be answered from
 * stored perfect subtrees alone.
 *
 * @returns `[]` for an empty range
 * @throws {InvalidInputError} unless 0 ≤ start ≤ end ≤ 2^53 − 1 and `start` is a multiple of the
 *   smallest power of two ≥ `end - start` (the ranges MTH recursion produces)
 */
export function subtreeRefs(start: number, end: number): NodeRef[] {
  requireCount('Merkle range', 'start', start);
  requireCount('Merkle range', 'end', end);
  if (start > end)
    throw new InvalidInputError('Merkle range', [{ path: 'end', message: `end ${end} < start ${start}` }]);
  const size = end - start;
  if (size === 0) return [];
  const align = ceilPowerOfTwo(size);
  if (start % align !== 0) {
    throw new InvalidInputError('Merkle range', [
      { path: 'start', message: `start ${start} of a range of ${size} leaves is not a multiple of ${align}` },
    ]);
  }
  let level = 0;
  let width = 1;
  while (width * 2 <= size) {
    width *= 2;
    level += 1;
  }
  const refs: NodeRef[] = [];
  let position = start;
  for (let remaining = size; remaining > 0; width /= 2, level -= 1) {
    if (width <= remaining) {
      refs.push({ level, index: position / width });
      position += width;
      remaining -= width;
    }
  }
  return refs;
}

/**
 * MTH of a range from the hashes of its {@link subtreeRefs}, left to right: folded from the right,
 * `H(h0, H(h1, … H(h_{n-2}, h_{n-1})))`, which is how RFC 9162 §2.1.1 splits an unbalanced range.
 *
 * @returns {@link EMPTY_ROOT} (a copy) for `[]`
 * @throws {InvalidInputError} when an element is not 32 bytes
 */
export function rangeRoot(hashes: readonly Uint8Array[]): Uint8Array {
  requireHashes('Merkle range hashes', hashes);
  const last = hashes.at(-1);
  if (last === undefined) return EMPTY.slice();
  let root = last;
  for (let i = hashes.length - 2; i >= 0; i -= 1) root = nodeHash(hashes[i] as Uint8Array, root);
  return root === last ? last.slice() : root;
}

/**
 * For each element of the RFC 9162 §2.1.3.1 inclusion proof `PATH(index, D[size])`, in proof
 * order (leaf side first), the NodeRefs whose {@link rangeRoot} is that element. Left siblings
 * are single perfect subtrees; at most one right sibling (on the tree's ragged right edge) needs
 * several, so the total is O(log size).
 *
 * @throws {InvalidInputError} unless 0 ≤ index < size ≤ 2^53 − 1
 */
export function inclusionProofRefs(index: number, size: number): NodeRef[][] {
  requireCount('inclusion proof request', 'index', index);
  requireCount('inclusion proof request', 'size', size);
  if (index >= size) {
    throw new InvalidInputError('inclusion proof request', [
      { path: 'index', message: `leaf index ${index} is not below tree size ${size}` },
    ]);
  }
  const topDown: NodeRef[][] = [];
  let lo = 0;
  let hi = size;
  while (hi - lo > 1) {
    const k = splitPoint(hi - lo);
    if (index < lo + k) {
      topDown.push(subtreeRefs(lo + k, hi));
      hi = lo + k;
    } else {
      topDown.push(subtreeRefs(lo, lo + k));
      lo += k;
    }
  }
  return topDown.reverse();
}

/**
 * The same for the RFC 9162 §2.1.4.1 consistency proof `PROOF(size1, D[size2])`. Empty when
 * size1 is 0 or equals size2 (nothing to prove; see {@link verifyConsistency}).
 *
 * @throws {InvalidInputError} unless 0 ≤ size1 ≤ size2 ≤ 2^53 − 1
 */
export function consistencyProofRefs(size1: number, size2: number): NodeRef[][] {
  requireCount('consistency proof request', 'size1', size1);
  requireCount('consistency proof request', 'size2', size2);
  if (size1 > size2) {
    throw new InvalidInputError('consistency proof request', [
      { path: 'size1', message: `size1 ${size1} is larger than size2 ${size2}` },
    ]);
  }
  if (size1 === 0 || size1 === size2) return [];
  const topDown: NodeRef[][] = [];
  let lo = 0;
  let hi = size2;
  // SUBPROOF's flag b: the old root is a node of the new tree only while the walk stays left.
  let oldRootIsNode = true;
  while (size1 !== hi) {
    const k = splitPoint(hi - lo);
    if (size1 <= lo + k) {
      topDown.push(subtreeRefs(lo + k, hi));
      hi = lo + k;
    } else {
      topDown.push(subtreeRefs(lo, lo + k));
      lo += k;
      oldRootIsNode = false;
    }
  }
  if (!oldRootIsNode) topDown.push(subtreeRefs(lo, hi));
  return topDown.reverse();
}

const refKey = (ref: NodeRef): string => `${ref.level}/${ref.index}`;

async function resolveGroups(groups: readonly NodeRef[][], nodes: NodeSource): Promise<Uint8Array[]> {
  const unique: NodeRef[] = [];
  const position = new Map<string, number>();
  for (const ref of groups.flat()) {
    if (!position.has(refKey(ref))) {
      position.set(refKey(ref), unique.length);
      unique.push(ref);
    }
  }
  if (unique.length === 0) return [];
  const hashes = await nodes(unique);
  if (!Array.isArray(hashes) || hashes.length !== unique.length) {
    throw new InvalidInputError('node source answer', [
      {
        path: '',
        message: `expected ${unique.length} hashes, got ${Array.isArray(hashes) ? hashes.length : 'no array'}`,
      },
    ]);
  }
  requireHashes('node source answer', hashes);
  return groups.map((group) =>
    rangeRoot(group.map((ref) => hashes[position.get(refKey(ref)) as number] as Uint8Array)),
  );
}

/**
 * The RFC 9162 §2.1.3.1 inclusion proof of leaf `index` in the tree of `size` leaves, from
 * stored nodes: one `nodes` call with every needed ref (none when the proof is empty).
 *
 * @throws {InvalidInputError} for invalid arguments or a malformed `nodes` answer; rejects with
 *   whatever `nodes` rejects with
 */
export async function proveInclusion(index: number, size: number, nodes: NodeSource): Promise<Uint8Array[]> {
  return resolveGroups(inclusionProofRefs(index, size), nodes);
}

/**
 * The RFC 9162 §2.1.4.1 consistency proof between sizes size1 ≤ size2, from stored nodes: one
 * `nodes` call (none when the proof is empty).
 *
 * @throws {InvalidInputError} for invalid arguments or a malformed `nodes` answer; rejects with
 *   whatever `nodes` rejects with
 */
export async function proveConsistency(size1: number, size2: number, nodes: NodeSource): Promise<Uint8Array[]> {
  return resolveGroups(consistencyProofRefs(size1, size2), nodes);
}

/** Arguments of {@link verifyInclusion}. */
export interface InclusionCheck {
  readonly leafIndex: number;
  readonly treeSize: number;
  /** The leaf's {@link leafHash}, not the leaf itself. */
  readonly leafHash: Uint8Array;
  readonly proof: readonly Uint8Array[];
  readonly rootHash: Uint8Array;
}

/**
 * Whether `proof` proves that `leafHash` is leaf `leafIndex` of the tree of `treeSize` leaves
 * with root `rootHash`: the algorithm of RFC 9162 §2.1.3.2, which also refuses proofs that are
 * too long or too short for the position.
 *
 * Never throws on bad proofs: false, also for an index not below the size, a size or index that
 * is not a safe non-negative integer, or a hash that is not 32 bytes.
 */
export function verifyInclusion(args: InclusionCheck): boolean {
  if (typeof args !== 'object' || args === null) return false;
  const { leafIndex, treeSize, leafHash: hash, proof, rootHash } = args;
  if (!isCount(leafIndex) || !isCount(treeSize) || leafIndex >= treeSize) return false;
  if (!isHash(hash) || !isHash(rootHash) || !Array.isArray(proof) || !proof.every(isHash)) return false;
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r = hash;
  for (const p of proof) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      r = nodeHash(p, r);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && bytesEqual(r, rootHash);
}

/** Arguments of {@link verifyConsistency}. */
export interface ConsistencyCheck {
  readonly size1: number;
  readonly size2: number;
  readonly root1: Uint8Array;
  readonly root2: Uint8Array;
  readonly proof: readonly Uint8Array[];
}

/**
 * Whether `proof` proves that the tree of `size1` leaves with root `root1` is a prefix of the tree
 * of `size2` leaves with root `root2`: RFC 9162 §2.1.4.2 for 0 < size1 < size2 (a non-empty
 * proof). The cases the RFC leaves out:
 * - size1 === size2: only the empty proof, and root1 must equal root2;
 * - size1 === 0: only the empty proof, and root1 must be {@link EMPTY_ROOT} (the one root a tree
 *   of no leaves has); every tree extends the empty one.
 *
 * Never throws on bad proofs: false, also for size1 > size2, sizes that are not safe
 * non-negative integers, or hashes that are not 32 bytes.
 */
export function verifyConsistency(args: ConsistencyCheck): boolean {
  if (typeof args !== 'object' || args === null) return false;
  const { size1, size2, root1, root2, proof } = args;
  if (!isCount(size1) || !isCount(size2) || size1 > size2) return false;
  if (!isHash(root1) || !isHash(root2) || !Array.isArray(proof) || !proof.every(isHash)) return false;
  if (size1 === 0) return proof.length === 0 && bytesEqual(root1, EMPTY) && (size2 > 0 || bytesEqual(root2, EMPTY));
  if (size1 === size2) return proof.length === 0 && bytesEqual(root1, root2);
  if (proof.length === 0) return false;
  const path = ceilPowerOfTwo(size1) === size1 ? [root1, ...proof] : proof;
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0] as Uint8Array;
  let sr = fr;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && bytesEqual(fr, root1) && bytesEqual(sr, root2);
}

/** Result of {@link appendLeaf}. */
export interface AppendResult {
  /** Frontier of the tree with one more leaf. */
  frontier: Uint8Array[];
  /** Nodes that became complete: the leaf (level 0, index = old size), then each merged parent upward. */
  completed: TreeNode[];
}

/**
 * Appends one leaf hash to a tree given by its compact range ("frontier"): the hashes of
 * `subtreeRefs(0, size)`, left to right, one per one-bit of `size`. Returns the new frontier and
 * every node that became complete, so a store can persist them: O(log n) per append, amortized 2
 * nodes. The nodes ever completed are exactly the perfect subtrees that proofs need, so a store
 * that persists them can answer every {@link proveInclusion} and {@link proveConsistency}.
 *
 * @throws {InvalidInputError} when `size` is not a safe integer below 2^53 − 1, the frontier does
 *   not have one 32-byte hash per one-bit of `size`, or `leafHash` is not 32 bytes
 */
export function appendLeaf(frontier: readonly Uint8Array[], size: number, leafHash: Uint8Array): AppendResult {
  requireCount('Merkle append', 'size', size);
  if (size >= Number.MAX_SAFE_INTEGER) {
    throw new InvalidInputError('Merkle append', [{ path: 'size', message: 'the tree holds 2^53 − 1 leaves already' }]);
  }
  if (!isHash(leafHash)) {
    throw new InvalidInputError('Merkle append', [{ path: 'leafHash', message: `expected ${HASH_BYTES} bytes` }]);
  }
  requireHashes('Merkle frontier', frontier);
  if (frontier.length !== popCount(size)) {
    throw new InvalidInputError('Merkle frontier', [
      { path: '', message: `a tree of ${size} leaves has ${popCount(size)} frontier hashes, got ${frontier.length}` },
    ]);
  }
  const next = frontier.slice();
  let hash: Uint8Array = Uint8Array.from(leafHash);
  let level = 0;
  let index = size;
  const completed: TreeNode[] = [{ level, index, hash }];
  for (let rest = size; isOdd(rest); rest = half(rest)) {
    hash = nodeHash(next.pop() as Uint8Array, hash);
    level += 1;
    index = half(index);
    completed.push({ level, index, hash });
  }
  next.push(hash);
  return { frontier: next, completed };
}

/** Root of the tree whose frontier this is, `rangeRoot(frontier)`: {@link EMPTY_ROOT} (a copy) for `[]`. */
export function frontierRoot(frontier: readonly Uint8Array[]): Uint8Array {
  return rangeRoot(frontier);
}
