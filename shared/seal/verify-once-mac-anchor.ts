import { createHash } from 'node:crypto';
import type { AnchorSignature, MacAnchor } from '../ports/mac-anchor';

/**
 * A {@link MacAnchor} that asks the wrapped anchor's `verifyMac` once per distinct (message, key,
 * algorithm, MAC) pair for as long as it lives: made for one integration and dropped after it, so
 * a batch head-state MAC that vouches for several of the integration's lineage heads
 * (docs/verifiable-log.md, "Appending") costs one KMS `VerifyMac`, not one per head. Calls that
 * overlap share the one request. Only a `true` is kept: a `false` or a failed check is forgotten
 * once answered, and the next caller asks again. Never kept across integrations (a key disabled in
 * KMS is refused from the next integration on). `generateMac` delegates.
 */
export class VerifyOnceMacAnchor implements MacAnchor {
  readonly keyId: string;
  readonly #inner: MacAnchor;
  /** Pair → the check in flight or its `true`. */
  readonly #checks = new Map<string, Promise<boolean>>();

  constructor(inner: MacAnchor) {
    this.keyId = inner.keyId;
    this.#inner = inner;
  }

  /** @throws what the wrapped anchor throws */
  generateMac(message: Uint8Array): Promise<AnchorSignature> {
    return this.#inner.generateMac(message);
  }

  /**
   * The wrapped anchor's answer, asked once per distinct pair while it is `true`.
   * @throws what the wrapped anchor throws (key disabled, unreachable): not kept
   */
  verifyMac(message: Uint8Array, signature: AnchorSignature): Promise<boolean> {
    const key = JSON.stringify([
      createHash('sha256').update(message).digest('hex'),
      signature.keyId,
      signature.algorithm,
      signature.mac,
    ]);
    const known = this.#checks.get(key);
    if (known !== undefined) return known;
    const check = this.#inner.verifyMac(message, signature);
    this.#checks.set(key, check);
    check.then(
      (valid) => {
        if (!valid) this.#checks.delete(key);
      },
      () => this.#checks.delete(key),
    );
    return check;
  }
}
