/**
 * The pipeline's EventBridge events (docs/pipeline.md, "Message shapes"): each event's `detail`
 * has a strict schema of its own in shared/pipeline/ (unknown fields refused, camelCase JSON).
 */

/** EventBridge `source` of every Reseal event. */
export const EVENT_SOURCE = 'reseal';

/** EventBridge `detail-type` values (docs/pipeline.md). */
export const DetailType = {
  ResidualSealed: 'ResidualSealed',
  ResidualRejected: 'ResidualRejected',
  RecallRequested: 'RecallRequested',
  TriageCompleted: 'TriageCompleted',
} as const;
/** One of {@link DetailType}. */
export type DetailType = (typeof DetailType)[keyof typeof DetailType];
