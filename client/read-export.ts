import { FORMAT_VERSION } from '../shared/canonical/hash-domain';
import { LineageNotFoundError } from '../shared/errors';
import type { LineageStore } from '../shared/ports/lineage-store';
import { type LineageHead, LineageHeadSchema } from '../shared/seal/lineage-head';
import { DEFAULT_PAGE_SIZE, lineagePages } from '../shared/seal/lineage-pages';
import type { LineageProgress } from '../shared/seal/lineage-progress';
import type { SealedRecord } from '../shared/seal/sealed-record';
import { storedSeqAndHash } from '../shared/seal/stored-head';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import { LogVerificationError } from './errors';
import type { LineageExport } from './lineage-export';

/** Options of {@link readLineageExport}. */
export interface ReadExportOptions {
  /** Records per page (default 500). */
  readonly pageSize?: number;
  /** Called after each page of records is read. */
  readonly onProgress?: (progress: LineageProgress) => void;
}

/**
 * Reads a whole lineage, page by page, into a {@link LineageExport}: every stored record up to
 * the last one (or up to the head's seq when that is later), whatever the head claims; past the
 * head, reading stops at an empty page (the last stored record is still exported). Records
 * are exported as stored, unverified (a tampered table exports tampered records): verify the
 * export with `reseal verify --export`, or `ResealClient.verifyExport`.
 *
 * @param exportedAtMs - when the export is read (the client's clock), ms since the Unix epoch
 * @throws {LineageNotFoundError} when the lineage has neither records nor a head
 * @throws {LogVerificationError} `LINEAGE_BROKEN` when the head item is malformed (it could not be
 *   written as the export's `head`, and `reseal verify --export` would refuse the file as bad input)
 */
export async function readLineageExport(
  store: Pick<LineageStore, 'head' | 'lastRecordSeq' | 'readChain'>,
  lineageId: string,
  exportedAtMs: number,
  options: ReadExportOptions = {},
): Promise<LineageExport> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  // The last record key before the head (see verifyLineagePages): the head is only a claim.
  const lastStoredSeq = await store.lastRecordSeq(lineageId);
  const head = await store.head(lineageId);
  if (head === null && lastStoredSeq === null) throw new LineageNotFoundError(lineageId);
  // A small head (docs/sealing.md, "The append's layout") stores no tip anchor: the export's head
  // takes it from the head record, once read.
  const small = head !== null && head.mac === '' && head.keyId === '';
  // An export its own verifier would call bad input is never written: a head item that does not
  // read as a head (a seq stored as text, or not a safe integer) is a finding, as the walk says.
  const malformed =
    head === null ? null : LineageHeadSchema.safeParse(small ? { ...head, mac: SOME_MAC, keyId: 'k' } : head);
  if (malformed && !malformed.success) {
    const issue = malformed.error.issues[0];
    throw new LogVerificationError(
      lineageId,
      VerificationVerdict.LINEAGE_BROKEN,
      `malformed HEAD: the stored head item does not read as a head (at head.${issue?.path.join('.') ?? ''}: ${issue?.message})`,
    );
  }
  const lastSeq = Math.max(head?.seq ?? -1, lastStoredSeq ?? -1);
  const records: unknown[] = [];
  const total = lastSeq + 1;
  for await (const { from, records: page } of lineagePages(store, lineageId, lastSeq, pageSize)) {
    records.push(...page);
    options.onProgress?.({ done: Math.min(records.length, total), total });
    // An empty page past the last stored record ends the read too, whatever seq the head claims
    // (a head at seq 1e15 would otherwise be read towards page by page).
    if (page.length === 0 && from > (lastStoredSeq ?? -1)) break;
    if (page.length === 0 && from > (head?.seq ?? -1)) {
      // Cut off from the chain past the head (a far-out key, up to 2^53 − 1): reading on would
      // never end. The last stored record is exported, so verifying the export still shows it.
      if (lastStoredSeq !== null && lastStoredSeq > from) {
        records.push(...(await store.readChain(lineageId, lastStoredSeq, lastStoredSeq)));
      }
      break;
    }
  }
  return {
    formatVersion: FORMAT_VERSION,
    lineageId,
    exportedAtMs,
    head: small && head ? withTipAnchor(lineageId, head, records) : head,
    records: records as SealedRecord[],
  };
}

/** A well-formed MAC, to check a small head's other fields against the head schema. */
const SOME_MAC = Buffer.alloc(32).toString('base64');

/**
 * A small head's claim with the tip record's anchor (`mac`, `keyId`), read from the stored record
 * at its seq whose hash is the head's; the export's verifier then checks the claim against the
 * records as it checks any head.
 * @throws {LogVerificationError} `TRUNCATION_DETECTED` when no record is stored at the head's seq,
 *   `LINEAGE_BROKEN` when the record there has another hash or no readable anchor
 */
function withTipAnchor(lineageId: string, head: LineageHead, records: readonly unknown[]): LineageHead {
  const tip = records.find((raw) => storedSeqAndHash(raw).seq === head.seq);
  if (tip === undefined) {
    throw new LogVerificationError(
      lineageId,
      VerificationVerdict.TRUNCATION_DETECTED,
      `truncated: the stored HEAD claims seq ${head.seq} but no record is stored there`,
    );
  }
  const anchor = (tip as { anchor?: { mac?: unknown }; header?: { keyId?: unknown } }) ?? {};
  const filled = { ...head, mac: anchor.anchor?.mac, keyId: anchor.header?.keyId };
  const parsed = LineageHeadSchema.safeParse(filled);
  if (storedSeqAndHash(tip).recordHash !== head.recordHash || !parsed.success) {
    throw new LogVerificationError(
      lineageId,
      VerificationVerdict.LINEAGE_BROKEN,
      `HEAD mismatch: the stored head's recordHash at seq ${head.seq} is not the record's (head rewritten)`,
    );
  }
  return parsed.data;
}
