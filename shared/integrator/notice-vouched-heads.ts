import type { LineageIndexValue } from '../index/index-entry';
import type { SealedRunNotice } from './sealed-run-notice';

/**
 * The heads of `lineageId` that the batch's authenticated sealed-run notices vouch for
 * (docs/deployment-log.md, "Integration", step 2, and "Sealed-run notices"): each notice's `head`,
 * in the batch's order, duplicates kept. `notices` must be only those whose `auth` verified under
 * the notice key (functions/integrator/authenticated-notices.ts). The integrator passes the heads
 * to `authenticateHeadState` (`noticed`), which takes a stored head that is exactly one of them
 * (size, root, head record hash, epoch, writer policy digest), once the head item is a well-formed
 * state whoever vouches for it (`claimedLogState`: its frontier and head record hash to that root),
 * without the head-state MAC's `VerifyMac`.
 *
 * Why that is no weaker than the MAC: a notice's `auth` is an HMAC under a data key only the
 * notice key's `kms:GenerateDataKey` (the sealer's role alone) can mint and only its `kms:Decrypt`
 * (the integrator's role alone) can unwrap, so whoever can put an event in front of the integrator
 * (its invokers, the queue's policy editors) or write the table forges none without a KMS right,
 * as with the head-state MAC. The sealer MACs a notice only for a state it MAC'd and moved the head
 * to, so a notice-named head is a genuine state the MAC would accept too; the MAC accepts any
 * genuine state the sealer ever MAC'd, older ones included, so neither says the head is the
 * newest. What refuses a rewound head is unchanged: a notice of the batch (authenticated or not)
 * larger than the stored head, or of its size with another root, is `NOTICE_MISMATCH`, and the
 * stored head must extend the indexed one. A head no authenticated notice of the batch names (moved
 * since its notice, a lost or unauthenticated notice, a late batch) goes through the MAC.
 */
export function noticeVouchedHeads(
  lineageId: string,
  notices: readonly SealedRunNotice[],
): readonly LineageIndexValue[] {
  return notices.filter((notice) => notice.lineageId === lineageId).map((notice) => notice.head);
}
