import { randomBytes } from 'node:crypto';
import type { NoticeDataKey, NoticeKeyIssuer, NoticeKeyOpener } from '../../shared/ports/notice-key';

/**
 * A notice key in memory, for in-process sealers and integrators (docs/deployment-log.md,
 * "Sealed-run notices"): `dataKey()` mints a random 32-byte data key and a random "wrapped" blob
 * once (`rotate()` mints a new one), `open(blob)` answers the data key of any blob it minted, `null`
 * for any other. `generated` and `opened` count the calls a KMS key would be billed for: `opened`
 * once per distinct blob, as `KmsNoticeKey` keeps its answers (a head's and a notice's blob alike).
 */
export class MemoryNoticeKey implements NoticeKeyIssuer, NoticeKeyOpener {
  generated = 0;
  opened = 0;
  readonly #keys = new Map<string, Uint8Array>();
  readonly #asked = new Set<string>();
  #current: NoticeDataKey | null = null;

  async dataKey(): Promise<NoticeDataKey> {
    if (this.#current) return this.#current;
    return this.rotate();
  }

  /** A new data key, current from now on. */
  rotate(): NoticeDataKey {
    this.generated += 1;
    const key = { plaintext: new Uint8Array(randomBytes(32)), blob: randomBytes(48).toString('base64') };
    this.#keys.set(key.blob, key.plaintext);
    this.#current = key;
    return key;
  }

  async open(blob: string): Promise<Uint8Array | null> {
    if (!this.#asked.has(blob)) this.opened += 1;
    this.#asked.add(blob);
    return this.#keys.get(blob) ?? null;
  }
}
