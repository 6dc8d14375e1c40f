/**
 * Floors: the least work each benchmarked operation could do, timed beside it.
 *
 * - Seal floor: `JSON.stringify` of the payload, the manifest, the variables and the header,
 *   one SHA-256 of each text, one HMAC-SHA-256 of the header text. No validation, no sorting,
 *   no domain tags: what any sealer must at least spend to hash and MAC the same bodies.
 * - Triage floor: per current key, one SHA-256 over (key, value) and one map lookup against the
 *   baseline digest.
 * - Verification floor, per record: the seal floor's four texts and hashes, the HMAC compared to
 *   the stored one, and the link to the previous record checked.
 *
 * Library baselines are the same work with the RFC 8785 text produced by the `canonicalize`
 * package (4.0.0, the library Reseal used before its own serializer) instead of
 * `JSON.stringify`; for triage it is the earlier benchmark's monolithic check, one RFC 8785
 * SHA-256 over the whole environment. A ratio to them reads as "how much more than hashing
 * library-canonicalized bodies".
 */
import { createHmac, hash, type KeyObject, sign, verify } from 'node:crypto';
import canonicalizeLibrary from 'canonicalize';

/** Serializes one body to text: `JSON.stringify` for floors, the RFC 8785 library for baselines. */
export type Serialize = (value: unknown) => string;

/** `JSON.stringify`, refusing values it cannot write (the floor never meets any). */
export const stringify: Serialize = (value) => {
  const text = JSON.stringify(value);
  if (text === undefined) throw new Error('floor input has no JSON text');
  return text;
};

/** The `canonicalize` package (RFC 8785), as the library baselines use it. */
export const libraryCanonical: Serialize = (value) => {
  const text = canonicalizeLibrary(value);
  if (text === undefined) throw new Error('baseline input has no RFC 8785 text');
  return text;
};

/** The four bodies a record's hashes and MAC cover. */
export interface SealParts {
  readonly payload: unknown;
  readonly manifest: unknown;
  readonly variablesUsed: unknown;
  readonly header: unknown;
}

const sha256 = (text: string): string => hash('sha256', text, 'hex');

/**
 * Seal floor: four texts, four SHA-256, one HMAC-SHA-256 (of the header text).
 * @returns the HMAC, base64
 */
export function sealFloor(parts: SealParts, key: Uint8Array, serialize: Serialize = stringify): string {
  sha256(serialize(parts.payload));
  sha256(serialize(parts.manifest));
  sha256(serialize(parts.variablesUsed));
  const header = serialize(parts.header);
  sha256(header);
  return createHmac('sha256', key).update(header).digest('base64');
}

/** What {@link sealerFormatFloor} works on: one `seal-requests` body and the Ed25519 key of the log. */
export interface SealerFormatInput {
  /** The queue message body, JSON text. */
  readonly body: string;
  /** The parsed body's manifest, as the floor's second manifest hash serializes it. */
  readonly manifest: unknown;
  /** A signed-note text of a checkpoint's size. */
  readonly checkpointText: string;
  /** An Ed25519 private key, standing in for the log key in KMS. */
  readonly signingKey: KeyObject;
  /** Its public key, for the sealer's check of the signature. */
  readonly verifyingKey: KeyObject;
}

/**
 * Not the seal floor (that is {@link sealFloor} over the write's bodies) but what this format
 * makes any sealer do on top of it, with no validation either: `JSON.parse` of the queue body,
 * the manifest's second SHA-256 (a write names its manifest by digest and its baseline by the
 * composite seal, two hashes over the same 70 kB map), and the log's one Ed25519 signature per
 * run of writes with the sealer's check of it under the public key. Printed beside the figure,
 * to show how much of the gap to the seal floor the format itself fixes.
 */
export function sealerFormatFloor(parts: SealParts, input: SealerFormatInput, key: Uint8Array): string {
  JSON.parse(input.body);
  sha256(stringify(input.manifest));
  const message = Buffer.from(input.checkpointText);
  const signature = sign(null, message, input.signingKey);
  if (!verify(null, message, input.verifyingKey, signature)) throw new Error('floor signature does not verify');
  return sealFloor(parts, key);
}

/**
 * Triage floor: one SHA-256 over `key NUL value` per current key and a lookup of the key's
 * baseline digest (keys never hold NUL, so the framing is unambiguous).
 * @returns how many keys differ from `baseline`
 */
export function triageFloor(env: Readonly<Record<string, string>>, baseline: ReadonlyMap<string, string>): number {
  let drifted = 0;
  for (const key in env) {
    if (baseline.get(key) !== sha256(`${key}\0${env[key]}`)) drifted++;
  }
  return drifted;
}

/** The earlier benchmark's monolithic baseline: one RFC 8785 (library) SHA-256 of the whole environment. */
export function monolithicLibraryCheck(env: Readonly<Record<string, string>>, sealed: string): boolean {
  return sha256(`reseal/v1/precondition-seal\0${libraryCanonical(env)}`) === sealed;
}

/** A stored record as the verification floor reads it. */
export interface FloorRecord extends SealParts {
  readonly header: { readonly parentRecordHash: string };
  readonly recordHash: string;
  readonly anchor: { readonly mac: string };
}

/**
 * Verification floor over a chain: per record the seal floor's texts and hashes, the HMAC
 * compared with the stored MAC, and the parent link compared with the previous record hash.
 * @returns how many records fail either comparison
 */
export function verifyFloor(
  records: readonly FloorRecord[],
  key: Uint8Array,
  serialize: Serialize = stringify,
): number {
  let failures = 0;
  let previous: string | null = null;
  for (const record of records) {
    const mac = sealFloor(record, key, serialize);
    if (mac !== record.anchor.mac) failures++;
    if (previous !== null && record.header.parentRecordHash !== previous) failures++;
    previous = record.recordHash;
  }
  return failures;
}
