import type { AnchorSignature, MacAnchor } from '../shared/ports/mac-anchor';
import type { ChainCheckpoint, ChainVerification, TrustedStart } from '../shared/seal/chain-verification';
import { AnchorUnavailableError } from '../shared/seal/errors';
import { verifyChain } from '../shared/seal/lineage-verifier';
import { VerificationVerdict } from '../shared/seal/verification-verdict';

/** Options of {@link verifyRecords}. */
export interface VerifyRecordsOptions {
  /** Lineage every record must belong to. */
  readonly lineageId: string;
  /** Anchor whose key sealed the records (KMS, a local HMAC key, or {@link UnavailableMacAnchor}). */
  readonly anchor: MacAnchor;
  /** A head the caller trusts (kept from a `ResidualSealed` event): detects truncation and rewrites. */
  readonly checkpoint?: ChainCheckpoint;
  /** Verify only the records after this trusted point (a page of a longer chain). */
  readonly trustedStart?: TrustedStart;
}

/**
 * Verifies a chain of stored records (seed 003, with DESIGN.md's checkpoint rule) so that a
 * broken hash or link is never hidden behind an anchor that could not be checked.
 *
 * Two passes over the core's `verifyChain`:
 * 1. hashes, lineage, sequence, epochs and the checkpoint, with every MAC taken as valid (offline,
 *    no key needed);
 * 2. the same with the real anchor.
 * The result is the second pass, except when it only says `UNVERIFIED_TAMPER_RISK` (the MAC
 * could not be checked) while the first pass found a definite break (`HASH_MISMATCH`,
 * `LINEAGE_BROKEN`, `SEQUENCE_REPLAYED`, `TRUNCATION_DETECTED`): then the break is reported.
 * Without a usable anchor an intact chain is therefore `UNVERIFIED_TAMPER_RISK` (fail closed).
 *
 * @returns the core's {@link ChainVerification}; `VERIFIED_INTACT` only when every MAC verified
 * @throws {InvalidInputError} when the options are malformed (never for bad records)
 */
export async function verifyRecords(records: unknown[], options: VerifyRecordsOptions): Promise<ChainVerification> {
  const common = {
    lineageId: options.lineageId,
    ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
    ...(options.trustedStart ? { trustedStart: options.trustedStart } : {}),
  };
  const structural = await verifyChain(records, { ...common, anchor: new AcceptingMacAnchor(options.anchor.keyId) });
  const full = await verifyChain(records, { ...common, anchor: options.anchor });
  if (
    full.verdict === VerificationVerdict.UNVERIFIED_TAMPER_RISK &&
    structural.verdict !== VerificationVerdict.VERIFIED_INTACT &&
    structural.verdict !== VerificationVerdict.UNVERIFIED_TAMPER_RISK
  ) {
    return structural;
  }
  return full;
}

/** Takes every MAC as valid: the structural pass of {@link verifyRecords}. Never signs. */
class AcceptingMacAnchor implements MacAnchor {
  constructor(readonly keyId: string) {}
  async generateMac(): Promise<AnchorSignature> {
    throw new AnchorUnavailableError(this.keyId, 'the structural pass never signs');
  }
  async verifyMac(): Promise<boolean> {
    return true;
  }
}

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
