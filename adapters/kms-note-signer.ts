import { GetPublicKeyCommand, type GetPublicKeyCommandOutput, type KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { SignerUnavailableError } from '../shared/errors';
import { publicKeyFromSpki } from '../shared/log/public-key-from-spki';
import type { NoteSigner } from '../shared/ports/note-signer';

/** The part of `KMSClient` this adapter uses (a fake with `send` serves unit tests). */
export type KMSSend = Pick<KMSClient, 'send'>;

/** KMS name of the Ed25519 key spec (the log and guard keys). */
export const ED25519_KEY_SPEC = 'ECC_NIST_EDWARDS25519';
/** KMS name of pure Ed25519 (RFC 8032), what C2SP signed notes use; not `ED25519_PH_SHA_512`. */
export const ED25519_SIGNING_ALGORITHM = 'ED25519_SHA_512';

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
      throw new SignerUnavailableError(this.#keyId, describe(error), { cause: error });
    }
  }
}

/**
 * Reads an Ed25519 public key from KMS (`GetPublicKey`) as raw 32 bytes, after checking that the
 * key is an `ECC_NIST_EDWARDS25519` `SIGN_VERIFY` key offering `ED25519_SHA_512`.
 *
 * @throws {SignerUnavailableError} when KMS refuses or the key is of another kind
 */
export async function fetchPublicKey(client: KMSSend, keyId: string): Promise<Uint8Array> {
  let out: GetPublicKeyCommandOutput;
  try {
    out = await client.send(new GetPublicKeyCommand({ KeyId: keyId }));
  } catch (error) {
    throw new SignerUnavailableError(keyId, describe(error), { cause: error });
  }
  if (out.KeySpec !== ED25519_KEY_SPEC || out.KeyUsage !== 'SIGN_VERIFY') {
    throw new SignerUnavailableError(
      keyId,
      `key is ${out.KeySpec}/${out.KeyUsage}, not ${ED25519_KEY_SPEC}/SIGN_VERIFY`,
    );
  }
  if (!out.SigningAlgorithms?.includes(ED25519_SIGNING_ALGORITHM)) {
    throw new SignerUnavailableError(keyId, `key does not offer ${ED25519_SIGNING_ALGORITHM}`);
  }
  if (!out.PublicKey) throw new SignerUnavailableError(keyId, 'GetPublicKey returned no key');
  return publicKeyFromSpki(out.PublicKey);
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

// python/tests/online/deployed-stack.ts still imports the verifier key from here.
export { KMSNoteVerifierKey } from './kms-note-verifier-key';
