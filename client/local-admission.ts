import { admitWrite } from '../shared/authorship/admit-write';
import { type LineagePolicy, LineagePolicySchema, policyDigest } from '../shared/authorship/lineage-policy';
import { InvalidInputError } from '../shared/errors';
import type { LineageStore } from '../shared/ports/lineage-store';
import { RECORD_FORMAT_WRITER_BOUND } from '../shared/seal/record-header';
import type { ResidualWriteRequest } from '../shared/write/write-request';

/** Records read back from the head to find the policy in force; past them the sealer alone decides. */
export const LOCAL_ADMISSION_WINDOW = 256;

/** The lineage table reads of {@link checkLocalAdmission}. */
export type AdmissionReader = Pick<LineageStore, 'head' | 'readChain'>;

interface StoredRecord {
  readonly header?: { readonly formatVersion?: number; readonly policyDigest?: string | null };
  readonly policy?: unknown;
}

/**
 * An honest client's check before publishing (docs/authorship.md, "Two refusals, in order"):
 * would the sealer admit this signed write? The sealer records `WRITER_NOT_ADMITTED` without a
 * KMS signature, so its refusal can never be a proven outcome: the client refuses to send a write
 * it can see is not admitted instead. Advisory only: it reads the table unauthenticated (a table
 * writer can make it pass; the sealer, deciding on authenticated state, still refuses), and when
 * the policy in force is not within {@link LOCAL_ADMISSION_WINDOW} records of the head it passes.
 *
 * @throws {InvalidInputError} (path `writer`) when the write is visibly not admitted, with why
 */
export async function checkLocalAdmission(store: AdmissionReader, request: ResidualWriteRequest): Promise<void> {
  const refuse = (reason: string): never => {
    throw new InvalidInputError('residual write request', [
      { path: 'writer', message: `key ${request.writer.keyId.slice(0, 256)} is not admitted: ${reason}` },
    ]);
  };
  const candidate = { publicKey: request.writer.publicKey, policy: request.policy ?? null };
  const head = await store.head(request.lineageId);
  if (head === null) {
    const decision = admitWrite({ lineageId: request.lineageId, seq: 0, inForce: null, legacyTip: false }, candidate);
    if ('refused' in decision) refuse(decision.refused);
    return;
  }
  const from = Math.max(0, head.seq - LOCAL_ADMISSION_WINDOW + 1);
  // The range ends at the head just read strongly, so it is full: an eventually consistent copy
  // holding every seq is the same records; one missing any is read again strongly.
  const records = (await store.readChain(request.lineageId, from, head.seq, { eventual: true })) as StoredRecord[];
  const tip = records.at(-1);
  if (!tip?.header) return;
  const legacyTip = tip.header.formatVersion !== RECORD_FORMAT_WRITER_BOUND;
  let inForce: LineagePolicy | null = null;
  if (!legacyTip) {
    for (const record of [...records].reverse()) {
      const parsed = LineagePolicySchema.safeParse(record.policy);
      if (parsed.success) {
        inForce = parsed.data;
        break;
      }
    }
    // Unknown (out of the window, or an edited item): the sealer decides on authenticated state.
    if (inForce === null || policyDigest(inForce) !== tip.header.policyDigest) return;
  }
  const decision = admitWrite({ lineageId: request.lineageId, seq: head.seq + 1, inForce, legacyTip }, candidate);
  if ('refused' in decision) refuse(decision.refused);
}
