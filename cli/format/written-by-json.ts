import { isoTime } from '../../client/iso-time';
import type { WrittenBy } from '../../client/written-by';

/**
 * Who wrote a record, for `--json` (snake_case, stable): `null` when the record does not verify,
 * `{ status: "UNATTRIBUTED" }` for a format-1 record, else the signed writer
 * (docs/cli.md, "Who wrote it").
 */
export function writtenByJson(writtenBy: WrittenBy | null) {
  if (writtenBy === null || writtenBy.status === 'UNATTRIBUTED') return writtenBy && { status: writtenBy.status };
  return {
    status: writtenBy.status,
    key_id: writtenBy.keyId,
    public_key: writtenBy.publicKey,
    signed_at: isoTime(writtenBy.signedAtMs),
    sender_id: writtenBy.senderId,
    policy_digest: writtenBy.policyDigest,
    admitted_as: writtenBy.admittedAs,
    key_role: writtenBy.keyRole,
    lineage_id_certifies_policy: writtenBy.lineageIdCertifiesPolicy,
    admission_checked_by: writtenBy.admissionCheckedBy,
  };
}
