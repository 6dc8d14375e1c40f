import { rangeRoot } from './range-root';

/** Root of the tree whose frontier this is, `rangeRoot(frontier)`: `EMPTY_ROOT` (a copy) for `[]`. */
export function frontierRoot(frontier: readonly Uint8Array[]): Uint8Array {
  return rangeRoot(frontier);
}
