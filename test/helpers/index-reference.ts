import { createHash } from 'node:crypto';

/**
 * The verifiable index written from docs/verifiable-index.md alone, with plain node:crypto and no
 * code of shared/: a naive reference that recomputes the whole root from every entry, for the
 * property tests and the vectors. Handles the entries Reseal writes: objects of ASCII-keyed
 * strings, safe integers and `null`.
 */

/** An entry as the spec writes it: `{ kind, lineageId[, residualId], value }`. */
export type ReferenceEntry = {
  kind: 'lineage' | 'residual';
  lineageId: string;
  residualId?: string;
  value: object;
};

/** RFC 8785 text of an object of strings, safe integers, `null` and such objects (ASCII keys sorted). */
export function referenceJcs(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const object = value as Record<string, unknown>;
  return `{${Object.keys(object)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${referenceJcs(object[k])}`)
    .join(',')}}`;
}

const tagged = (tag: string, ...parts: (Uint8Array | string)[]) => {
  const h = createHash('sha256').update(`${tag}\0`, 'latin1');
  for (const part of parts) h.update(part);
  return h.digest();
};

const bit = (path: Buffer, depth: number) => ((path[depth >> 3] as number) >> (7 - (depth % 8))) & 1;

/** `{ v: 1, kind, lineageId[, residualId] }`. */
const keyObject = (e: { kind: string; lineageId: string; residualId?: string }) =>
  e.kind === 'lineage'
    ? { v: 1, kind: e.kind, lineageId: e.lineageId }
    : { v: 1, kind: e.kind, lineageId: e.lineageId, residualId: e.residualId };

/** P of docs/verifiable-index.md, "Keys": the leading bits a residual id's path takes from its lineage's. */
export const REFERENCE_SHARED_PATH_BITS = 16;

/** The hash of a key's object: `SHA-256("reseal/v1/index-key" || 0x00 || JCS(key object))`. */
export const referenceKeyHash = (e: { kind: string; lineageId: string; residualId?: string }): Buffer =>
  tagged('reseal/v1/index-key', Buffer.from(referenceJcs(keyObject(e)), 'utf8'));

/**
 * The key path of a key: a lineage's key hash; for a residual id, bit by bit, bits 0 … P − 1 of
 * its lineage's key hash and bits P … 255 of its own.
 */
export const referenceKeyPath = (e: { kind: string; lineageId: string; residualId?: string }): Buffer => {
  const own = referenceKeyHash(e);
  if (e.kind === 'lineage') return own;
  const lineage = referenceKeyHash({ kind: 'lineage', lineageId: e.lineageId });
  const path = Buffer.alloc(32);
  for (let i = 0; i < 256; i += 1) {
    const b = bit(i < REFERENCE_SHARED_PATH_BITS ? lineage : own, i);
    path[i >> 3] = (path[i >> 3] as number) | (b << (7 - (i % 8)));
  }
  return path;
};

/** The entry digest. */
export const referenceEntryDigest = (e: ReferenceEntry): Buffer =>
  tagged('reseal/v1/index-entry', Buffer.from(referenceJcs({ ...keyObject(e), value: e.value }), 'utf8'));

/** The empty-subtree hash. */
export const REFERENCE_EMPTY = tagged('reseal/v1/index-empty');

/** The leaf hash of an entry. */
export const referenceLeafHash = (e: ReferenceEntry): Buffer =>
  tagged('reseal/v1/index-leaf', referenceKeyPath(e), referenceEntryDigest(e));

/**
 * The root of the index holding `entries` (one per key), by the recursive definition: an empty
 * subtree is the empty hash, a subtree of one leaf is that leaf, any other subtree is the node
 * hash of its two halves.
 */
export function referenceRoot(entries: readonly ReferenceEntry[]): Buffer {
  const leaves = entries.map((e) => ({ path: referenceKeyPath(e), hash: referenceLeafHash(e) }));
  const subtree = (items: typeof leaves, depth: number): Buffer => {
    if (items.length === 0) return REFERENCE_EMPTY;
    if (items.length === 1) return (items[0] as (typeof leaves)[number]).hash;
    const left = items.filter((i) => bit(i.path, depth) === 0);
    const right = items.filter((i) => bit(i.path, depth) === 1);
    return tagged('reseal/v1/index-node', subtree(left, depth + 1), subtree(right, depth + 1));
  };
  return subtree(leaves, 0);
}

/**
 * Checks a binary proof (docs/verifiable-index.md, "Binary layout") as another language would:
 * decode, hash the node the path ends at (the key's leaf for presence, the empty hash or the other
 * leaf for absence), fold the siblings up along the key's path, compare with the root.
 *
 * @param entry - the entry for a proof of presence, `null` for absence
 * @returns whether the proof holds (`false` for any malformed input)
 */
export function referenceCheck(
  root: Buffer,
  key: { kind: string; lineageId: string; residualId?: string },
  entry: ReferenceEntry | null,
  proof: Buffer,
): boolean {
  if (proof.length < 4 || proof[0] !== 1) return false;
  const kind = proof[1] as number;
  const depth = proof.readUInt16BE(2);
  if (kind > 2 || depth > 256 || (kind === 0) !== (entry !== null)) return false;
  const bitmap = proof.subarray(4, 4 + Math.ceil(depth / 8));
  let at = 4 + bitmap.length;
  const siblings: Buffer[] = [];
  for (let i = 0; i < bitmap.length * 8; i += 1) {
    const set = bit(bitmap, i) === 1;
    if (i >= depth) {
      if (set) return false;
      continue;
    }
    if (set) {
      siblings.push(proof.subarray(at, at + 32));
      at += 32;
    } else siblings.push(REFERENCE_EMPTY);
  }
  const path = referenceKeyPath(key);
  let h: Buffer = REFERENCE_EMPTY;
  if (kind === 0) h = referenceLeafHash(entry as ReferenceEntry);
  if (kind === 2) {
    const other = proof.subarray(at, at + 32);
    const digest = proof.subarray(at + 32, at + 64);
    at += 64;
    if (other.equals(path)) return false;
    for (let i = 0; i < depth; i += 1) if (bit(other, i) !== bit(path, i)) return false;
    h = tagged('reseal/v1/index-leaf', other, digest);
  }
  if (at !== proof.length) return false;
  for (let i = depth - 1; i >= 0; i -= 1) {
    const s = siblings[i] as Buffer;
    h = bit(path, i) === 0 ? tagged('reseal/v1/index-node', h, s) : tagged('reseal/v1/index-node', s, h);
  }
  return h.equals(root);
}
