import { SignCommand } from '@aws-sdk/client-kms';
import { SignerUnavailableError } from '../shared/errors';
import type { NoteSigner } from '../shared/ports/note-signer';
import { describeKmsError, ED25519_SIGNING_ALGORITHM, fetchPublicKey, type KMSSend } from './fetch-public-key';

/**
 * {@link NoteSigner} over a KMS `ECC_NIST_EDWARDS25519` / `SIGN_VERIFY` key: `Sign` with
 * `MessageType: RAW` and `ED25519_SHA_512` is plain Ed25519 (RFC 8032) over the note text, which
 * is what C2SP signed-note Ed25519 signatures are. The public key (`GetPublicKey`, SPKI DER) is
 * read once and kept: it names the key in every signature line.
 *
 * @example new KMSNoteSigner(new KMSClient({}), process.env.LOG_KEY_ID, 'reseal/ResealStack')
 */
export class KMSNoteSigner implements NoteSigner {
  readonly keyName: string;
  readonly #client: KMSSend;
  readonly #keyId: string;
  #publicKey: Promise<Uint8Array> | null = null;

  /**
   * @param client - a KMS client
   * @param keyId - key id, ARN or alias of the Ed25519 key
   * @param keyName - the signed-note key name (no space, no `+`)
   */
  constructor(client: KMSSend, keyId: string, keyName: string) {
    this.#client = client;
    this.#keyId = keyId;
    this.keyName = keyName;
  }

  /**
   * The raw 32-byte Ed25519 public key, fetched once (a failed fetch is retried on the next call).
   * @throws {SignerUnavailableError} when KMS refuses, or the key is not an Ed25519 signing key
   */
  publicKey(): Promise<Uint8Array> {
    this.#publicKey ??= fetchPublicKey(this.#client, this.#keyId).catch((error: unknown) => {
      this.#publicKey = null;
      throw error;
    });
    return this.#publicKey;
  }

  /**
   * Ed25519 signature of `message` (at most 4,096 bytes, the KMS `Sign` RAW limit).
   * @throws {SignerUnavailableError} when KMS refuses (disabled key, throttling, unreachable)
   */
  async sign(message: Uint8Array): Promise<Uint8Array> {
    try {
      const out = await this.#client.send(
        new SignCommand({
          KeyId: this.#keyId,
          Message: message,
          MessageType: 'RAW',
          SigningAlgorithm: ED25519_SIGNING_ALGORITHM,
        }),
      );
      if (out.Signature?.byteLength !== 64) {
        throw new SignerUnavailableError(this.#keyId, `Sign returned ${out.Signature?.byteLength ?? 0} bytes, not 64`);
      }
      return out.Signature;
    } catch (error) {
      if (error instanceof SignerUnavailableError) throw error;
      throw new SignerUnavailableError(this.#keyId, describeKmsError(error), { cause: error });
    }
  }
}

// python/tests/online/deployed-stack.ts still imports the verifier key from here.
