import type { HexDigest } from '../canonical/digest';
import { hashCanonical } from '../canonical/hash-canonical';
import { FORMAT_VERSION, HashDomain } from '../canonical/hash-domain';
import { DEFAULT_MAX_CLOCK_SKEW_SECONDS } from '../guard/policy';
import type { RecordRef } from '../schemas/record-ref';
import { MAX_SIGNATURE_FUTURE_MS } from './signature-age';

/**
 * How long before a write's `signedAtMs` a record of that same signed write can have been sealed,
 * ms: the sealer refuses a signature more than {@link MAX_SIGNATURE_FUTURE_MS} ahead of the guard's
 * acceptance and an acceptance more than the guard's 5 s clock skew ahead of its own clock, and
 * seals after both. A search for a replay of a signed write (the sealer's past the indexed head,
 * `publish --wait`'s in the signed log) reads back to `signedAtMs` less this, no further
 * (docs/sealing.md, "The index floor").
 */
export const REPLAY_SEARCH_MARGIN_MS = MAX_SIGNATURE_FUTURE_MS + DEFAULT_MAX_CLOCK_SKEW_SECONDS * 1000;

/**
 * What a writer signs (docs/authorship.md, "Signed writes"): the write without its signature,
 * named by the digests a format-2 record header holds, so a verifier re-checks the signature
 * offline from a stored record without serializing the payload again.
 */
export interface SignedWriteFields {
  readonly lineageId: string;
  readonly residualId: string;
  readonly sessionId: string;
  readonly generationEpoch: number;
  readonly authority: string;
  readonly payloadHash: HexDigest;
  readonly manifestDigest: HexDigest;
  readonly variablesDigest: HexDigest;
  readonly boundaryDigest: HexDigest;
  readonly supersedes: RecordRef | null;
  /** `policyDigest` of the policy the write sets (inception, rotation, recovery), or `null`. */
  readonly policyDigest: HexDigest | null;
  readonly keyId: string;
  /** Base64 of the writer's raw 32-byte Ed25519 public key. */
  readonly publicKey: string;
  readonly signedAtMs: number;
}

/**
 * The 32-byte message a writer signs: `SHA-256("reseal/v1/signed-write" || 0x00 || JCS({ v: 1,
 * lineageId, residualId, sessionId, generationEpoch, authority, payloadHash, manifestDigest,
 * variablesDigest, boundaryDigest, supersedes, policyDigest, keyId, publicKey, signedAtMs }))`.
 *
 * @throws {CanonicalizationError} when a field is not exactly representable as JSON
 */
export function signedWriteDigest(fields: SignedWriteFields): Uint8Array {
  const message = {
    v: FORMAT_VERSION,
    lineageId: fields.lineageId,
    residualId: fields.residualId,
    sessionId: fields.sessionId,
    generationEpoch: fields.generationEpoch,
    authority: fields.authority,
    payloadHash: fields.payloadHash,
    manifestDigest: fields.manifestDigest,
    variablesDigest: fields.variablesDigest,
    boundaryDigest: fields.boundaryDigest,
    supersedes:
      fields.supersedes === null ? null : { seq: fields.supersedes.seq, recordHash: fields.supersedes.recordHash },
    policyDigest: fields.policyDigest,
    keyId: fields.keyId,
    publicKey: fields.publicKey,
    signedAtMs: fields.signedAtMs,
  };
  return Uint8Array.from(Buffer.from(hashCanonical(HashDomain.SIGNED_WRITE, message), 'hex'));
}
