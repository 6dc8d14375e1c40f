import { hashesEqual } from '../../shared/log/hashes-equal';
import type { WitnessStore } from '../../shared/ports/witness-store';
import type { WitnessState } from '../../shared/witness/witness-state';

/**
 * A {@link WitnessStore} in a map, with the same compare-and-set as the DynamoDB adapter. `beforeReplace`
 * runs between a service's read and its save, so a test can interleave two requests exactly.
 */
export class InMemoryWitnessStore implements WitnessStore {
  readonly states = new Map<string, WitnessState>();
  beforeReplace: (() => Promise<void>) | null = null;
  replaces = 0;

  async read(origin: string): Promise<WitnessState | null> {
    return this.states.get(origin) ?? null;
  }

  async replace(expected: WitnessState | null, next: WitnessState): Promise<boolean> {
    const hook = this.beforeReplace;
    this.beforeReplace = null;
    if (hook) await hook();
    this.replaces += 1;
    const current = this.states.get(next.origin) ?? null;
    const same =
      current === null || expected === null
        ? current === expected
        : current.size === expected.size && hashesEqual(current.rootHash, expected.rootHash);
    if (!same) return false;
    this.states.set(next.origin, next);
    return true;
  }
}
