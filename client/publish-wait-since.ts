import { DEFAULT_MAX_CLOCK_SKEW_SECONDS } from '../shared/guard/policy';

/**
 * The guard's clock skew allowance, ms: a refusal's `atMs` (the SQS `SentTimestamp`) may read up
 * to this much before the client's clock at publish time. {@link publishWaitSince} subtracts it.
 */
export const PUBLISH_CLOCK_SKEW_MS = DEFAULT_MAX_CLOCK_SKEW_SECONDS * 1000;

/** The `sinceMs` for a publish: its time less {@link PUBLISH_CLOCK_SKEW_MS}. */
export function publishWaitSince(published: { readonly publishedAtMs: number }): number {
  return published.publishedAtMs - PUBLISH_CLOCK_SKEW_MS;
}
