import { half } from './half';
import { isOdd } from './is-odd';

/** Number of ones in the binary form of `n` = the length of the frontier of a tree of `n` leaves. */
export function popCount(n: number): number {
  let count = 0;
  for (let rest = n; rest > 0; rest = half(rest)) if (isOdd(rest)) count += 1;
  return count;
}
