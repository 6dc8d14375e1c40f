import { NoteVerificationError } from '../errors';
import type { NoteSignature } from '../log/signed-note';
import { verifyEd25519 } from '../log/verify-ed25519';
import type { NoteSigner } from '../ports/note-signer';
import { COSIGNATURE_V1_BYTES, cosignatureMessage } from './cosignature';
import { cosignerKeyHash } from './cosigner-key';

/**
 * Cosigns a checkpoint body at `timestamp` with `signer` (its `keyName` is the cosigner name)
 * and returns the signature line's parts. The signature is checked under the signer's public key
 * before it is returned, so a misconfigured signer fails here, not at a client.
 *
 * @throws {InvalidInputError} / {@link NoteFormatError} as {@link cosignatureMessage}
 * @throws {NoteVerificationError} when the signer's signature does not verify
 * @throws what the signer throws (e.g. `SignerUnavailableError`)
 */
export async function cosign(body: string, timestamp: number, signer: NoteSigner): Promise<NoteSignature> {
  const message = cosignatureMessage(body, timestamp);
  const publicKey = await signer.publicKey();
  const keyHash = cosignerKeyHash(signer.keyName, publicKey);
  const signature = await signer.sign(message);
  if (!verifyEd25519(publicKey, message, signature)) {
    throw new NoteVerificationError(signer.keyName, 'the cosigner returned a signature that does not verify');
  }
  const bytes = new Uint8Array(COSIGNATURE_V1_BYTES);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(timestamp), false);
  bytes.set(signature, 8);
  return { name: signer.keyName, keyHash, signature: bytes };
}
