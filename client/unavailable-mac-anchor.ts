import { AnchorUnavailableError } from '../shared/errors';
import type { AnchorSignature, MacAnchor } from '../shared/ports/mac-anchor';

/**
 * A {@link MacAnchor} for when no key can be reached (no KMS endpoint, no credentials): every
 * check rejects with {@link AnchorUnavailableError}, so verification fails closed with
 * `UNVERIFIED_TAMPER_RISK` while hashes and links are still checked.
 */
export class UnavailableMacAnchor implements MacAnchor {
  constructor(
    readonly keyId: string,
    private readonly reason: string,
  ) {}
  async generateMac(): Promise<AnchorSignature> {
    throw new AnchorUnavailableError(this.keyId, this.reason);
  }
  async verifyMac(): Promise<boolean> {
    throw new AnchorUnavailableError(this.keyId, this.reason);
  }
}
