/** Why a write was not sealed (docs/pipeline.md, "Message shapes": `ResidualRejected`). Each value is a permanent outcome: the message is not retried. */
export const RejectionReason = {
  /** The SQS body is not JSON. */
  MALFORMED_JSON: 'MALFORMED_JSON',
  /** The body is JSON but not a valid `ResidualWriteRequest` (or `SealRequest`). */
  SCHEMA_VIOLATION: 'SCHEMA_VIOLATION',
  /** The body is larger than the guard accepts. */
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  /** The stale-state guard refused the write (docs/guard.md). */
  STALE_STATE: 'STALE_STATE',
  /** The sealer could not build a record from an accepted write (e.g. header over 4,096 bytes). */
  SEAL_REFUSED: 'SEAL_REFUSED',
  /** The write's generation epoch is older than the lineage head's (fencing token). */
  STALE_EPOCH: 'STALE_EPOCH',
  /** The write kept losing the append race; a conflict record names it. */
  LOST_RACE: 'LOST_RACE',
  /**
   * The sealer re-ran the guard (`evaluateWrite` at `acceptedAtMs`) and the carried verdict is not
   * what it gives: the write is unsafe, or the `verdictDigest` differs (a forged or altered
   * seal request, e.g. one sent to `seal-requests` without passing the guard).
   */
  VERDICT_MISMATCH: 'VERDICT_MISMATCH',
  /** The seal request's `acceptedAtMs` lies in the future or before the `seal-requests` retention. */
  ACCEPTANCE_TIME_INVALID: 'ACCEPTANCE_TIME_INVALID',
  /**
   * The lineage's head item is behind its records (rewound or deleted): the next seq is taken
   * although the head held. A conflict record names it; retrying cannot help.
   */
  LINEAGE_INCONSISTENT: 'LINEAGE_INCONSISTENT',
  /** The residual id is already sealed in this lineage with other content (payload, manifest, …). */
  RESIDUAL_ID_REUSED: 'RESIDUAL_ID_REUSED',
  /**
   * The writer's signature does not verify over the request, or `signedAtMs` is too old or too far
   * ahead (docs/authorship.md). Recorded without a KMS signature: an honest writer checks its own.
   */
  WRITER_SIGNATURE_INVALID: 'WRITER_SIGNATURE_INVALID',
  /**
   * The writer's key may not extend this lineage under its authenticated write policy, or the
   * lineage is a read-only legacy one (docs/authorship.md). Decided before any epoch check;
   * recorded without a KMS signature, naming neither the tip's epoch nor its head.
   */
  WRITER_NOT_ADMITTED: 'WRITER_NOT_ADMITTED',
  /**
   * The lineage head the sealer would extend is behind the head the deployment index holds for
   * the lineage (fewer records, an older epoch, another root at the same size, or a larger head
   * that does not extend it): the table was rolled back or forked (docs/sealing.md, "The index
   * floor"). The whole run is refused and nothing sealed; recorded without a KMS signature.
   */
  LINEAGE_BEHIND_INDEX: 'LINEAGE_BEHIND_INDEX',
  /**
   * The sealer could not read the deployment index it checks every run against: the deployment
   * head does not authenticate with the log key, or an index node is missing or edited
   * (docs/sealing.md, "The index floor"). Nothing sealed; recorded without a KMS signature.
   */
  INDEX_UNVERIFIABLE: 'INDEX_UNVERIFIABLE',
  /**
   * The write came from a tenant's `residual-writes` queue (the event source AWS names) and its
   * lineage id does not begin with that tenant's `<tenant>/`, or from a queue of no tenant in a
   * stack with tenants (docs/authorship.md, "Tenancy"). Decided by the guard before the writer
   * signature is checked; recorded without a KMS signature.
   */
  TENANT_MISMATCH: 'TENANT_MISMATCH',
} as const;
/** One of {@link RejectionReason}. */
export type RejectionReason = (typeof RejectionReason)[keyof typeof RejectionReason];
