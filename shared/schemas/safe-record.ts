import { z } from 'zod';
import { MapKey } from './map-key';
import { NormalFormIndex } from './normal-form';

/**
 * Reserved map key, refused in every map: JavaScript object semantics make it impossible to carry
 * losslessly through common libraries, and no real environment key or claim id is spelled that
 * way (docs/canonical-form.md, "Hostile-string policy").
 */
export const RESERVED_KEY = '__proto__';

/**
 * A JSON object used as a map, with the hostile-key policy enforced (docs/canonical-form.md,
 * "Hostile-string policy"): `__proto__` refused ({@link RESERVED_KEY}), keys that are equal after
 * NFC normalization but spelled differently (e.g. NFC `é` and NFD `e\u0301`) refused as ambiguous
 * (shared/schemas/normal-form.ts), each key a {@link MapKey}. Output is a plain object.
 */
export function safeRecord<V extends z.ZodType>(value: V) {
  return z.preprocess(
    (raw, ctx) => {
      if (raw !== null && typeof raw === 'object' && Object.hasOwn(raw, RESERVED_KEY)) {
        ctx.addIssue({ code: 'custom', message: `key "${RESERVED_KEY}" is reserved and refused`, input: raw });
        return z.NEVER;
      }
      if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
        const seen = new NormalFormIndex<string>();
        for (const key of Object.keys(raw)) {
          const other = seen.claim(key, key);
          if (other !== undefined) {
            ctx.addIssue({
              code: 'custom',
              message: `keys ${JSON.stringify(other)} and ${JSON.stringify(key)} are the same text in different Unicode normal forms`,
              input: raw,
            });
            return z.NEVER;
          }
        }
      }
      return raw;
    },
    z.record(MapKey, value),
  );
}
