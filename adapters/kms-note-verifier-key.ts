import { type NoteVerifierKey, noteVerifierKey } from '../shared/log/note-key';
import { fetchPublicKey, type KMSSend } from './fetch-public-key';

/**
 * The verifier key of a KMS Ed25519 signing key, read once with `GetPublicKey` and kept for the
 * process (a failed read is retried on the next call). Verification itself is local
 * (`node:crypto`), so a warm reader makes no KMS call at all.
 */
export class KMSNoteVerifierKey {
  readonly #client: KMSSend;
  readonly #keyId: string;
  readonly #keyName: string;
  #key: Promise<NoteVerifierKey> | null = null;

  /**
   * @param client - a KMS client
   * @param keyId - key id, ARN or alias of the Ed25519 key
   * @param keyName - the signed-note key name its signatures carry
   */
  constructor(client: KMSSend, keyId: string, keyName: string) {
    this.#client = client;
    this.#keyId = keyId;
    this.#keyName = keyName;
  }

  /** @throws {SignerUnavailableError} when KMS refuses or the key is not an Ed25519 signing key */
  get(): Promise<NoteVerifierKey> {
    this.#key ??= fetchPublicKey(this.#client, this.#keyId)
      .then((publicKey) => noteVerifierKey(this.#keyName, publicKey))
      .catch((error: unknown) => {
        this.#key = null;
        throw error;
      });
    return this.#key;
  }
}
