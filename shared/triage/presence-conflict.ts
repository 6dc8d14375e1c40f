import { NormalFormIndex } from '../schemas/normal-form';
import { RESERVED_KEY } from '../schemas/safe-record';

/** Present keys by their NFC form, to refuse a declared-absent key that is present in another spelling. */
export function presenceIndex(keys: readonly string[]): NormalFormIndex<string> {
  const index = new NormalFormIndex<string>();
  for (const key of keys) index.set(key, key);
  return index;
}

/**
 * Why `key` cannot be declared absent given the keys present in `where`, or `null`: it is
 * present, its other Unicode normal form is (a writer and a reader could then disagree on whether
 * it appeared), or it is `__proto__`, which no environment may hold.
 */
export function presenceConflict(key: string, present: NormalFormIndex<string>, where: string): string | null {
  if (key === RESERVED_KEY) return 'is reserved and refused (no environment may hold it)';
  const match = present.find(key);
  if (match === undefined) return null;
  return match === key
    ? `is declared absent but is in ${where}`
    : `is declared absent but ${where} holds ${JSON.stringify(match)}, the same text in another Unicode normal form`;
}
