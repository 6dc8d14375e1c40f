import { z } from 'zod';
import { HEX_DIGEST_PATTERN } from '../canonical/digest';
import { FORMAT_VERSION } from '../canonical/hash-domain';
import { IndexProofFormatError } from '../errors';
import { INDEX_HASH_BYTES, isEmptyIndexHash } from './index-hash';
import { KEY_PATH_BITS } from './index-key';

/**
 * A proof about one key of the verifiable index (docs/verifiable-index.md, "Proofs"): the
 * siblings along the key's path from the root down to where the path ends, and what it ends at.
 *
 * - `presence`: the key's own leaf (the verifier hashes it from the entry it was given);
 * - `absence` with `leaf: null`: an empty subtree;
 * - `absence` with `leaf`: another key's leaf, whose key path shares the first `siblings.length`
 *   bits with the key's (the leaf shortcut: a subtree holding one leaf is that leaf).
 *
 * `siblings[i]` is the hash of the sibling at depth `i + 1` (top-down), `null` for an empty subtree.
 */
export interface IndexProof {
  readonly kind: 'presence' | 'absence';
  readonly siblings: readonly (Uint8Array | null)[];
  /** The other key's leaf that ends an absence path, or `null`. */
  readonly leaf: { readonly keyPath: Uint8Array; readonly entryDigest: Uint8Array } | null;
}

/** Binary layout version, the first byte of every encoded proof. */
export const INDEX_PROOF_VERSION = 1;

/** Second byte of an encoded proof. */
export const IndexProofKindByte = { PRESENCE: 0, ABSENCE_EMPTY: 1, ABSENCE_LEAF: 2 } as const;

const HEADER_BYTES = 4;

/**
 * Encodes a proof in its binary layout (docs/verifiable-index.md, "Binary layout"):
 *
 * ```
 * u8 version (1) | u8 kind (0 presence, 1 absence at an empty subtree, 2 absence at another leaf)
 * | u16 big-endian depth d (0..256) | ⌈d/8⌉ bytes bitmap, bit i (most significant first) set when
 * sibling i is not empty, padding bits 0 | 32 bytes per non-empty sibling, top-down
 * | kind 2 only: 32 bytes key path, 32 bytes entry digest of the other leaf
 * ```
 *
 * @throws {IndexProofFormatError} for a proof that has no encoding (an unknown kind, a depth
 *   beyond 256, a hash not 32 bytes, a sibling spelled as the empty hash, a presence with a leaf)
 */
export function encodeIndexProof(proof: IndexProof): Uint8Array {
  assertIndexProofWellFormed(proof);
  const depth = proof.siblings.length;
  const present = proof.siblings.filter((s): s is Uint8Array => s !== null);
  const bitmapBytes = Math.ceil(depth / 8);
  const out = new Uint8Array(
    HEADER_BYTES + bitmapBytes + INDEX_HASH_BYTES * present.length + (proof.leaf ? 2 * INDEX_HASH_BYTES : 0),
  );
  out[0] = INDEX_PROOF_VERSION;
  out[1] = kindByte(proof);
  out[2] = depth >>> 8;
  out[3] = depth & 0xff;
  let at = HEADER_BYTES + bitmapBytes;
  proof.siblings.forEach((sibling, i) => {
    if (sibling === null) return;
    const byte = HEADER_BYTES + (i >>> 3);
    out[byte] = (out[byte] as number) | (0x80 >>> (i & 7));
    out.set(sibling, at);
    at += INDEX_HASH_BYTES;
  });
  if (proof.leaf) {
    out.set(proof.leaf.keyPath, at);
    out.set(proof.leaf.entryDigest, at + INDEX_HASH_BYTES);
  }
  return out;
}

/**
 * Decodes the binary layout of {@link encodeIndexProof}, strictly: one encoding per proof.
 * @throws {IndexProofFormatError} naming the part that is wrong
 */
export function decodeIndexProof(bytes: Uint8Array): IndexProof {
  if (!(bytes instanceof Uint8Array)) throw new IndexProofFormatError('', 'expected bytes');
  if (bytes.byteLength < HEADER_BYTES)
    throw new IndexProofFormatError('', `${bytes.byteLength} bytes, fewer than the 4-byte header`);
  if (bytes[0] !== INDEX_PROOF_VERSION) throw new IndexProofFormatError('version', `unknown version ${bytes[0]}`);
  const kind = bytes[1] as number;
  if (kind > IndexProofKindByte.ABSENCE_LEAF) throw new IndexProofFormatError('kind', `unknown kind ${kind}`);
  const depth = ((bytes[2] as number) << 8) | (bytes[3] as number);
  if (depth > KEY_PATH_BITS) throw new IndexProofFormatError('depth', `depth ${depth} is beyond ${KEY_PATH_BITS}`);
  const bitmapBytes = Math.ceil(depth / 8);
  if (bytes.byteLength < HEADER_BYTES + bitmapBytes) throw new IndexProofFormatError('bitmap', 'truncated');
  const set = (i: number) => ((bytes[HEADER_BYTES + (i >>> 3)] as number) & (0x80 >>> (i & 7))) !== 0;
  for (let i = depth; i < bitmapBytes * 8; i += 1) {
    if (set(i)) throw new IndexProofFormatError('bitmap', `padding bit ${i} is set`);
  }
  let at = HEADER_BYTES + bitmapBytes;
  const take = (what: string): Uint8Array => {
    if (bytes.byteLength < at + INDEX_HASH_BYTES) throw new IndexProofFormatError(what, 'truncated');
    const part = bytes.slice(at, at + INDEX_HASH_BYTES);
    at += INDEX_HASH_BYTES;
    return part;
  };
  const siblings: (Uint8Array | null)[] = [];
  for (let i = 0; i < depth; i += 1) siblings.push(set(i) ? take(`siblings.${i}`) : null);
  const leaf =
    kind === IndexProofKindByte.ABSENCE_LEAF
      ? { keyPath: take('leaf.keyPath'), entryDigest: take('leaf.entryDigest') }
      : null;
  if (at !== bytes.byteLength) throw new IndexProofFormatError('', `${bytes.byteLength - at} bytes after the proof`);
  const proof: IndexProof = { kind: kind === IndexProofKindByte.PRESENCE ? 'presence' : 'absence', siblings, leaf };
  assertWellFormed(proof);
  return proof;
}

