import { DecryptCommand, GenerateDataKeyCommand } from '@aws-sdk/client-kms';
import { NOTICE_DATA_KEY_BYTES } from '../shared/integrator/notice-mac';
import {
  type NoticeDataKey,
  type NoticeKeyIssuer,
  type NoticeKeyOpener,
  noticeKeyContext,
} from '../shared/ports/notice-key';
import type { KMSSend } from './kms-mac-anchor';

/** How long the sealer reuses a data key, ms: a new one after this, so a container lives with a few. */
export const NOTICE_DATA_KEY_TTL_MS = 15 * 60_000;

/** How many unwrapped data keys the integrator keeps, by blob text (most sealer containers alive at once, with room). */
export const NOTICE_KEY_CACHE_ENTRIES = 64;

/** What KMS answers for a blob that is no data key of this key under this context: not vouching, not an outage. */
const NOT_A_DATA_KEY = new Set([
  'InvalidCiphertextException',
  'IncorrectKeyException',
  'InvalidKeyUsageException',
  'ValidationException',
]);

/**
 * The notice key (docs/deployment-log.md, "Sealed-run notices"; docs/infrastructure.md, "Keys"):
 * a symmetric `SYMMETRIC_DEFAULT` KMS key whose data keys MAC sealed-run notices, always under the
 * encryption context {@link noticeKeyContext} of the log.
 *
 * - Sealer ({@link NoticeKeyIssuer}): `GenerateDataKey` (`AES_256`) once, reused for
 *   {@link NOTICE_DATA_KEY_TTL_MS}: symmetric KMS requests per container, not per write. A failure
 *   rejects (the error as KMS gave it) and is not remembered: the next invocation asks again.
 * - Sealer and integrator ({@link NoticeKeyOpener}): `Decrypt` of a blob with the same context
 *   (a head's `headDataKey`, a notice's `auth.key`; a key this instance generated opens with no
 *   call), the answer
 *   (a key, or `null` for a blob KMS refuses as no data key of this key and context, or a plaintext
 *   of the wrong length) kept for the last {@link NOTICE_KEY_CACHE_ENTRIES} blobs; a call that
 *   fails otherwise (throttling, network, key disabled) rejects and is not kept.
 */
export class KmsNoticeKey implements NoticeKeyIssuer, NoticeKeyOpener {
  /** The notice key's id or ARN, as given: the `KeyId` of every `GenerateDataKey` and `Decrypt`. */
  readonly keyId: string;
  readonly #client: KMSSend;
  readonly #context: Record<string, string>;
  readonly #clock: () => number;
  #current: { key: Promise<NoticeDataKey>; atMs: number } | null = null;
  readonly #opened = new Map<string, Promise<Uint8Array | null>>();

  /**
   * @param keyId - the notice key's id or ARN (`NOTICE_KEY_ID`)
   * @param logName - the log's name (`LOG_NAME`), in the encryption context
   * @param clock - ms since the Unix epoch, for the data key's age
   */
  constructor(client: KMSSend, keyId: string, logName: string, clock: () => number = Date.now) {
    this.#client = client;
    this.keyId = keyId;
    this.#context = noticeKeyContext(logName);
    this.#clock = clock;
  }

  dataKey(): Promise<NoticeDataKey> {
    const nowMs = this.#clock();
    if (this.#current && nowMs - this.#current.atMs < NOTICE_DATA_KEY_TTL_MS) return this.#current.key;
    const key = this.#generate();
    const current = { key, atMs: nowMs };
    this.#current = current;
    key.catch(() => {
      if (this.#current === current) this.#current = null;
    });
    return key;
  }

  async #generate(): Promise<NoticeDataKey> {
    const out = await this.#client.send(
      new GenerateDataKeyCommand({ KeyId: this.keyId, KeySpec: 'AES_256', EncryptionContext: this.#context }),
    );
    if (out.Plaintext?.byteLength !== NOTICE_DATA_KEY_BYTES || !out.CiphertextBlob?.byteLength) {
      throw new Error('GenerateDataKey returned no 32-byte data key');
    }
    const key = { plaintext: out.Plaintext, blob: Buffer.from(out.CiphertextBlob).toString('base64') };
    // Its own key it knows: a head this container stored opens with no `Decrypt`.
    this.#remember(key.blob, Promise.resolve(key.plaintext));
    return key;
  }

  open(blob: string): Promise<Uint8Array | null> {
    const known = this.#opened.get(blob);
    if (known) return known;
    const opened = this.#decrypt(blob);
    this.#remember(blob, opened);
    opened.catch(() => {
      if (this.#opened.get(blob) === opened) this.#opened.delete(blob);
    });
    return opened;
  }

  /** Keeps `blob`'s answer, the oldest dropped past {@link NOTICE_KEY_CACHE_ENTRIES}. */
  #remember(blob: string, opened: Promise<Uint8Array | null>): void {
    if (!this.#opened.has(blob) && this.#opened.size >= NOTICE_KEY_CACHE_ENTRIES) {
      const oldest = this.#opened.keys().next();
      if (!oldest.done) this.#opened.delete(oldest.value);
    }
    this.#opened.set(blob, opened);
  }

  async #decrypt(blob: string): Promise<Uint8Array | null> {
    let plaintext: Uint8Array | undefined;
    try {
      const out = await this.#client.send(
        new DecryptCommand({
          KeyId: this.keyId,
          CiphertextBlob: Buffer.from(blob, 'base64'),
          EncryptionContext: this.#context,
        }),
      );
      plaintext = out.Plaintext;
    } catch (error) {
      if (NOT_A_DATA_KEY.has((error as Error)?.name)) return null;
      throw error;
    }
    return plaintext?.byteLength === NOTICE_DATA_KEY_BYTES ? plaintext : null;
  }
}
