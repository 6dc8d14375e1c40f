import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../canonical/canonical-json';
import { FORMAT_VERSION, HashDomain } from '../canonical/hash-domain';
import { Identifier } from '../schemas/identifier';
import { parseInput } from '../schemas/parse';

/** Bits in a key path: the index is a sparse Merkle tree of 2^256 leaves (docs/verifiable-index.md, "Keys"). */
export const KEY_PATH_BITS = 256;

/** The key of a lineage's entry: its latest tree head (docs/verifiable-index.md, "Entries"). */
export const LineageIndexKeySchema = z.strictObject({ kind: z.literal('lineage'), lineageId: Identifier });

/** The key of a residual id's entry: where that id was sealed in its lineage (docs/verifiable-index.md, "Entries"). */
export const ResidualIndexKeySchema = z.strictObject({
  kind: z.literal('residual'),
  lineageId: Identifier,
  residualId: Identifier,
});

/** Either kind of index key, told apart by `kind`. */
export const IndexKeySchema = z.discriminatedUnion('kind', [LineageIndexKeySchema, ResidualIndexKeySchema]);

/** A lineage's index key. */
export type LineageIndexKey = z.infer<typeof LineageIndexKeySchema>;
/** A residual id's index key. */
export type ResidualIndexKey = z.infer<typeof ResidualIndexKeySchema>;
/** One key of the verifiable index: `lineage` → a tree head, `(lineage, residual)` → `{ seq, recordHash }`. */
export type IndexKey = z.infer<typeof IndexKeySchema>;

/** The object a key path hashes: `{ v: 1, kind, lineageId[, residualId] }`, members exactly these. */
export function keyObject(key: IndexKey): Record<string, unknown> {
  return key.kind === 'lineage'
    ? { v: FORMAT_VERSION, kind: key.kind, lineageId: key.lineageId }
    : { v: FORMAT_VERSION, kind: key.kind, lineageId: key.lineageId, residualId: key.residualId };
}

const KEY_PREFIX = `${HashDomain.INDEX_KEY}\0`;

/**
 * Leading bits a residual id's key path takes from its lineage's key path (docs/verifiable-index.md,
 * "Keys"). A write changes its lineage's key and its residual id's key in the same integration;
 * with their paths sharing these bits, the two walks share every tile down to this depth, so a
 * write rewrites fewer tiles. Chosen by bench/index.ts at 10^6 keys (bench/RESULTS.md, "A residual
 * id's key path under its lineage's"): the fewest tiles written per sparse write with the worst
 * absence proof still under 1 KiB. The other 256 − P bits keep 2^((256 − P) / 2) collision resistance.
 */
export const RESIDUAL_SHARED_PATH_BITS = 16;

/** `SHA-256("reseal/v1/index-key" || 0x00 || JCS(key object))`: a key's own hash, 32 raw bytes. */
function keyHash(key: IndexKey): Uint8Array {
  return createHash('sha256')
    .update(KEY_PREFIX + canonicalJson(keyObject(key)))
    .digest();
}

/**
 * The key's path in the tree, 32 raw bytes; bit 0 is the most significant bit of byte 0 and
 * chooses the root's child (0 left, 1 right). docs/verifiable-index.md, "Keys":
 *
 * - a lineage: `SHA-256("reseal/v1/index-key" || 0x00 || JCS({ v: 1, kind, lineageId }))`;
 * - a residual id: bits 0 … P − 1 of its lineage's path, then bits P … 255 of
 *   `SHA-256("reseal/v1/index-key" || 0x00 || JCS({ v: 1, kind, lineageId, residualId }))`, at the
 *   same positions (P = {@link RESIDUAL_SHARED_PATH_BITS}).
 *
 * @param key - a key already validated ({@link parseIndexKey} at a trust boundary)
 */
export function indexKeyPath(key: IndexKey): Uint8Array {
  const own = keyHash(key);
  if (key.kind === 'lineage') return own;
  return withPrefix(keyHash({ kind: 'lineage', lineageId: key.lineageId }), own, RESIDUAL_SHARED_PATH_BITS);
}

/**
 * `suffix` with its first `bits` bits replaced by those of `prefix` (both 32 bytes; `suffix` is
 * changed in place and returned).
 */
function withPrefix(prefix: Uint8Array, suffix: Uint8Array, bits: number): Uint8Array {
  const whole = bits >>> 3;
  suffix.set(prefix.subarray(0, whole));
  const rest = bits & 7;
  if (rest > 0) {
    const mask = (0xff << (8 - rest)) & 0xff; // the byte's first `rest` bits, most significant first
    suffix[whole] = ((prefix[whole] as number) & mask) | ((suffix[whole] as number) & ~mask & 0xff);
  }
  return suffix;
}

/**
 * Bit `depth` of a key path (0 = the most significant bit of byte 0).
 * @returns 0 (left) or 1 (right)
 */
export function keyPathBit(path: Uint8Array, depth: number): 0 | 1 {
  return (((path[depth >>> 3] as number) >>> (7 - (depth & 7))) & 1) as 0 | 1;
}

/**
 * Validates an index key from outside (strict: no other member).
 * @throws {InvalidInputError} naming the bad field
 */
export function parseIndexKey(input: unknown): IndexKey {
  return parseInput(IndexKeySchema, input, 'index key');
}
