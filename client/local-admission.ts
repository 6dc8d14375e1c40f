import { admitWrite } from '../shared/authorship/admit-write';
import { type LineagePolicy, LineagePolicySchema, policyDigest } from '../shared/authorship/lineage-policy';
import { InvalidInputError, LogStateError } from '../shared/errors';
import { claimedLogState, type StoredLogHead } from '../shared/log/log-state';
import type { LineageStore } from '../shared/ports/lineage-store';
import { RECORD_FORMAT_WRITER_BOUND } from '../shared/seal/record-header';
import type { ResidualWriteRequest } from '../shared/write/write-request';

/**
 * Records read back from the head, when the head item cannot tell the policy in force (a head
 * stored before heads carried it), to find it; past them the sealer alone decides.
 */
export const LOCAL_ADMISSION_WINDOW = 256;

/** Records the first page of that read back holds; each further page is twice the one before. */
export const LOCAL_ADMISSION_FIRST_PAGE = 8;

/** The lineage table reads of {@link checkLocalAdmission}. */
export type AdmissionReader = Pick<LineageStore, 'logHead' | 'readChain'>;

/** What admission is decided on, as the table shows it: the policy in force at the tip, or a legacy tip. */
interface ShownState {
  readonly inForce: LineagePolicy | null;
  readonly legacyTip: boolean;
}

interface StoredRecord {
  readonly header?: { readonly formatVersion?: number; readonly policyDigest?: string | null };
  readonly policy?: unknown;
}

/**
 * An honest client's check before publishing (docs/authorship.md, "Two refusals, in order"):
 * would the sealer admit this signed write? The sealer records `WRITER_NOT_ADMITTED` without a
 * KMS signature, so its refusal can never be a proven outcome: the client refuses to send a write
 * it can see is not admitted instead.
 *
 * It reads the lineage's head item alone (one strongly consistent `GetItem`), which stores the
 * policy in force (docs/sealing.md, "The head item"), however long the lineage. It decides on it
 * only when the item is a well-formed claimed state (`claimedLogState`) holding a policy that
 * hashes to the digest its tip header names (a small head: its stored policy, whose digest the
 * head-state MAC covers), or, with a tip header, one of format 1 (a legacy lineage: refused).
 * A head item stored before heads carried the policy (a format-2 header beside no policy), or a
 * small head with none (the MAC's null policy digest: a format-1 tip), cannot tell: the records
 * are read back newest first, in pages of {@link LOCAL_ADMISSION_FIRST_PAGE} records doubling,
 * until one sets a policy, as far as {@link LOCAL_ADMISSION_WINDOW} records, and it passes when
 * the policy is not within them. Any other head item (malformed, or its policy not the one its
 * header names) passes.
 *
 * No head item decides by the inception rules, but a write they refuse passes when a record 0 is
 * stored (one more `GetItem`-sized read, on that path only): the lineage exists, its head item
 * missing or unreadable.
 *
 * Advisory only: every item is read unauthenticated, never the head-state MAC. A table writer
 * can make it pass (the sealer, deciding on authenticated state, still refuses), and can make it
 * refuse an admitted write by editing one item: the head's policy with its header's digest (on
 * a small head, the policy alone, whose digest only the MAC covers), or its header's format.
 * Reading the records, one edited tip record did the same (its format, or a policy beside its
 * digest), so a forged refusal is no easier than before; the sealer decides either way.
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
  const stored = await store.logHead(request.lineageId);
  if (stored === null) {
    const decision = admitWrite({ lineageId: request.lineageId, seq: 0, inForce: null, legacyTip: false }, candidate);
    // No head item (or one unreadable), yet a first record stored: the head was never put (a
    // sealer stopped between the records and the head, rolled forward on the lineage's next
    // write) or a table writer deleted or broke it. Not an inception: the sealer decides.
    if ('refused' in decision && (await store.readChain(request.lineageId, 0, 0)).length === 0) {
      refuse(decision.refused);
    }
    return;
  }
  const seq = stored.head.seq;
  if (!Number.isSafeInteger(seq) || seq < 0) return;
  const fromHead = headShownState(stored, request.lineageId);
  const shown = fromHead === UNTOLD ? await recordsShownState(store, request.lineageId, seq) : fromHead;
  if (shown === null) return;
  const decision = admitWrite({ lineageId: request.lineageId, seq: seq + 1, ...shown }, candidate);
  if ('refused' in decision) refuse(decision.refused);
}

/** What {@link headShownState} returns for a head item that cannot tell: read the records. */
const UNTOLD = Symbol('untold');

/**
 * The state the head item shows, {@link UNTOLD} when it cannot tell (no policy stored), or `null`
 * when it is not a well-formed state (pass).
 */
function headShownState(stored: StoredLogHead, lineageId: string): ShownState | null | typeof UNTOLD {
  if (stored.policy === null || stored.policy === undefined) {
    const header = stored.header as { readonly formatVersion?: unknown } | null | undefined;
    // A format-1 tip header tells a legacy lineage (claimedLogState checks it below); a
    // format-2 one or none at all beside no policy cannot tell.
    if (header?.formatVersion === RECORD_FORMAT_WRITER_BOUND || header === null || header === undefined) {
      return UNTOLD;
    }
  }
  try {
    const state = claimedLogState(stored, lineageId);
    return { inForce: state.policy, legacyTip: state.legacyTip };
  } catch (error) {
    if (error instanceof LogStateError) return null;
    throw error;
  }
}

/**
 * The state the last records show (the tip's format, the newest policy set within
 * {@link LOCAL_ADMISSION_WINDOW} records, which must hash to the tip header's `policyDigest`), or
 * `null` when they cannot tell. Each range ends at or below the head just read strongly, so it is
 * full: an eventually consistent copy holding every seq is the same records; one missing any is
 * read again strongly.
 */
async function recordsShownState(
  store: AdmissionReader,
  lineageId: string,
  headSeq: number,
): Promise<ShownState | null> {
  const floor = Math.max(0, headSeq - LOCAL_ADMISSION_WINDOW + 1);
  let tip: StoredRecord | undefined;
  let to = headSeq;
  for (let page = LOCAL_ADMISSION_FIRST_PAGE; to >= floor; page *= 2) {
    const from = Math.max(floor, to - page + 1);
    const records = (await store.readChain(lineageId, from, to, { eventual: true })) as StoredRecord[];
    if (tip === undefined) {
      tip = records.at(-1);
      if (!tip?.header) return null;
      if (tip.header.formatVersion !== RECORD_FORMAT_WRITER_BOUND) return { inForce: null, legacyTip: true };
    }
    for (const record of [...records].reverse()) {
      const parsed = LineagePolicySchema.safeParse(record.policy);
      if (parsed.success) {
        // Not the one the tip names (an edited item): the sealer decides on authenticated state.
        return policyDigest(parsed.data) === tip.header?.policyDigest
          ? { inForce: parsed.data, legacyTip: false }
          : null;
      }
    }
    to = from - 1;
  }
  return null;
}
