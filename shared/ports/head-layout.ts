/**
 * Which attributes the sealer writes on a lineage's head item (docs/sealing.md, "The head item"
 * and "Migration"): the deploy an operator is at while moving to the small head.
 *
 * - `compatible` (the migration's deploy 2): the head-state MAC, and still the tip record's
 *   header copy, `mac`, `keyId` and `residualId` and the frontier as JSON hex, so that a sealer of
 *   the previous version still running during the deploy authenticates a head the new one wrote
 *   (2 + 2 + 1 = 5 WCU a sparse write).
 * - `small` (deploy 3, the default): `seq`, `recordHash`, `generationEpoch`, the head's MAC
 *   (`headKeyMac` and `headDataKey`, or `headMac`), the frontier binary (32 bytes a hash) and the
 *   policy; about 0.5 to 0.8 KB, one WCU (4 WCU a sparse write).
 */
export const HeadLayout = { COMPATIBLE: 'compatible', SMALL: 'small' } as const;
/** One of {@link HeadLayout}. */
export type HeadLayout = (typeof HeadLayout)[keyof typeof HeadLayout];

/** The layout a new sealer writes unless configured otherwise. */
export const DEFAULT_HEAD_LAYOUT: HeadLayout = HeadLayout.SMALL;

/**
 * The head layout a setting names (the sealer's `HEAD_LAYOUT` environment variable); absent or
 * empty: {@link DEFAULT_HEAD_LAYOUT}.
 * @throws {Error} when the setting names no layout (a deploy mistake: the sealer must not start)
 */
export function headLayoutOf(setting: string | undefined): HeadLayout {
  if (setting === undefined || setting === '') return DEFAULT_HEAD_LAYOUT;
  if (setting === HeadLayout.COMPATIBLE || setting === HeadLayout.SMALL) return setting;
  throw new Error(`HEAD_LAYOUT must be "${HeadLayout.COMPATIBLE}" or "${HeadLayout.SMALL}", not "${setting}"`);
}
