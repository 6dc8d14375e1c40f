import type { HexDigest } from '../canonical/digest';
import { payloadHash } from '../seal/payload-hash';
import { variablesDigest } from '../seal/variables-digest';
import { manifestDigest } from '../triage/manifest-digest';
import type { UnsignedWriteRequest } from '../write/write-request';
import { boundaryDigest } from './boundary-digest';
import { policyDigestOrNull } from './policy-digest-or-null';
import { signedWriteDigest } from './signed-write';
import type { WriterBlock } from './writer-block';

/** Digests of a write's bodies, when the caller computed them already (the sealer's boundary). */
export interface WriteBodyDigests {
  readonly payloadHash: HexDigest;
  readonly manifestDigest: HexDigest;
}

/**
 * The signed-write digest of a request (docs/authorship.md, "Signed writes"), for the writer
 * block `signer` (key id, public key, time): its bodies digested here unless `digests` are given.
 *
 * @throws {CanonicalizationError} when a body is not exactly representable as JSON
 */
export function requestSigningDigest(
  request: UnsignedWriteRequest,
  signer: Pick<WriterBlock, 'keyId' | 'publicKey' | 'signedAtMs'>,
  digests?: WriteBodyDigests,
): Uint8Array {
  return signedWriteDigest({
    lineageId: request.lineageId,
    residualId: request.residualId,
    sessionId: request.sessionId,
    generationEpoch: request.generationEpoch,
    authority: request.authority,
    payloadHash: digests?.payloadHash ?? payloadHash(request.payload),
    manifestDigest: digests?.manifestDigest ?? manifestDigest(request.manifest),
    variablesDigest: variablesDigest(request.variablesUsed),
    boundaryDigest: boundaryDigest(request.boundary, request.declaredImmutableConstants),
    supersedes: request.supersedes ?? null,
    policyDigest: policyDigestOrNull(request.policy),
    keyId: signer.keyId,
    publicKey: signer.publicKey,
    signedAtMs: signer.signedAtMs,
  });
}
