import { AdmissionKind } from '../shared/authorship/admission';
import { provenRecordAttribution } from '../shared/authorship/proven-record-attribution';
import type { RecordAttribution } from '../shared/authorship/record-attribution';
import { escapedText as t } from '../shared/schemas/escaped-text';
import type { RecordVerification } from '../shared/seal/chain-verification';
import type { SealedRecord } from '../shared/seal/sealed-record';
import { VerificationVerdict } from '../shared/seal/verification-verdict';

/** The role of the policy key that admitted a record: one of its writer keys, or one of its recovery keys. */
export type AdmittingKeyRole = 'writer' | 'recovery';

/**
 * Who wrote a verified record, as `verify`, `inspect`, receipts and the MCP tools show it
 * (docs/authorship.md, "Who wrote it"); built only from a record that verified, so the CLI and
 * the MCP server render it and decide nothing. A record that does not verify has none (`null`):
 * what it claims of its writer is shown only as untrusted text.
 *
 * - `SIGNED` (record format 2): the writer key (`keyId`, `publicKey`: base64 of the raw 32-byte
 *   Ed25519 key), `signedAtMs` (ms since the Unix epoch), the SQS `senderId` (`null` when the
 *   queue gave none), the policy in force after the record (`policyDigest`), how it was admitted
 *   (`admittedAs`, with `keyRole` the policy key role: `INCEPTION`, `WRITE`, `ROTATION` by a
 *   writer key, `RECOVERY` by a recovery key; `null` when the check could not tell), and whether
 *   the lineage id is self-certifying for that policy (`lineageIdCertifiesPolicy`).
 *   `admissionCheckedBy`: `walk` (the policy in force before the record, rechecked by a walk of
 *   the lineage) or `record` (one proven record: what it shows on its own).
 * - `UNATTRIBUTED`: a verified format-1 record, made before writers were bound.
 */
export type WrittenBy =
  | {
      readonly status: 'SIGNED';
      readonly keyId: string;
      readonly publicKey: string;
      readonly signedAtMs: number;
      readonly senderId: string | null;
      readonly policyDigest: string;
      readonly admittedAs: AdmissionKind | null;
      readonly keyRole: AdmittingKeyRole | null;
      readonly lineageIdCertifiesPolicy: boolean;
      readonly admissionCheckedBy: 'walk' | 'record';
    }
  | { readonly status: 'UNATTRIBUTED' };

function fromAttribution(attribution: RecordAttribution, checkedBy: 'walk' | 'record'): WrittenBy {
  if (attribution.formatVersion === 1) return { status: 'UNATTRIBUTED' };
  const { formatVersion: _format, admittedAs, ...writer } = attribution;
  return {
    status: 'SIGNED',
    ...writer,
    admittedAs,
    keyRole: admittedAs === null ? null : admittedAs === AdmissionKind.RECOVERY ? 'recovery' : 'writer',
    admissionCheckedBy: checkedBy,
  };
}

/**
 * Who wrote the record of one entry of a chain verification (`verifyChain`, `reseal verify`,
 * `reseal inspect`): `null` unless the entry is `VERIFIED_INTACT` and the walk attributed it.
 */
export function writtenByOf(verification: RecordVerification | undefined): WrittenBy | null {
  if (verification?.verdict !== VerificationVerdict.VERIFIED_INTACT || !verification.writtenBy) return null;
  return fromAttribution(verification.writtenBy, 'walk');
}

/**
 * Who wrote one record proven on its own (a verified receipt, a proven recall):
 * `provenRecordAttribution` (shared/authorship/proven-record-attribution.ts). Pass only a record
 * already proven.
 */
export function writtenByProven(record: SealedRecord): WrittenBy {
  return fromAttribution(provenRecordAttribution(record), 'record');
}

const ADMITTED_TEXT: Record<AdmissionKind, string> = {
  INCEPTION: 'writer key of the inception policy (started the lineage)',
  WRITE: 'writer key of the policy in force',
  ROTATION: 'writer key of the policy in force (rotation: set a new policy)',
  RECOVERY: 'recovery key of the policy in force (recovery: replaced the writers)',
};

/**
 * One line saying who wrote a record, e.g. `agent-a, ed25519 <base64>; admitted as INCEPTION
 * (writer key …); policy 1f2e…, named by the lineage id; sender 000000000000`; for `null`:
 * `(not shown: the record does not verify)`. The key id and sender id are the writer's and the
 * queue's text: escaped (`escapedText`), so the line stays one line whatever they hold.
 */
export function writtenByText(writtenBy: WrittenBy | null): string {
  if (writtenBy === null) return '(not shown: the record does not verify)';
  if (writtenBy.status === 'UNATTRIBUTED') return 'unattributed (a format-1 record, made before writers were bound)';
  const admitted =
    writtenBy.admittedAs === null
      ? writtenBy.admissionCheckedBy === 'record'
        ? 'admission not shown by this record alone (verify the lineage)'
        : 'admission not checked (the walk started after the last policy)'
      : `admitted as ${writtenBy.admittedAs} (${ADMITTED_TEXT[writtenBy.admittedAs]})`;
  const policy = `policy ${writtenBy.policyDigest.slice(0, 16)}…, ${
    writtenBy.lineageIdCertifiesPolicy
      ? 'the one the lineage id names (self-certifying)'
      : 'not the one the lineage id names (rotated or recovered since inception)'
  }`;
  const sender = writtenBy.senderId === null ? 'no SQS sender id' : `sender ${t(writtenBy.senderId)}`;
  return `${t(writtenBy.keyId)}, ed25519 ${writtenBy.publicKey}; ${admitted}; ${policy}; ${sender}`;
}
