/** Metric names (namespace `Reseal`), one count per event. See docs/pipeline.md. */
export const MetricName = {
  /** guard: a write passed the stale-state guard and was forwarded to seal-requests. */
  WriteAccepted: 'WriteAccepted',
  /** guard or sealer: a write was refused (dimension `reason`). */
  WriteRejected: 'WriteRejected',
  /** sealer: a record was appended. */
  RecordSealed: 'RecordSealed',
  /** sealer: a redelivered residual id found its record already sealed. */
  SealDuplicate: 'SealDuplicate',
  /** sealer: the head moved under an append; re-read and re-sealed. */
  SealRetry: 'SealRetry',
  /** sealer: a write could not be appended; a conflict record was written (dimension `reason`). */
  SealConflict: 'SealConflict',
  /** triage: a recall finished (dimensions `outcome`, `verification`, `verdict`). */
  TriageVerdict: 'TriageVerdict',
  /** triage: a RecallRequested event was not valid and was dropped after logging. */
  RecallInvalid: 'RecallInvalid',
  /** integrator: one integration signed a new deployment checkpoint (dimension `published`). */
  Integrated: 'Integrated',
  /** integrator: a lineage was left out with evidence (dimension `kind`, docs/deployment-log.md "Evidence"). */
  IntegrationEvidence: 'IntegrationEvidence',
  /**
   * integrator: one try at the integration lease (dimension `outcome`: `TAKEN`, `HELD`,
   * `OVERRIDDEN`: held too long, integrated without it; docs/deployment-log.md "One integration at a time").
   */
  IntegrationLease: 'IntegrationLease',
  /**
   * sealer: a run was refused against the deployment index (dimension `kind`: the finding, or
   * `INDEX_UNVERIFIABLE`; docs/sealing.md "The index floor").
   */
  SealBehindIndex: 'SealBehindIndex',
  /**
   * sealer: the index floor came from a deployment checkpoint that does not meet the witness
   * policy now (dimension `refusal`, e.g. `QUORUM_STALE`), or from a state remembered because the
   * table showed an older one (`ROLLED_BACK`).
   */
  IndexFloorUnfresh: 'IndexFloorUnfresh',
  /**
   * integrator: one heartbeat (dimension `outcome`: `PUBLISHED`, `NOT_PUBLISHED`, `FRESH`,
   * `EMPTY_LOG`, `NO_WITNESS`; docs/deployment-log.md "Freshness window and interval").
   */
  Heartbeat: 'Heartbeat',
} as const;
/** One of {@link MetricName}. */
export type MetricName = (typeof MetricName)[keyof typeof MetricName];
