/** Smallest power of two ≥ `n` (1 for n ≤ 1), for sizes of the RFC 9162 §2.1 tree. */
export function ceilPowerOfTwo(n: number): number {
  let k = 1;
  while (k < n) k *= 2;
  return k;
}
