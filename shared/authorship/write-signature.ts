import { InvalidInputError } from '../errors';
import type { WriterSigner } from '../ports/writer-signer';
import { parseInput } from '../schemas/parse';
import {
  type ResidualWriteRequest,
  ResidualWriteRequestSchema,
  type UnsignedWriteRequest,
} from '../write/write-request';
import { requestSigningDigest, type WriteBodyDigests } from './request-signing-digest';
import { signatureAgeProblem } from './signature-age';
import { verifyWriterSignature } from './verify-writer-signature';

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
