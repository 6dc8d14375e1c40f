/**
 * How long one integration may hold the lease, ms: the integrator function's timeout (60 s), so a
 * holder that is still running never sees its lease stolen, and one that crashed frees it within a
 * minute (docs/deployment-log.md, "One integration at a time").
 */
export const INTEGRATION_LEASE_MS = 60_000;

/**
 * How far two integrators' clocks may disagree, ms: a lease is taken as forged only when its
 * expiry is past `nowMs + INTEGRATION_LEASE_MS + LEASE_CLOCK_SKEW_MS`, so a running lease written
 * by an instance whose clock is ahead is never stolen (two integrations would then both sign).
 */
export const LEASE_CLOCK_SKEW_MS = 5_000;

/**
 * The integration lease (docs/deployment-log.md, "One integration at a time"): at most one
 * integration reads, decides and signs at a time, so a commit is not lost to another integration
 * after its `kms:Sign`. It serializes the stack's own functions only; it is no safety property
 * (a table writer can delete or forge the item: the deployment head's conditional commit and its
 * authentication stay what refuses two histories). Adapters: `DynamoDBIntegrationLease`
 * (adapters/, one item in the lineage table) and an in-memory lease in test/helpers.
 */
export interface IntegrationLease {
  /**
   * Takes the lease for `holder` until `untilMs` (ms since the Unix epoch) with one conditional
   * write: only when no lease is held, the held one lapsed (its expiry ≤ `nowMs`), its expiry is
   * missing or not a number, or it claims an expiry past `nowMs + INTEGRATION_LEASE_MS +
   * LEASE_CLOCK_SKEW_MS` (no integrator writes one; a forged lease).
   * @returns `false` when another holder's lease stands
   */
  take(holder: string, nowMs: number, untilMs: number): Promise<boolean>;
  /** Gives the lease up, only while `holder` still holds it (a lease stolen after it lapsed is left alone). */
  release(holder: string): Promise<void>;
}
