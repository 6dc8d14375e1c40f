/** Largest power of two strictly below `n` (n ≥ 2): the split point k of RFC 9162 §2.1.1. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
