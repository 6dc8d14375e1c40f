import { z } from 'zod';

/**
 * A well-formed Unicode string (no lone surrogates), optionally bounded in UTF-16 units: a lone
 * UTF-16 surrogate is refused, since RFC 8785 cannot canonicalize it (docs/canonical-form.md,
 * "Hostile-string policy"). Every string of a Reseal schema is one.
 */
export const wellFormedString = (maxLength = 65_536) =>
  z
    .string()
    .max(maxLength)
    .refine((s) => s.isWellFormed(), { message: 'string holds a lone UTF-16 surrogate' });
