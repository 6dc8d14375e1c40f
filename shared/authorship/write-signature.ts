import type { HexDigest } from '../canonical/digest';
import { InvalidInputError } from '../errors';
import type { WriterSigner } from '../ports/writer-signer';
import { parseInput } from '../schemas/parse';
import { payloadHash, variablesDigest } from '../seal/record-header';
import { manifestDigest } from '../triage/manifest-digest';
import { type ResidualWriteRequest, ResidualWriteRequestSchema } from '../write/write-request';
import { boundaryDigest } from './boundary-digest';
import { policyDigestOrNull } from './policy-digest-or-null';
import { signatureAgeProblem } from './signature-age';
import { signedWriteDigest } from './signed-write';
import { verifyWriterSignature } from './verify-writer-signature';
import type { WriterBlock } from './writer-block';

/** A write request before it is signed: everything but the writer block. */
export type UnsignedWriteRequest = Omit<ResidualWriteRequest, 'writer'>;

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

/**
 * Why a validated write request's writer signature is refused (`WRITER_SIGNATURE_INVALID`), or
 * `null`: the signature must verify over the recomputed signed-write digest, and `signedAtMs`
 * must lie within the age window around `receivedAtMs` (the SQS `SentTimestamp`).
 */
export function writeSignatureProblem(
  request: ResidualWriteRequest,
  receivedAtMs: number,
  digests?: WriteBodyDigests,
): string | null {
  const { writer } = request;
  const digest = requestSigningDigest(request, writer, digests);
  if (!verifyWriterSignature(digest, writer.publicKey, writer.signature)) {
    return `the writer signature does not verify under key ${JSON.stringify(writer.keyId.slice(0, 256))} over this request`;
  }
  return signatureAgeProblem(writer, receivedAtMs);
}

/**
 * Signs a write request: adds the writer block (`signer`'s key id and public key, `nowMs` as
 * `signedAtMs`, the signature over {@link requestSigningDigest}) and validates the result.
 *
 * @throws {InvalidInputError} naming each bad field of the request, or a signer whose signature
 *   is not 64 bytes or does not verify under its own public key
 */
export async function signWriteRequest(
  request: UnsignedWriteRequest,
  signer: WriterSigner,
  nowMs: number,
): Promise<ResidualWriteRequest> {
  const block = { keyId: signer.keyId, publicKey: signer.publicKey, signedAtMs: nowMs };
  const { writer: _ignored, ...unsigned } = request as UnsignedWriteRequest & { writer?: unknown };
  const digest = requestSigningDigest(unsigned, block);
  const signature = Buffer.from(await signer.sign(digest)).toString('base64');
  if (!verifyWriterSignature(digest, signer.publicKey, signature)) {
    throw new InvalidInputError('writer signer', [
      { path: 'signature', message: 'the signer returned a signature that does not verify under its public key' },
    ]);
  }
  return parseInput(
    ResidualWriteRequestSchema,
    { ...unsigned, writer: { ...block, signature } },
    'residual write request',
  );
}
