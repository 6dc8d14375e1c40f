import { z } from 'zod';

/**
 * The input the stack's EventBridge Scheduler schedule sends to the integrator function
 * (docs/deployment-log.md, "Freshness window and interval"). It is only a trigger: it carries no
 * claim, so whoever may invoke the function can at most make the witness cosign the head again.
 */
export const HEARTBEAT_EVENT = { reseal: 'heartbeat' } as const;

const HeartbeatEventSchema = z.object({ reseal: z.literal('heartbeat') }).strict();

/** Whether a Lambda event is the scheduled heartbeat (and not an SQS batch of sealed-run notices). */
export function isHeartbeatEvent(event: unknown): boolean {
  return HeartbeatEventSchema.safeParse(event).success;
}
