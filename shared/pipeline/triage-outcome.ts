/** Outcome of a recall: triaged, or refused before triage (docs/pipeline.md, "Message shapes": `TriageCompleted`). */
export const TriageOutcome = { TRIAGED: 'TRIAGED', REFUSED: 'REFUSED' } as const;
/** One of {@link TriageOutcome}. */
export type TriageOutcome = (typeof TriageOutcome)[keyof typeof TriageOutcome];
