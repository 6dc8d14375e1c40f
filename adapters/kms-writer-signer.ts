import type { WriterSigner } from '../shared/ports/writer-signer';
import { fetchPublicKey, type KMSSend } from './fetch-public-key';
import { KMSNoteSigner } from './kms-note-signer';

/**
 * {@link WriterSigner} over a KMS `ECC_NIST_EDWARDS25519` / `SIGN_VERIFY` key (docs/authorship.md,
 * "Signed writes"): `Sign` with `MessageType: RAW` and `ED25519_SHA_512` over the 32-byte
 * signed-write digest, so IAM can grant `kms:Sign` per agent or tenant. The public key is read
 * once (`GetPublicKey`) by {@link KmsWriterSigner.create}; the key id is the ARN given.
 *
 * @example const signer = await KmsWriterSigner.create(new KMSClient({}), 'arn:aws:kms:…:key/…')
 */
export class KmsWriterSigner implements WriterSigner {
  readonly keyId: string;
  readonly publicKey: string;
  readonly #signer: KMSNoteSigner;

  private constructor(keyId: string, publicKey: Uint8Array, signer: KMSNoteSigner) {
    this.keyId = keyId;
    this.publicKey = Buffer.from(publicKey).toString('base64');
    this.#signer = signer;
  }

  /**
   * Reads the key's public key once and returns a signer for it.
   * @param keyId - the key's ARN (recorded as the writer's `keyId`, at most 2,048 characters)
   * @throws {SignerUnavailableError} when KMS refuses or the key is not an Ed25519 signing key
   */
  static async create(client: KMSSend, keyId: string): Promise<KmsWriterSigner> {
    const publicKey = await fetchPublicKey(client, keyId);
    return new KmsWriterSigner(keyId, publicKey, new KMSNoteSigner(client, keyId, 'writer'));
  }

  /**
   * The 64-byte Ed25519 signature of the 32-byte `digest` (one KMS `Sign`).
   * @throws {SignerUnavailableError} when KMS refuses (disabled key, no `kms:Sign` right, throttling)
   */
  sign(digest: Uint8Array): Promise<Uint8Array> {
    return this.#signer.sign(digest);
  }
}
