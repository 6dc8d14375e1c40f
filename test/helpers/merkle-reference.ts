import { createHash } from 'node:crypto';

/**
 * A reference RFC 9162 Merkle tree written straight from the RFC's recursive definitions, with
 * its own hashing and BigInt range arithmetic, to check the Merkle code of shared/log/
 * (merkle-hash.ts, subtree-refs.ts, range-root.ts, append-leaf.ts, the proofs, verify-inclusion.ts,
 * verify-consistency.ts) against something that shares none of its code. Slow (O(n) per hash): for tests only.
 */

const sha256 = (...parts: Uint8Array[]): Uint8Array => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return Uint8Array.from(hash.digest());
};

/** RFC 9162 §2.1.1 split: the largest power of two strictly below n (n ≥ 2). */
function k(n: number): number {
  let power = 1;
  while (power * 2 < n) power *= 2;
  return power;
}

/** MTH(D[n]), RFC 9162 §2.1.1. */
export function refRoot(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return sha256(Uint8Array.of(0), leaves[0] as Uint8Array);
  const split = k(leaves.length);
  return sha256(Uint8Array.of(1), refRoot(leaves.slice(0, split)), refRoot(leaves.slice(split)));
}

/** PATH(m, D[n]), RFC 9162 §2.1.3.1. */
export function refPath(m: number, leaves: readonly Uint8Array[]): Uint8Array[] {
  if (leaves.length <= 1) return [];
  const split = k(leaves.length);
  return m < split
    ? [...refPath(m, leaves.slice(0, split)), refRoot(leaves.slice(split))]
    : [...refPath(m - split, leaves.slice(split)), refRoot(leaves.slice(0, split))];
}

/** PROOF(m, D[n]) = SUBPROOF(m, D[n], true), RFC 9162 §2.1.4.1 (0 < m ≤ n). */
export function refProof(m: number, leaves: readonly Uint8Array[], b = true): Uint8Array[] {
  const n = leaves.length;
  if (m === n) return b ? [] : [refRoot(leaves)];
  const split = k(n);
  return m <= split
    ? [...refProof(m, leaves.slice(0, split), b), refRoot(leaves.slice(split))]
    : [...refProof(m - split, leaves.slice(split), false), refRoot(leaves.slice(0, split))];
}

/** A leaf range [start, end) as BigInts. */
type Range = readonly [bigint, bigint];

function bigK(n: bigint): bigint {
  let power = 1n;
  while (power << 1n < n) power <<= 1n;
  return power;
}

/** The ranges whose MTH are the elements of PATH(m, D[lo:hi]), in proof order. */
export function refPathRanges(m: bigint, lo: bigint, hi: bigint): Range[] {
  if (hi - lo <= 1n) return [];
  const split = lo + bigK(hi - lo);
  return m < split ? [...refPathRanges(m, lo, split), [split, hi]] : [...refPathRanges(m, split, hi), [lo, split]];
}

/** The ranges whose MTH are the elements of SUBPROOF(m, D[lo:hi], b), in proof order. */
export function refProofRanges(m: bigint, lo: bigint, hi: bigint, b = true): Range[] {
  if (m === hi) return b ? [] : [[lo, hi]];
  const split = lo + bigK(hi - lo);
  return m <= split
    ? [...refProofRanges(m, lo, split, b), [split, hi]]
    : [...refProofRanges(m, split, hi, false), [lo, split]];
}

/** A range as its perfect subtrees, largest first, by the one-bits of its length (BigInt bit operations). */
export function refRangeRefs([start, end]: Range): { level: number; index: number }[] {
  const refs: { level: number; index: number }[] = [];
  let position = start;
  for (let level = 62; level >= 0; level -= 1) {
    const width = 1n << BigInt(level);
    if (((end - start) & width) !== 0n) {
      refs.push({ level, index: Number(position >> BigInt(level)) });
      position += width;
    }
  }
  return refs;
}
