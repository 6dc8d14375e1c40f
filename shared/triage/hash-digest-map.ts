import { createHash, type Hash, hash } from 'node:crypto';
import { canonicalString } from '../canonical/canonical-json';
import type { HexDigest } from '../canonical/digest';
import { isAsciiMapKey, isPlainAsciiMapKey } from '../schemas/is-ascii-map-key';
import { isPlainRecord } from '../schemas/is-plain-record';

/**
 * Called by {@link acceptManifestAwaitingBaseline} with each member of `baselineKeyHashes` once it is
 * checked (keys in sorted order, each value a 64-character string), so that triage compares the
 * current environment in the same pass; `false` stops the pass (the result is then `null`).
 * `plainKey`: the key passed `isPlainAsciiMapKey` (its JSON text is `"${key}"`), so the visitor
 * need not test it again.
 */
export type BaselineVisitor = (key: string, digest: string, plainKey: boolean) => boolean;

/**
 * What a SHA-256 hashes around the canonical text of a key → digest map: the text before it
 * (domain tag, NUL, the enclosing members up to the map) and after it.
 */
export type HashFrame = readonly [before: string, after: string];

/** The digests {@link hashDigestMap} took, one per frame, and the map's number of keys. */
export interface HashedDigestMap {
  readonly digests: HexDigest[];
  readonly size: number;
}

/**
 * Members written before the text so far is handed to the hashes: the text of a large map is
 * never held whole (100,000 keys make 8.6 MB, whose rope of concatenations the garbage collector
 * copied; hashing it in pieces of about 22 kB halved the cost per key at that size). A map of
 * fewer members is hashed in one call per frame.
 */
const MEMBERS_PER_UPDATE = 256;

/**
 * SHA-256 of the RFC 8785 text of a key → hex digest map inside each frame, in one pass over the
 * map: `canonicalStringMap` with the digests written as they are (lowercase hex needs no
 * escaping, RFC 8785 §3.2.2.2), hashed as it is written. With `check`, the map is first taken
 * for untrusted: `null` unless it is a plain object whose keys are printable-ASCII map keys and
 * whose values are 64-character strings (the hex pattern is left to the caller); `visit` sees each
 * member written, and stops the pass with `false` (then `null`). Pieces end at a
 * member boundary, so their UTF-8 bytes (a key may be any well-formed text) are those of the
 * whole text.
 */
export function hashDigestMap(
  map: unknown,
  check: boolean,
  frames: readonly HashFrame[],
  visit?: BaselineVisitor,
): HashedDigestMap | null {
  if (check && !isPlainRecord(map)) return null;
  const record = map as Readonly<Record<string, unknown>>;
  const keys = Object.keys(record);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = (keys[i - 1] as string) < (keys[i] as string);
  if (!sorted) keys.sort();
  let hashes: Hash[] | null = null;
  let text = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const value = record[key];
    if (check && (typeof value !== 'string' || value.length !== 64)) return null;
    const plainKey = isPlainAsciiMapKey(key);
    if (plainKey) text += `${i === 0 ? '' : ','}"${key}":"${value}"`;
    else if (check && !isAsciiMapKey(key)) return null;
    else text += `${i === 0 ? '' : ','}${canonicalString(key)}:"${value}"`;
    if (visit !== undefined && !visit(key, value as string, plainKey)) return null;
    if (i % MEMBERS_PER_UPDATE === MEMBERS_PER_UPDATE - 1) {
      hashes ??= frames.map(([before]) => createHash('sha256').update(before));
      for (const sha of hashes) sha.update(text);
      text = '';
    }
  }
  text += '}';
  const digests =
    hashes === null
      ? frames.map(([before, after]) => hash('sha256', `${before}${text}${after}`, 'hex'))
      : hashes.map((sha, j) =>
          sha
            .update(text)
            .update((frames[j] as HashFrame)[1])
            .digest('hex'),
        );
  return { digests, size: keys.length };
}
