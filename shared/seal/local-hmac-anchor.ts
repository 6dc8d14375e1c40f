import { createHmac, timingSafeEqual } from 'node:crypto';
import { AnchorKeyMismatchError, AnchorUnavailableError, HeaderTooLargeError, InvalidInputError } from '../errors';
import { type AnchorSignature, MacAlgorithm, type MacAnchor } from '../ports/mac-anchor';
import { parseInput } from '../schemas/parse';
import { KeyIdSchema } from './key-id';
import { MAX_HEADER_BYTES } from './record-header';

/** Options of {@link LocalHmacAnchor}. */
export interface LocalHmacAnchorOptions {
  /** Label written into record headers as `keyId` (stands in for a KMS key ARN). */
  readonly keyId: string;
  /** Secret key bytes, at least 32 (RFC 2104 §3: not shorter than the 32-byte SHA-256 output). Copied. */
  readonly key: Uint8Array;
  /** Start disabled, like a KMS key after `DisableKey`. Default `false`. */
  readonly disabled?: boolean;
}

/** Length of the standard base64 of a 32-byte MAC, `=` included. */
const BASE64_MAC_LENGTH = 44;

/** Minimum key length in bytes. */
export const MIN_LOCAL_KEY_BYTES = 32;

/**
 * {@link MacAnchor} over HMAC-SHA-256 with node:crypto: the record
 * anchor of docs/sealing.md for tests, the demo and the benchmark. It behaves like a KMS
 * `HMAC_256` key: messages of 1–4,096 bytes, MACs as standard base64 of 32 bytes, a key that can
 * be disabled (then `generateMac` and `verifyMac` reject, as KMS does with `DisabledException`).
 * MACs are compared in constant time.
 *
 * It proves only that a holder of the key produced the MAC (docs/sealing.md, "What an HMAC
 * anchor can and cannot prove").
 *
 * @example
 * const anchor = new LocalHmacAnchor({ keyId: 'test-key-1', key: new Uint8Array(32).map((_, i) => i) });
 * const sig = await anchor.generateMac(bytes); // { keyId: 'test-key-1', algorithm: 'HMAC_SHA_256', mac: '…=' }
 */
export class LocalHmacAnchor implements MacAnchor {
  readonly keyId: string;
  readonly #key: Buffer;
  #disabled: boolean;

  /**
   * @throws {InvalidInputError} when `keyId` is not a valid key id or the key is shorter than 32 bytes
   */
  constructor(options: LocalHmacAnchorOptions) {
    this.keyId = parseInput(KeyIdSchema, options.keyId, 'key id');
    if (!(options.key instanceof Uint8Array) || options.key.byteLength < MIN_LOCAL_KEY_BYTES) {
      throw new InvalidInputError('HMAC key', [
        { path: 'key', message: `expected at least ${MIN_LOCAL_KEY_BYTES} bytes` },
      ]);
    }
    this.#key = Buffer.from(options.key);
    this.#disabled = options.disabled ?? false;
  }

  /** Whether the key is disabled (every call rejects). */
  get disabled(): boolean {
    return this.#disabled;
  }

  /** Disables the key, like KMS `DisableKey`: later calls reject with {@link AnchorUnavailableError}. */
  disable(): void {
    this.#disabled = true;
  }

  /** Enables the key again, like KMS `EnableKey`. */
  enable(): void {
    this.#disabled = false;
  }

  /**
   * HMAC-SHA-256 of `message` under this key.
   *
   * @param message - 1–4,096 bytes (canonical header bytes)
   * @throws {AnchorUnavailableError} when the key is disabled
   * @throws {HeaderTooLargeError} above 4,096 bytes; {@link InvalidInputError} for an empty message
   */
  async generateMac(message: Uint8Array): Promise<AnchorSignature> {
    this.#usable(message);
    return { keyId: this.keyId, algorithm: MacAlgorithm.HMAC_SHA_256, mac: this.#mac(message) };
  }

  /**
   * Resolves `true` when `signature.mac` is the HMAC-SHA-256 of `message` under this key,
   * `false` when it is not (wrong MAC, malformed base64, other algorithm).
   *
   * @throws {AnchorUnavailableError} when the key is disabled (callers fail closed)
   * @throws {AnchorKeyMismatchError} when `signature.keyId` names another key (this anchor cannot check it)
   * @throws {HeaderTooLargeError} above 4,096 bytes; {@link InvalidInputError} for an empty message
   */
  async verifyMac(message: Uint8Array, signature: AnchorSignature): Promise<boolean> {
    this.#usable(message);
    if (signature.keyId !== this.keyId) throw new AnchorKeyMismatchError(this.keyId, signature.keyId);
    if (signature.algorithm !== MacAlgorithm.HMAC_SHA_256) return false;
    // The base64 texts are compared, not decoded bytes: the expected text is the one canonical
    // spelling (44 characters, `=`-padded), so a MAC with non-canonical padding bits, or anything
    // but base64, fails without a pattern test. UTF-8, not latin1, so that no character is narrowed
    // to another; a text of another byte length cannot be the expected ASCII one.
    const { mac } = signature;
    if (typeof mac !== 'string' || mac.length !== BASE64_MAC_LENGTH) return false;
    const given = Buffer.from(mac, 'utf8');
    if (given.byteLength !== BASE64_MAC_LENGTH) return false;
    return timingSafeEqual(Buffer.from(this.#mac(message), 'utf8'), given);
  }

  #usable(message: Uint8Array): void {
    if (this.#disabled) throw new AnchorUnavailableError(this.keyId, 'key is disabled');
    if (message.byteLength > MAX_HEADER_BYTES) throw new HeaderTooLargeError(message.byteLength);
    if (message.byteLength === 0) {
      throw new InvalidInputError('MAC message', [
        { path: '', message: 'message is empty (KMS requires 1–4096 bytes)' },
      ]);
    }
  }

  /** HMAC-SHA-256 of `message`, standard base64 (canonical padding). */
  #mac(message: Uint8Array): string {
    return createHmac('sha256', this.#key).update(message).digest('base64');
  }
}
