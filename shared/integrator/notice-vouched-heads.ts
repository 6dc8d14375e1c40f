import type { LineageIndexValue } from '../index/index-entry';
import type { SealedRunNotice } from './sealed-run-notice';

/**
 * The heads of `lineageId` that the batch's sealed-run notices vouch for (docs/deployment-log.md,
 * "Integration", step 2, and "Sealed-run notices"): each notice's `head`, in the batch's order,
 * duplicates kept. The integrator passes them to `authenticateHeadState` (`noticed`), which takes
 * a stored head that is exactly one of them (size, root, head record hash, epoch, writer policy
 * digest), once the head item is a well-formed state whoever vouches for it (`claimedLogState`:
 * its frontier and head record hash to that root), without the head-state MAC's `VerifyMac`.
 *
 * Why that is no weaker than the MAC: a notice reaches the integrator only over the integration
 * queue, whose policy lets no principal but the sealer's role send (docs/infrastructure.md,
 * "Permissions"), so the table writer, who has no KMS MAC right either, can forge neither. The
 * sealer sends a notice only for a state it MAC'd and moved the head to, so a notice-named head
 * is a genuine state the MAC would accept too; the MAC accepts any genuine state the sealer ever
 * MAC'd, older ones included, so neither says the head is the newest. What refuses a rewound head
 * is unchanged: a notice of the batch larger than the stored head, or of its size with another
 * root, is `NOTICE_MISMATCH`, and the stored head must extend the indexed one. A head no notice of
 * the batch names (moved since its notice, a lost notice, a late batch) goes through the MAC.
 */
export function noticeVouchedHeads(
  lineageId: string,
  notices: readonly SealedRunNotice[],
): readonly LineageIndexValue[] {
  return notices.filter((notice) => notice.lineageId === lineageId).map((notice) => notice.head);
}
