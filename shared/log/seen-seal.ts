import { z } from 'zod';
import { EpochMillis } from '../schemas/epoch-millis';
import { HexDigest } from '../schemas/hex-digest';
import { Identifier } from '../schemas/identifier';
import { NonNegativeInt } from '../schemas/non-negative-int';

/**
 * A write this client saw sealed, awaiting integration (docs/verifiable-log.md, "Checkpoints the
 * client keeps", "Seals seen awaiting integration"): its record, proven by inclusion in the head
 * item's tree of `treeSize` leaves and root `rootHash` (hex), when the index did not hold it yet.
 * `seenAtMs` is the client's clock when it saw it (ms since the Unix epoch).
 */
export const SeenSealSchema = z.strictObject({
  lineageId: Identifier,
  residualId: Identifier,
  seq: NonNegativeInt,
  recordHash: HexDigest,
  treeSize: NonNegativeInt.min(1),
  rootHash: HexDigest,
  seenAtMs: EpochMillis,
});

/** One {@link SeenSealSchema} entry. */
export type SeenSeal = z.infer<typeof SeenSealSchema>;

/** Most seals kept per lineage: the newest (largest seq) are kept, a lineage rarely has more awaiting integration. */
export const MAX_SEEN_SEALS_PER_LINEAGE = 64;

/**
 * `entries` with `seen` added: one entry per `(seq, recordHash)` (the first sighting stays),
 * sorted by seq, and only the newest {@link MAX_SEEN_SEALS_PER_LINEAGE} kept.
 */
export function addSeenSeal(entries: readonly SeenSeal[], seen: SeenSeal): SeenSeal[] {
  const known = entries.some((entry) => entry.seq === seen.seq && entry.recordHash === seen.recordHash);
  const all = known ? [...entries] : [...entries, seen];
  return all.sort((a, b) => a.seq - b.seq).slice(-MAX_SEEN_SEALS_PER_LINEAGE);
}

/**
 * `entries` less those an index entry covers (`seq` below `indexedSize`, the lineage's tree size
 * in the index under a kept deployment checkpoint): from then on the kept deployment checkpoint
 * catches a rollback of them. The caller has checked them first ({@link seenSealContradiction}).
 */
export function pruneSeenSeals(entries: readonly SeenSeal[], indexedSize: number): SeenSeal[] {
  return entries.filter((entry) => entry.seq >= indexedSize);
}

/** What a reader shows of a lineage now, to be held against the seals seen. */
export interface LineageObservation {
  /** The head item's tree size now (`0`: no head and no records). */
  readonly treeSize: number;
  /** Records the reader proved in that tree, by seq: their record hashes (hex). */
  readonly recordHashes: ReadonlyMap<number, string>;
  /** A residual id the reader found absent (a `NOT_FOUND` it did not contradict otherwise), if any. */
  readonly absentResidualId?: string;
}

/**
 * The first seal seen awaiting integration that the lineage's state no longer holds
 * (docs/verifiable-log.md, "Seals seen awaiting integration"): its residual id found absent, a
 * tree smaller than its seq, or another record at its seq. That is a rollback of records not yet
 * integrated (a table writer rewound the head and deleted them, with their markers), refused
 * whatever the index says; `null` when every seal seen is still there.
 *
 * @returns the contradicted entry and a reason naming it and when it was seen
 */
export function seenSealContradiction(
  entries: readonly SeenSeal[],
  now: LineageObservation,
): { readonly seen: SeenSeal; readonly reason: string } | null {
  for (const seen of entries) {
    const sighting = `this client saw residual ${seen.residualId} sealed at seq ${seen.seq} (record ${seen.recordHash.slice(0, 16)}…, in the head item's tree of ${seen.treeSize} records) at ${new Date(seen.seenAtMs).toISOString()}, awaiting integration`;
    if (now.absentResidualId === seen.residualId)
      return {
        seen,
        reason: `rollback: residual ${seen.residualId} reads absent, but ${sighting}: its record and marker were removed from the table`,
      };
    if (now.treeSize <= seen.seq)
      return {
        seen,
        reason: `rollback: the lineage's tree now holds ${now.treeSize} records, but ${sighting}: the head was rewound over records not yet integrated`,
      };
    const hash = now.recordHashes.get(seen.seq);
    if (hash !== undefined && hash !== seen.recordHash)
      return {
        seen,
        reason: `rollback: seq ${seen.seq} now holds record ${hash.slice(0, 16)}…, but ${sighting}: the head was rewound and resealed over records not yet integrated`,
      };
  }
  return null;
}
