import { canonicalJson } from '../canonical/canonical-json';
import { describeError } from '../describe-error';
import { InvalidInputError } from '../errors';
import type { IndexNode } from '../ports/index-node-store';
import { hashKey } from './hash-key';
import { entryDigest, entryKey, type IndexEntry, parseIndexEntry } from './index-entry';
import { emptyIndexHash, INDEX_HASH_BYTES, indexLeafHash, indexNodeHash, isEmptyIndexHash } from './index-hash';
import { indexKeyPath } from './index-key';

/**
 * Index tiles (docs/verifiable-index.md, "Tiles"): the unit the node store keeps. A tile is a
 * subtree of the index cut off after a few levels, stored under its root's hash, as the C2SP
 * tlog-tiles store a Merkle tree's hashes in tiles rather than one per object. Below the cut, and
 * wherever the writer did not hold a node's content, the tile holds a reference: the hash of a
 * node stored as the root of a tile of its own. Only storage changes: every node hash, every root
 * and every proof are those of docs/verifiable-index.md, "Hashing".
 *
 * ```
 * tile = 0x01 (version) || node          -- the root: a leaf or an interior node
 * node = 0x00 || hash(32)                -- a reference: a non-empty node stored as a tile's root
 *      | 0x01                            -- the empty subtree
 *      | 0x02 || n(2, big-endian) || JCS(entry)(n bytes, UTF-8)   -- a leaf: its entry, RFC 8785
 *      | 0x03 || node || node            -- an interior node: left, then right
 * ```
 */

/** The tile layout's version byte. */
export const INDEX_TILE_VERSION = 1;

/**
 * Levels per tile the DynamoDB store writes: a tile of 4 levels holds at most 16 references
 * (544 bytes), so a tile of the upper, full levels stays one 1 KB write unit (bench/index.ts).
 */
export const INDEX_TILE_LEVELS = 4;

/** The most levels a decoded tile may span: a key path's 256 bits, and one for the leaf. */
const MAX_TILE_DEPTH = 257;

const REFERENCE = 0x00;
const EMPTY = 0x01;
const LEAF = 0x02;
const INTERIOR = 0x03;

/** A node read out of a tile and hashed; a leaf comes with its key path and entry digest. */
export type CheckedIndexNode =
  | {
      readonly kind: 'leaf';
      readonly entry: IndexEntry;
      readonly keyPath: Uint8Array;
      readonly entryDigest: Uint8Array;
    }
  | { readonly kind: 'interior'; readonly left: Uint8Array; readonly right: Uint8Array };

/** A decoded tile: the hash its root has, and every node it spells out, each under its own hash (latin1 key). */
export interface DecodedIndexTile {
  /** The root's hash, computed from the tile's content (32 bytes): compare it with the address read. */
  readonly root: Uint8Array;
  /** The nodes the tile spells out (references excluded), keyed by their hash as a latin1 string. */
  readonly nodes: ReadonlyMap<string, CheckedIndexNode>;
}

/**
 * Encodes a tile rooted at `root`: `content(h)` gives the node stored under `h` when the writer
 * holds it and the tile should spell it out (`undefined`: a reference). Pure.
 *
 * @param levels - spell out at most this many levels (≥ 1); the nodes at that depth below the
 *   root are references
 * @throws {InvalidInputError} when the root is empty or its content is not held
 */
export function encodeIndexTile(
  root: Uint8Array,
  content: (hash: Uint8Array) => IndexNode | undefined,
  levels: number,
): Uint8Array {
  const parts: Uint8Array[] = [Uint8Array.of(INDEX_TILE_VERSION)];
  const rootNode = isEmptyIndexHash(root) ? undefined : content(root);
  if (rootNode === undefined) {
    throw new InvalidInputError('index tile', [{ path: 'root', message: 'a tile root is a held, non-empty node' }]);
  }
  const put = (hash: Uint8Array, depth: number): void => {
    if (isEmptyIndexHash(hash)) {
      parts.push(Uint8Array.of(EMPTY));
      return;
    }
    const node = depth < levels ? content(hash) : undefined;
    if (node === undefined) {
      parts.push(Uint8Array.of(REFERENCE), hash);
      return;
    }
    putNode(node, depth);
  };
  const putNode = (node: IndexNode, depth: number): void => {
    if (node.kind === 'leaf') {
      const json = Buffer.from(canonicalJson(node.entry), 'utf8');
      if (json.byteLength > 0xffff) {
        throw new InvalidInputError('index tile', [{ path: 'leaf', message: 'an entry is at most 65,535 bytes' }]);
      }
      parts.push(Uint8Array.of(LEAF, json.byteLength >> 8, json.byteLength & 0xff), json);
      return;
    }
    parts.push(Uint8Array.of(INTERIOR));
    put(node.left, depth + 1);
    put(node.right, depth + 1);
  };
  putNode(rootNode, 0);
  return Uint8Array.from(Buffer.concat(parts));
}

