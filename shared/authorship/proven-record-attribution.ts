import type { SealedRecord } from '../seal/sealed-record';
import { AdmissionKind } from './admission';
import { admitWrite } from './admit-write';
import { type RecordAttribution, recordAttribution } from './record-attribution';

/**
 * The attribution of one record proven on its own (a receipt, a recall), without the lineage
 * before it (docs/authorship.md, "Who wrote it"). `admittedAs` is only what the record itself
 * shows: `INCEPTION` for a seq-0 record whose policy the lineage id certifies and whose signer it
 * names; `WRITE` for a later record that sets no policy (its writer signed "no policy", so the
 * sealer, whose log proves the record, admitted it as a write of the policy in force); `null` for
 * a later record that sets a policy (a rotation or a recovery: telling them apart needs the
 * policy before it, which a whole-lineage walk checks).
 *
 * @param record - a record already proven (its integrity, writer signature and inclusion checked)
 */
export function provenRecordAttribution(record: SealedRecord): RecordAttribution {
  const seq = record.header.monotonicSequenceNumber;
  const policy = record.policy ?? null;
  let admittedAs: AdmissionKind | null = null;
  if (seq === 0 && record.writer) {
    const decision = admitWrite(
      { lineageId: record.header.lineageId, seq: 0, inForce: null, legacyTip: false },
      { publicKey: record.writer.publicKey, policy },
    );
    admittedAs = 'admitted' in decision ? decision.admitted : null;
  } else if (policy === null) {
    admittedAs = AdmissionKind.WRITE;
  }
  return recordAttribution(record, admittedAs);
}
