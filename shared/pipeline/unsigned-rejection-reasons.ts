import { RejectionReason } from './rejection-reason';

/**
 * The rejection reasons the guard and the sealer record **without** a KMS signature
 * (`statement: null`; docs/authorship.md, "Refusals without a `Sign`"): the refusals anyone who
 * can send to a queue may provoke, so none of them costs a `Sign`. Because no key vouches for
 * them, a client reports each only as unproven, never as the outcome of its write. The guard's
 * `SCHEMA_VIOLATION` is unsigned too, but the sealer signs its own, so it is not listed: a client
 * tells the two apart by the refusal's verified statement.
 */
export const UNSIGNED_REJECTION_REASONS: ReadonlySet<RejectionReason> = new Set([
  RejectionReason.PAYLOAD_TOO_LARGE,
  RejectionReason.MALFORMED_JSON,
  RejectionReason.TENANT_MISMATCH,
  RejectionReason.WRITER_SIGNATURE_INVALID,
  RejectionReason.WRITER_NOT_ADMITTED,
  RejectionReason.LINEAGE_BEHIND_INDEX,
  RejectionReason.INDEX_UNVERIFIABLE,
]);
