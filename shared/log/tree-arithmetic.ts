/**
 * Index arithmetic of the RFC 9162 §2.1 tree. Sizes and indices are plain numbers up to
 * 2^53 − 1 (`Number.MAX_SAFE_INTEGER`): the code halves and doubles with `/` and `*` instead of
 * 32-bit bitwise operators, which would wrap above 2^31.
 */

/** Whether `n` is a tree size or index: a safe non-negative integer. */
export const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/** `⌊n / 2⌋`, one level up the tree. */
export const half = (n: number): number => Math.floor(n / 2);

/** Whether `n` is odd (a right child when `n` is a node index). */
export const isOdd = (n: number): boolean => n % 2 === 1;

/** Largest power of two strictly below `n` (n ≥ 2): the split point k of RFC 9162 §2.1.1. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** Smallest power of two ≥ `n` (1 for n ≤ 1). */
export function ceilPowerOfTwo(n: number): number {
  let k = 1;
  while (k < n) k *= 2;
  return k;
}

/** Number of ones in the binary form of `n` = the length of the frontier of a tree of `n` leaves. */
export function popCount(n: number): number {
  let count = 0;
  for (let rest = n; rest > 0; rest = half(rest)) if (isOdd(rest)) count += 1;
  return count;
}