/** The one-level tile of a single node: a leaf, or an interior node whose non-empty children are references. */
export function encodeIndexNodeTile(node: IndexNode): Uint8Array {
  const hash = node.kind === 'leaf' ? indexLeafHashOf(node.entry) : indexNodeHash(node.left, node.right);
  return encodeIndexTile(hash, (h) => (Buffer.compare(h, hash) === 0 ? node : undefined), 1);
}

const indexLeafHashOf = (entry: IndexEntry) => indexLeafHash(indexKeyPath(entryKey(entry)), entryDigest(entry));

/**
 * Decodes a tile and hashes every node in it, bottom-up. Strict: one encoding per content, so
 * refused are another version, a root that is a reference or empty, a reference spelled as the
 * empty hash, an entry that is not a valid index entry ({@link parseIndexEntry}) in its RFC 8785
 * form, a leaf longer than 65,535 bytes, trailing or
 * missing bytes, and a tile deeper than a key path. Pure.
 *
 * @throws {InvalidInputError} naming the offset of what is wrong
 */
export function decodeIndexTile(bytes: Uint8Array): DecodedIndexTile {
  const fail = (offset: number, message: string): never => {
    throw new InvalidInputError('index tile', [{ path: `${offset}`, message }]);
  };
  const nodes = new Map<string, CheckedIndexNode>();
  let at = 1;
  if (bytes.byteLength < 2 || bytes[0] !== INDEX_TILE_VERSION) fail(0, `expected version ${INDEX_TILE_VERSION}`);
  const read = (depth: number): Uint8Array => {
    if (depth > MAX_TILE_DEPTH) fail(at, 'deeper than a key path');
    const tag = bytes[at];
    const start = at;
    at += 1;
    switch (tag) {
      case REFERENCE: {
        if (depth === 0) fail(start, 'a tile root is a leaf or an interior node, not a reference');
        if (at + INDEX_HASH_BYTES > bytes.byteLength) fail(start, 'a reference is 32 bytes');
        const hash = Uint8Array.from(bytes.subarray(at, at + INDEX_HASH_BYTES));
        at += INDEX_HASH_BYTES;
        if (isEmptyIndexHash(hash)) fail(start, 'the empty subtree is 0x01, not a reference');
        return hash;
      }
      case EMPTY:
        if (depth === 0) fail(start, 'a tile root is a leaf or an interior node, not empty');
        return emptyIndexHash();
      case LEAF: {
        if (at + 2 > bytes.byteLength) fail(start, 'a leaf has a 2-byte length');
        const length = ((bytes[at] as number) << 8) | (bytes[at + 1] as number);
        at += 2;
        if (at + length > bytes.byteLength) fail(start, 'the leaf is cut short');
        let entry: IndexEntry;
        let text: string;
        try {
          // `ignoreBOM`: a byte-order mark stays in the text, so the RFC 8785 check refuses it (one encoding).
          text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes.subarray(at, at + length));
          entry = parseIndexEntry(JSON.parse(text));
        } catch (error) {
          return fail(start, `the leaf is no index entry (${describeError(error)})`);
        }
        if (canonicalJson(entry) !== text) fail(start, 'the leaf entry is not in its RFC 8785 form');
        at += length;
        const keyPath = indexKeyPath(entryKey(entry));
        const digest = entryDigest(entry);
        const hash = indexLeafHash(keyPath, digest);
        nodes.set(hashKey(hash), { kind: 'leaf', entry, keyPath, entryDigest: digest });
        return hash;
      }
      case INTERIOR: {
        const left = read(depth + 1);
        const right = read(depth + 1);
        const hash = indexNodeHash(left, right);
        nodes.set(hashKey(hash), { kind: 'interior', left, right });
        return hash;
      }
      default:
        return fail(start, tag === undefined ? 'the tile is cut short' : `unknown node tag ${tag}`);
    }
  };
  const root = read(0);
  if (at !== bytes.byteLength) fail(at, 'bytes after the root node');
  return { root, nodes };
}
