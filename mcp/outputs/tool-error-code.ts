/** Why a tool call failed, machine-readable (`structuredContent.error` of a tool error). */
export const ToolErrorCode = {
  /** The guard or the sealer refused the write (`reason`; each rejected variable with its `action`). */
  WRITE_REJECTED: 'WRITE_REJECTED',
  /** The write could not be appended (`STALE_EPOCH`, `LOST_RACE`, `LINEAGE_INCONSISTENT`). */
  WRITE_CONFLICT: 'WRITE_CONFLICT',
  /** A record or the chain does not verify (tamper, truncation, or a MAC that cannot be checked). */
  TAMPER_DETECTED: 'TAMPER_DETECTED',
  /**
   * Records of the lineage are sealed past the tree head the index holds (`reseal_verify`,
   * `reseal_inspect`: `awaitingIntegrationFromSeq`), or the recalled record is (`reseal_recall`:
   * proven only in a head the sealer MAC'd; docs/mcp.md, "Errors"): not proven yet, not tampering.
   * Ask again after the next integration.
   */
  AWAITING_INTEGRATION: 'AWAITING_INTEGRATION',
  /** No such lineage, seq or residual id (a write may not be sealed yet). */
  NOT_FOUND: 'NOT_FOUND',
  /** The record verified but cannot be triaged (corrupt manifest): rebuild this memory. */
  UNTRIAGEABLE: 'UNTRIAGEABLE',
  /**
   * The lineage is not of the caller's tenant (`lineageId`, `tenantId`; docs/mcp.md, "Tenants"):
   * nothing was read or sent. The remote server of a stack with tenants answers it, and a local
   * server given `RESEAL_TENANT`; the guard files a cross-tenant write under the same code.
   */
  TENANT_MISMATCH: 'TENANT_MISMATCH',
  /** The arguments (or the snapshot they were completed with) are invalid: `issues` names each field. */
  INVALID_INPUT: 'INVALID_INPUT',
  /** No outcome or report in time; the write or recall may still complete. */
  TIMEOUT: 'TIMEOUT',
  /**
   * The stack cannot be reached (`missing`: `outputs`, `region`, `credentials`, `stack` or `endpoint`;
   * the next call tries again), or the server's checkpoint store cannot be read (`checkpointStore`).
   */
  UNAVAILABLE: 'UNAVAILABLE',
  /** Anything else (a bug, an AWS error): `message` says what. */
  UNEXPECTED: 'UNEXPECTED',
} as const;
/** One of {@link ToolErrorCode}. */
export type ToolErrorCode = (typeof ToolErrorCode)[keyof typeof ToolErrorCode];
