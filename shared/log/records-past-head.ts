import type { MacAnchor } from '../ports/mac-anchor';
import { isIntact } from '../seal/is-intact';
import { checkRecordIntegrity } from '../seal/record-integrity';
import type { SealedRecord } from '../seal/sealed-record';
import { verifyRecordMac } from '../seal/verify-record-mac';
import type { LogState } from './log-state';

/** Most records past a head item the sealer rolls forward: one run (docs/sealing.md, "The roll-forward"). */
export const MAX_ROLL_FORWARD_RECORDS = 40;

/** The records past a head item that may be rolled forward, oldest first (none: the state is the head's). */
export interface RecordsPastHead {
  readonly records: readonly SealedRecord[];
}

/** Why records past a head item are not rolled forward. */
export interface RecordsPastHeadRefusal {
  readonly reason: string;
  /**
   * Residual ids sealed by records among them naming this lineage whose own MAC verified (the
   * sealer made them): a write of one of these is never refused, only retried (docs/sealing.md,
   * "The write"). A record of another lineage never adds its residual id.
   */
  readonly sealedResidualIds: ReadonlySet<string>;
}

/**
 * The records stored past an authenticated head state, checked for the roll-forward
 * (docs/sealing.md, "The roll-forward"): at most {@link MAX_ROLL_FORWARD_RECORDS} (a crash leaves
 * at most one run), from seq `state.size` on with no gap, each intact (its own hashes recompute),
 * naming `state.lineageId` and its seq, its `parentRecordHash` the previous record's hash (the
 * tip's for the first), its epoch not below the previous one, and its MAC verifying under
 * `anchor` (one `verifyMac` each: the sealer made it, a table writer cannot). Stored tree nodes
 * are the caller's to compare (they are not in `raws`).
 *
 * @param raws - the stored records read from seq `state.size` on (unverified), at most one more
 *   than the bound, in seq order
 * @returns the records to roll forward, or why not (with the residual ids of those whose MAC verified)
 * @throws what the anchor throws when a MAC cannot be checked (key unavailable: the run is retried)
 */
export async function checkRecordsPastHead(
  state: LogState,
  raws: readonly unknown[],
  anchor: MacAnchor,
): Promise<RecordsPastHead | RecordsPastHeadRefusal> {
  const records: SealedRecord[] = [];
  const intact: { record: SealedRecord; message: Uint8Array }[] = [];
  let reason: string | null = null;
  if (raws.length > MAX_ROLL_FORWARD_RECORDS) {
    reason = `more than ${MAX_ROLL_FORWARD_RECORDS} records are stored past the head item (seq ${state.size - 1}): more than one run, which no crash leaves`;
  }
  let parent = state.tip?.recordHash ?? null;
  let epoch = state.tip?.generationEpoch ?? Number.NEGATIVE_INFINITY;
  for (const [i, raw] of raws.entries()) {
    const seq = state.size + i;
    const checked = checkRecordIntegrity(raw);
    if (!isIntact(checked)) {
      reason ??= `the record stored past the head at position ${i} is not intact (${checked.reason})`;
      break;
    }
    const { record, message } = checked;
    intact.push({ record, message });
    if (reason !== null) continue;
    const { header } = record;
    if (header.lineageId !== state.lineageId || header.monotonicSequenceNumber !== seq) {
      reason = `the record stored past the head where seq ${seq} belongs is seq ${header.monotonicSequenceNumber} of ${header.lineageId} (a gap or a record of another place)`;
    } else if (parent !== null && header.parentRecordHash !== parent) {
      reason = `the record stored at seq ${seq} does not chain from the head's record${i === 0 ? '' : ` (seq ${seq - 1})`}`;
    } else if (header.generationEpoch < epoch) {
      reason = `the record stored at seq ${seq} has generation epoch ${header.generationEpoch}, below the ${epoch} before it`;
    } else {
      records.push(record);
      parent = record.recordHash;
      epoch = header.generationEpoch;
    }
  }
  // One MAC check per intact record (in order): all of them on a refusal, to know which writes
  // the sealer made there; up to the first failure otherwise. A record of another lineage (the
  // refusal names it already) seals nothing of this one: a table writer can copy there a record
  // the sealer made for any lineage, so its residual id never counts here.
  const sealedResidualIds = new Set<string>();
  for (const { record, message } of intact) {
    if (record.header.lineageId !== state.lineageId) continue;
    if ((await verifyRecordMac(anchor, record, message)) === true) {
      sealedResidualIds.add(record.header.residualId);
    } else if (reason === null) {
      reason = `the MAC of the record stored at seq ${record.header.monotonicSequenceNumber} does not verify: the sealer did not make it`;
    }
  }
  if (reason !== null) return { reason, sealedResidualIds };
  return { records };
}

/**
 * Residual ids of `lineageId` sealed by those of `raws` (records read past a head item that does
 * not authenticate) that are intact and whose MAC verifies under `anchor`: the sealer made them, so
 * their writes are retried, never refused (docs/sealing.md, "The write"). No chain is checked:
 * nothing vouches for a state to chain them from.
 *
 * @throws what the anchor throws when a MAC cannot be checked (key unavailable: the run is retried)
 */
export async function residualIdsSealedPastHead(
  lineageId: string,
  raws: readonly unknown[],
  anchor: MacAnchor,
): Promise<ReadonlySet<string>> {
  const sealed = new Set<string>();
  for (const raw of raws.slice(0, MAX_ROLL_FORWARD_RECORDS + 1)) {
    const checked = checkRecordIntegrity(raw);
    if (!isIntact(checked) || checked.record.header.lineageId !== lineageId) continue;
    if ((await verifyRecordMac(anchor, checked.record, checked.message)) === true) {
      sealed.add(checked.record.header.residualId);
    }
  }
  return sealed;
}