const HexHash = z.string().regex(HEX_DIGEST_PATTERN, 'expected 64 lowercase hex characters');

/**
 * The JSON form of a proof (docs/verifiable-index.md, "JSON form"): hashes as lowercase hex,
 * `null` for an empty sibling; the same content as the binary layout.
 */
export const IndexProofJsonSchema = z.strictObject({
  v: z.literal(FORMAT_VERSION),
  kind: z.enum(['presence', 'absence']),
  siblings: z.array(HexHash.nullable()).max(KEY_PATH_BITS),
  leaf: z.strictObject({ keyPath: HexHash, entryDigest: HexHash }).nullable(),
});

/** A proof's JSON form. */
export type IndexProofJson = z.infer<typeof IndexProofJsonSchema>;

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytesOf = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));

/** The JSON form of a proof. */
export function indexProofToJson(proof: IndexProof): IndexProofJson {
  return {
    v: FORMAT_VERSION,
    kind: proof.kind,
    siblings: proof.siblings.map((s) => (s === null ? null : hex(s))),
    leaf: proof.leaf ? { keyPath: hex(proof.leaf.keyPath), entryDigest: hex(proof.leaf.entryDigest) } : null,
  };
}

/**
 * Reads a proof's JSON form, strictly (the same rules as the binary layout).
 * @throws {IndexProofFormatError} naming the bad part
 */
export function indexProofFromJson(input: unknown): IndexProof {
  const parsed = IndexProofJsonSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new IndexProofFormatError(issue?.path.join('.') ?? '', issue?.message ?? 'invalid', { cause: parsed.error });
  }
  const { kind, siblings, leaf } = parsed.data;
  const proof: IndexProof = {
    kind,
    siblings: siblings.map((s) => (s === null ? null : bytesOf(s))),
    leaf: leaf ? { keyPath: bytesOf(leaf.keyPath), entryDigest: bytesOf(leaf.entryDigest) } : null,
  };
  assertWellFormed(proof);
  return proof;
}

function kindByte(proof: IndexProof): number {
  if (proof.kind === 'presence') return IndexProofKindByte.PRESENCE;
  return proof.leaf ? IndexProofKindByte.ABSENCE_LEAF : IndexProofKindByte.ABSENCE_EMPTY;
}

const isHash = (h: unknown): h is Uint8Array => h instanceof Uint8Array && h.byteLength === INDEX_HASH_BYTES;

/**
 * Checks a proof that arrives already decoded (an {@link IndexProof} built by the caller, not read
 * from bytes or JSON) against the rules every encoded proof meets, so that a proof holds or fails
 * the same whatever form it came in (docs/verifiable-index.md, "Proofs": one encoding per proof).
 *
 * @param proof - anything claimed to be an {@link IndexProof}
 * @throws {IndexProofFormatError} naming the part that is wrong: not a proof object, an unknown
 *   kind, a depth beyond 256, a sibling not 32 bytes or spelled as the empty hash, a presence with
 *   a leaf, a leaf whose key path or entry digest is not 32 bytes
 */
export function assertIndexProofWellFormed(proof: unknown): asserts proof is IndexProof {
  if (typeof proof !== 'object' || proof === null) throw new IndexProofFormatError('', 'expected a proof object');
  const { kind, siblings, leaf } = proof as Record<string, unknown>;
  if (kind !== 'presence' && kind !== 'absence')
    throw new IndexProofFormatError('kind', 'expected presence or absence');
  if (!Array.isArray(siblings)) throw new IndexProofFormatError('siblings', 'expected an array');
  if (leaf !== null && typeof leaf !== 'object') {
    throw new IndexProofFormatError('leaf', 'expected an object or null');
  }
  assertWellFormed(proof as IndexProof);
}

/** The rules every proof meets, whichever form it came in. */
function assertWellFormed(proof: IndexProof): void {
  if (proof.siblings.length > KEY_PATH_BITS) {
    throw new IndexProofFormatError('depth', `depth ${proof.siblings.length} is beyond ${KEY_PATH_BITS}`);
  }
  // An index loop, not forEach: a hole in a caller's array is refused, not skipped.
  for (let i = 0; i < proof.siblings.length; i += 1) {
    const s = proof.siblings[i];
    if (s === null) continue;
    if (!isHash(s)) throw new IndexProofFormatError(`siblings.${i}`, 'not 32 bytes');
    // One encoding per proof: an empty sibling is spelled as absent, never as the empty hash.
    if (isEmptyIndexHash(s)) throw new IndexProofFormatError(`siblings.${i}`, 'the empty-subtree hash, spelled out');
  }
  if (proof.kind === 'presence' && proof.leaf !== null) {
    throw new IndexProofFormatError('leaf', 'a proof of presence carries no other leaf');
  }
  if (proof.leaf && !(isHash(proof.leaf.keyPath) && isHash(proof.leaf.entryDigest))) {
    throw new IndexProofFormatError('leaf', 'key path and entry digest must be 32 bytes each');
  }
}
