import { z } from 'zod';
import { MapKey } from '../schemas/map-key';

/** A list of map keys that must be sorted (UTF-16 code-unit order, as RFC 8785) and unique. */
export const SortedUniqueKeys = z.array(MapKey).superRefine((keys, ctx) => {
  for (let i = 1; i < keys.length; i++) {
    const previous = keys[i - 1] as string;
    const current = keys[i] as string;
    if (!(previous < current)) {
      ctx.addIssue({
        code: 'custom',
        path: [i],
        message:
          previous === current
            ? `duplicate key ${JSON.stringify(current)}`
            : `keys must be sorted: ${JSON.stringify(current)} after ${JSON.stringify(previous)}`,
      });
      return;
    }
  }
});

/** Sorted (UTF-16 code-unit order, the order RFC 8785 uses) and de-duplicated copy. */
export function sortedUnique(keys: readonly string[]): string[] {
  return [...new Set(keys)].sort();
}
