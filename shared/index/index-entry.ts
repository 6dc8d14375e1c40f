import { hash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../canonical/canonical-json';
import { HEX_DIGEST_PATTERN } from '../canonical/digest';
import { HashDomain } from '../canonical/hash-domain';
import { Identifier } from '../schemas/identifier';
import { NonNegativeInt } from '../schemas/non-negative-int';
import { parseInput } from '../schemas/parse';
import { type IndexKey, keyObject } from './index-key';

const Hex = z.string().regex(HEX_DIGEST_PATTERN, 'expected 64 lowercase hex characters (SHA-256)');

/**
 * A lineage's entry: its latest integrated tree head (docs/verifiable-index.md, "Entries").
 * `treeSize` ≥ 1 records, `rootHash` the RFC 9162 root of those records (hex), `headRecordHash` the
 * record hash of seq `treeSize − 1`, `generationEpoch` the head record's epoch, and
 * `writerPolicyDigest` the digest of the lineage's writer policy, or `null` when it has none.
 */
export const LineageIndexValueSchema = z.strictObject({
  treeSize: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  rootHash: Hex,
  headRecordHash: Hex,
  generationEpoch: NonNegativeInt,
  writerPolicyDigest: Hex.nullable(),
});

/** A residual id's entry: the seq and record hash it was sealed at, set once (docs/verifiable-index.md, "Entries"). */
export const ResidualIndexValueSchema = z.strictObject({ seq: NonNegativeInt, recordHash: Hex });

/** One entry of the index, key and value, as a leaf commits to it. */
export const IndexEntrySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('lineage'), lineageId: Identifier, value: LineageIndexValueSchema }),
  z.strictObject({
    kind: z.literal('residual'),
    lineageId: Identifier,
    residualId: Identifier,
    value: ResidualIndexValueSchema,
  }),
]);

/** A lineage entry's value. */
export type LineageIndexValue = z.infer<typeof LineageIndexValueSchema>;
/** A residual entry's value. */
export type ResidualIndexValue = z.infer<typeof ResidualIndexValueSchema>;
/** One index entry: `{ kind: 'lineage', lineageId, value }` or `{ kind: 'residual', lineageId, residualId, value }`. */
export type IndexEntry = z.infer<typeof IndexEntrySchema>;

/** The key an entry is stored under. */
export function entryKey(entry: IndexEntry): IndexKey {
  return entry.kind === 'lineage'
    ? { kind: 'lineage', lineageId: entry.lineageId }
    : { kind: 'residual', lineageId: entry.lineageId, residualId: entry.residualId };
}

/**
 * The entry digest a leaf commits to: `SHA-256("reseal/v1/index-entry" || 0x00 || JCS({ v: 1,
 * kind, lineageId[, residualId], value }))`, 32 raw bytes (docs/verifiable-index.md, "Entries").
 *
 * @param entry - an entry already validated ({@link parseIndexEntry})
 */
export function entryDigest(entry: IndexEntry): Uint8Array {
  return hash('sha256', ENTRY_PREFIX + canonicalJson({ ...keyObject(entryKey(entry)), value: entry.value }), 'buffer');
}

const ENTRY_PREFIX = `${HashDomain.INDEX_ENTRY}\0`;

/**
 * Validates an index entry from outside (strict at every level).
 * @throws {InvalidInputError} naming the bad field
 */
export function parseIndexEntry(input: unknown): IndexEntry {
  return parseInput(IndexEntrySchema, input, 'index entry');
}

/** Whether two entries hold the same value (their canonical forms are equal). */
export function sameEntryValue(a: IndexEntry['value'], b: IndexEntry['value']): boolean {
  const keys = Object.keys(a) as (keyof typeof a)[];
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === (b as typeof a)[k]);
}
