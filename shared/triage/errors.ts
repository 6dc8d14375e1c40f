import { InvalidInputError } from '../errors';

/**
 * A manifest whose `preconditionSeal` is not the composite seal of its own `baselineKeyHashes`:
 * the manifest is corrupt (or was edited after sealing), so no key-level diff against it can be
 * trusted and triage refuses it instead of returning a verdict.
 *
 * Extends {@link InvalidInputError} (one issue at path `preconditionSeal`), so callers that
 * already treat malformed input as "cannot evaluate" handle it without a new branch.
 */
export class ManifestSealMismatchError extends InvalidInputError {
  /** The seal the manifest carries. */
  readonly recordedSeal: string;
  /** The composite seal recomputed from the manifest's `baselineKeyHashes`. */
  readonly recomputedSeal: string;
  constructor(recordedSeal: string, recomputedSeal: string, options?: ErrorOptions) {
    super(
      'sealed dependency manifest',
      [
        {
          path: 'preconditionSeal',
          message: `preconditionSeal ${recordedSeal} is not the composite seal of baselineKeyHashes (${recomputedSeal}); the manifest is corrupt`,
        },
      ],
      options,
    );
    this.name = 'ManifestSealMismatchError';
    this.recordedSeal = recordedSeal;
    this.recomputedSeal = recomputedSeal;
  }
}
