import { GenerateMacCommand, type KMSClient, KMSInvalidMacException, VerifyMacCommand } from '@aws-sdk/client-kms';
import { AnchorKeyMismatchError, AnchorUnavailableError } from '../shared/errors';
import { type AnchorSignature, MacAlgorithm, type MacAnchor } from '../shared/ports/mac-anchor';

/** The part of `KMSClient` this adapter uses (a fake with `send` serves unit tests). */
export type KMSSend = Pick<KMSClient, 'send'>;

/**
 * {@link MacAnchor} over a KMS `HMAC_256` key (the record anchor of docs/sealing.md, "Record layout"):
 * `GenerateMac` / `VerifyMac` with `HMAC_SHA_256`; MACs travel as standard base64 of the raw bytes.
 *
 * - `verifyMac` resolves `false` on `KMSInvalidMacException` (a wrong MAC: tampered or forged)
 *   and for a signature of another algorithm or with malformed base64;
 * - it rejects with {@link AnchorKeyMismatchError} for a signature naming another key (the
 *   anchor only vouches for its own key), and with {@link AnchorUnavailableError} (the KMS error as
 *   `cause`) for anything else: `DisabledException`, `NotFoundException`, `KMSInvalidStateException`,
 *   throttling, network. The verifier turns a rejection into `UNVERIFIED_TAMPER_RISK` (fail closed).
 *
 * @example new KMSMacAnchor(new KMSClient({}), process.env.MAC_KEY_ID)
 */
export class KMSMacAnchor implements MacAnchor {
  readonly keyId: string;
  readonly #client: KMSSend;

  /**
   * @param client - a KMS client (or anything with its `send`)
   * @param keyId - key id or ARN written into record headers; calls are made with it as is
   */
  constructor(client: KMSSend, keyId: string) {
    this.#client = client;
    this.keyId = keyId;
  }

  /**
   * @throws {AnchorUnavailableError} when KMS refuses or cannot be reached (the caller retries)
   */
  async generateMac(message: Uint8Array): Promise<AnchorSignature> {
    let mac: Uint8Array | undefined;
    try {
      const out = await this.#client.send(
        new GenerateMacCommand({ KeyId: this.keyId, MacAlgorithm: MacAlgorithm.HMAC_SHA_256, Message: message }),
      );
      mac = out.Mac;
    } catch (error) {
      throw new AnchorUnavailableError(this.keyId, describe(error), { cause: error });
    }
    if (!mac || mac.byteLength === 0) throw new AnchorUnavailableError(this.keyId, 'GenerateMac returned no MAC');
    return { keyId: this.keyId, algorithm: MacAlgorithm.HMAC_SHA_256, mac: Buffer.from(mac).toString('base64') };
  }

  /**
   * @throws {AnchorKeyMismatchError} when `anchor.keyId` is not this anchor's key
   * @throws {AnchorUnavailableError} when the check cannot be made (key disabled, missing, unreachable)
   */
  async verifyMac(message: Uint8Array, anchor: AnchorSignature): Promise<boolean> {
    if (anchor.keyId !== this.keyId) throw new AnchorKeyMismatchError(this.keyId, anchor.keyId);
    if (anchor.algorithm !== MacAlgorithm.HMAC_SHA_256) return false;
    if (typeof anchor.mac !== 'string' || !/^[A-Za-z0-9+/]{43}=$/.test(anchor.mac)) return false;
    try {
      const out = await this.#client.send(
        new VerifyMacCommand({
          KeyId: this.keyId,
          MacAlgorithm: MacAlgorithm.HMAC_SHA_256,
          Message: message,
          Mac: Buffer.from(anchor.mac, 'base64'),
        }),
      );
      return out.MacValid === true;
    } catch (error) {
      if (error instanceof KMSInvalidMacException || (error as Error)?.name === 'KMSInvalidMacException') return false;
      throw new AnchorUnavailableError(this.keyId, describe(error), { cause: error });
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
