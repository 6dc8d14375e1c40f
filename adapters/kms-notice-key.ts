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

/**
 * The longest `CiphertextBlob` KMS takes, bytes: a longer blob is no data key, refused with no call
 * (a table writer may store a blob up to the item's 400 KB).
 */
export const MAX_NOTICE_KEY_BLOB_BYTES = 6144;

/** What KMS answers for a blob that is no data key of this key under this context: not vouching, not an outage. */
const NOT_A_DATA_KEY = new Set([
  'InvalidCiphertextException',
  'IncorrectKeyException',
  'InvalidKeyUsageException',
  'ValidationException',
]);

/**
 * The notice key (docs/deployment-log.md, "Sealed-run notices"; docs/infrastructure.md, "Key
 * policies"): a symmetric `SYMMETRIC_DEFAULT` KMS key whose data keys MAC sealed-run notices and
 * the heads the sealer stores (docs/verifiable-log.md, "Appending"), always under the encryption
 * context {@link noticeKeyContext} of the log.
 *
 * - Sealer ({@link NoticeKeyIssuer}): `GenerateDataKey` (`AES_256`) once, reused for
 *   {@link NOTICE_DATA_KEY_TTL_MS}: symmetric KMS requests per container, not per write. A failure
 *   rejects (the error as KMS gave it) and is not remembered: the next invocation asks again.
 * - Sealer and integrator ({@link NoticeKeyOpener}): `Decrypt` of a blob with the same context
 *   (a head's `headDataKey`, a notice's `auth.key`; a key this instance generated opens with no
 *   call), the answer
 *   (a key, or `null` for a blob KMS refuses as no data key of this key and context, or a plaintext
 *   of the wrong length, or one longer than {@link MAX_NOTICE_KEY_BLOB_BYTES}: no call) kept for
 *   the last {@link NOTICE_KEY_CACHE_ENTRIES} blobs of each kind, apart: the blobs that open (the
 *   least recently used dropped first), those refused, and the keys this instance generated. A
 *   table writer can store any number of blobs, but the ones he forges are refused, so they evict
 *   only each other, never a genuine key (which would cost a `Decrypt` per head read again). A call
 *   that fails otherwise (throttling, network, key disabled) rejects and is not kept.
 */
export class KmsNoticeKey implements NoticeKeyIssuer, NoticeKeyOpener {
  /** The notice key's id or ARN, as given: the `KeyId` of every `GenerateDataKey` and `Decrypt`. */
  readonly keyId: string;
  readonly #client: KMSSend;
  readonly #context: Record<string, string>;
  readonly #clock: () => number;
  #current: { key: Promise<NoticeDataKey>; atMs: number } | null = null;
  /** Keys this instance generated, by blob: no one else can add to these. */
  readonly #own = new Map<string, Uint8Array>();
  /** Keys opened by `Decrypt`, by blob, least recently used first. */
  readonly #keys = new Map<string, Uint8Array>();
  /** Blobs that are no data key (forged, copied from another key or context), oldest first. */
  readonly #refused = new Set<string>();
  /** Blobs being opened: one `Decrypt` for readers that ask at once. */
  readonly #pending = new Map<string, Promise<Uint8Array | null>>();

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
    keep(this.#own, key.blob, key.plaintext);
    return key;
  }

  open(blob: string): Promise<Uint8Array | null> {
    const own = this.#own.get(blob);
    if (own) return Promise.resolve(own);
    const key = this.#keys.get(blob);
    if (key) {
      keep(this.#keys, blob, key); // used again: the newest
      return Promise.resolve(key);
    }
    if (this.#refused.has(blob)) return Promise.resolve(null);
    const pending = this.#pending.get(blob);
    if (pending) return pending;
    const opened = this.#decrypt(blob);
    this.#pending.set(blob, opened);
    opened
      .then(
        (plaintext) => {
          if (plaintext !== null) keep(this.#keys, blob, plaintext);
          else keep(this.#refused, blob);
        },
        () => {}, // an outage is the caller's to see, and is not kept
      )
      .finally(() => this.#pending.delete(blob));
    return opened;
  }

  async #decrypt(blob: string): Promise<Uint8Array | null> {
    const ciphertext = Buffer.from(blob, 'base64');
    if (ciphertext.byteLength === 0 || ciphertext.byteLength > MAX_NOTICE_KEY_BLOB_BYTES) return null;
    let plaintext: Uint8Array | undefined;
    try {
      const out = await this.#client.send(
        new DecryptCommand({
          KeyId: this.keyId,
          CiphertextBlob: ciphertext,
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

/**
 * Puts `blob` last in `cache` (a map's or set's insertion order), the first dropped past
 * {@link NOTICE_KEY_CACHE_ENTRIES}.
 */
function keep(cache: Set<string>, blob: string): void;
function keep(cache: Map<string, Uint8Array>, blob: string, key: Uint8Array): void;
function keep(cache: Set<string> | Map<string, Uint8Array>, blob: string, key?: Uint8Array): void {
  cache.delete(blob);
  if (cache.size >= NOTICE_KEY_CACHE_ENTRIES) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  if (cache instanceof Map) cache.set(blob, key as Uint8Array);
  else cache.add(blob);
}
