/** What became of one claim at one recall (or supersession): the heatmap's three states (docs/cli.md, "reseal report"). */
export const ClaimState = {
  /** Triage kept the claim: none of its causal keys drifted. */
  RETAINED: 'retained',
  /** The claim was invalidated and not stated again (its keys are gone, or it was not re-probed). */
  INVALIDATED: 'invalidated',
  /** The claim was invalidated, re-probed and sealed again in the superseding record. */
  REPROBED: 're-probed',
} as const;

/** One of {@link ClaimState}. */
export type ClaimState = (typeof ClaimState)[keyof typeof ClaimState];
