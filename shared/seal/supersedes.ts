import type { z } from 'zod';
import { hasExactKeys } from '../schemas/has-exact-keys';
import { isHexDigest } from '../schemas/is-hex-digest';
import { isNonNegativeInt } from '../schemas/is-non-negative-int';
import { isPlainObject } from '../schemas/is-plain-record';
import { RecordRefSchema } from '../schemas/record-ref';
import { WireFields } from '../schemas/wire-fields';

/** Reference to an earlier record of the same lineage that a re-seal supersedes (docs/triage.md, "The report": the re-seal). */
export const SupersedesSchema = RecordRefSchema;
/** Type of {@link SupersedesSchema}. */
export type Supersedes = z.infer<typeof SupersedesSchema>;

/** Whether `SupersedesSchema.optional()` accepts `value` (absent, `undefined`, or `{ seq, recordHash }`). */
export function isOptionalSupersedes(value: unknown): boolean {
  if (value === undefined) return true;
  return (
    isPlainObject(value) &&
    hasExactKeys(value, WireFields.recordRef.required) &&
    isNonNegativeInt(value.seq) &&
    isHexDigest(value.recordHash)
  );
}
