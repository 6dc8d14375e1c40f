import type { WitnessState } from '../witness/witness-state';

/**
 * Where a witness keeps the last checkpoint it cosigned per origin (docs/witness.md, "State").
 * Adapter: `DynamoDBWitnessStore` (adapters/), over the witness's own table; tests use an
 * in-memory map.
 */
export interface WitnessStore {
  /** The state stored for `origin`, or `null` when the witness never cosigned for it. */
  read(origin: string): Promise<WitnessState | null>;
  /**
   * Saves `next` if, and only if, the state stored for its origin is still `expected` (`null`:
   * none): the check and the write are one atomic step (C2SP tlog-witness), so of two requests
   * decided on the same state at most one is saved.
   * @returns `false` when the stored state changed meanwhile (nothing was written)
   */
  replace(expected: WitnessState | null, next: WitnessState): Promise<boolean>;
}
