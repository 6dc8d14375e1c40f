/** How a head item's tree was authenticated (docs/verifiable-log.md, "Appending"). */
export const HeadAuthentication = {
  /** A lineage checkpoint signed with the log key (heads stored before the sealer stopped signing). */
  SIGNED_CHECKPOINT: 'SIGNED_CHECKPOINT',
  /** The sealer's head-state MAC with the records' HMAC key (shared/log/head-state-mac.ts). */
  HEAD_MAC: 'HEAD_MAC',
  /**
   * The sealer's MAC under a notice data key, whose blob opened under the notice context
   * (shared/log/head-key-mac.ts): what the sealer stores now, no KMS MAC call.
   */
  HEAD_KEY_MAC: 'HEAD_KEY_MAC',
  /** The lineage's entry in the deployment index under the authenticated deployment checkpoint. */
  INDEX: 'INDEX',
  /**
   * A sealed-run notice of the integration's batch whose `auth` verified under the notice key,
   * naming exactly this head (the integrator only: docs/deployment-log.md, "Integration", step 2;
   * shared/integrator/notice-vouched-heads.ts).
   */
  NOTICE: 'NOTICE',
} as const;

/** One of {@link HeadAuthentication}. */
export type HeadAuthentication = (typeof HeadAuthentication)[keyof typeof HeadAuthentication];
