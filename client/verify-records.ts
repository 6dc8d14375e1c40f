import type { MacAnchor } from '../shared/ports/mac-anchor';
import type { ChainVerification } from '../shared/seal/chain-verification';
import { checkStoredHead, storedRecordsSeen, withStoredHeadFinding } from '../shared/seal/stored-head';
import type { TrustedHead } from '../shared/seal/trusted-head';
import type { TrustedStart } from '../shared/seal/trusted-start';
import { verifyChain } from '../shared/seal/verify-chain';
import { UnavailableMacAnchor } from './unavailable-mac-anchor';

/** Options of {@link verifyRecords}. */
export interface VerifyRecordsOptions {
  /** Lineage every record must belong to. */
  readonly lineageId: string;
  /** Anchor whose key sealed the records (KMS, a local HMAC key, or {@link UnavailableMacAnchor}). */
  readonly anchor: MacAnchor;
  /** A head the caller trusts (kept from a `ResidualSealed` event): detects truncation and rewrites. */
  readonly checkpoint?: TrustedHead;
  /** Verify only the records after this trusted point (a page of a longer chain). */
  readonly trustedStart?: TrustedStart;
  /**
   * The head item read from the table with these records (e.g. a `LineageExport`'s `head`; `null`:
   * none was stored). When given, it is checked against the records as a claim
   * (`checkStoredHead`): records past it, another hash at its seq, or records without it →
   * `LINEAGE_BROKEN`; records ending before it → `TRUNCATION_DETECTED`. Only for whole lineages.
   */
  readonly storedHead?: Pick<TrustedHead, 'seq' | 'recordHash'> | null;
}

/**
 * Verifies a chain of stored records (docs/sealing.md, "Verification" and its checkpoint rule): one call of
 * the core's `verifyChain`, which runs every key-free check (hashes, lineage, sequence, epochs,
 * checkpoint) before the MACs and lets a definite break (`HASH_MISMATCH`, `LINEAGE_BROKEN`,
 * `SEQUENCE_REPLAYED`, `TRUNCATION_DETECTED`) win over `UNVERIFIED_TAMPER_RISK`. So a broken hash
 * or link is never hidden behind an anchor that could not be checked, and without a usable anchor
 * an intact chain is `UNVERIFIED_TAMPER_RISK` (fail closed).
 *
 * @returns the core's {@link ChainVerification}; `VERIFIED_INTACT` only when every MAC verified
 * @throws {InvalidInputError} when the options are malformed (never for bad records)
 */
export async function verifyRecords(records: unknown[], options: VerifyRecordsOptions): Promise<ChainVerification> {
  const verification = await verifyChain(records, {
    lineageId: options.lineageId,
    anchor: options.anchor,
    ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
    ...(options.trustedStart ? { trustedStart: options.trustedStart } : {}),
  });
  if (options.storedHead === undefined || !Array.isArray(records)) return verification;
  const head = options.storedHead;
  return withStoredHeadFinding(verification, checkStoredHead(head, storedRecordsSeen(records, head)));
}
