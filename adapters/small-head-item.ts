import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { LineagePolicy } from '../shared/authorship/lineage-policy';
import { canonicalJson } from '../shared/canonical/canonical-json';
import type { HexDigest } from '../shared/canonical/digest';
import type { HeadKeyMac } from '../shared/log/head-key-mac';
import type { HeadStateMac } from '../shared/log/head-state-mac';
import type { ChainTip } from '../shared/seal/chain-tip';
import { headMacAttributes } from './head-mac-attributes';
import { LineageKeys } from './lineage-keys';

/** What a small head item stores (docs/sealing.md, "The append's layout", "The write"). */
export interface SmallHead {
  readonly lineageId: string;
  /** The head record: its seq, record hash and epoch (the head move's condition attributes). */
  readonly tip: Pick<ChainTip, 'seq' | 'recordHash' | 'generationEpoch'>;
  /**
   * The sealer's MAC of the tree ending at `tip`: under its notice data key (shared/log/head-key-mac.ts),
   * or with KMS, alone or of its invocation's batch (shared/log/head-state-mac.ts).
   */
  readonly headMac: HeadStateMac | HeadKeyMac;
  /** Compact range of the first `tip.seq` leaves (hex, left to right). */
  readonly frontier: readonly HexDigest[];
  /** The lineage write policy in force at the tip (its digest is the MAC's `writerPolicyDigest`), or `null` for a format-1 tip. */
  readonly policy: LineagePolicy | null;
}

/**
 * The small head item (`LINEAGE#<id>` / `HEAD`; docs/sealing.md, "The append's layout"): `seq`,
 * `recordHash`, `generationEpoch`, the head's MAC (`headKeyMac` and `headDataKey`, binary; or
 * `headMac`, canonical JSON, and for a batch MAC `headMacHeads`, binary, 32 bytes a head:
 * `headMacAttributes`), `frontier` (binary, 32 bytes a hash) and
 * `policy` (canonical JSON, left out for a format-1 tip). No tip `header`, `mac`, `keyId` or
 * `residualId` and no signed `checkpoint`: the head-state MAC covers every value a reader takes
 * from it (`claimedLogState`, shared/log/log-state.ts), and the tip record's own fields are read
 * from the record. About 0.5 KB with a head-key MAC, 0.85 KB with a batch MAC of 10 heads: one WCU.
 */
export function smallHeadItem(head: SmallHead): Record<string, AttributeValue> {
  // Marshalled here, not through the item codec (which writes heads with this): no import cycle.
  return marshall({
    pk: LineageKeys.lineage(head.lineageId),
    sk: LineageKeys.head,
    seq: head.tip.seq,
    recordHash: head.tip.recordHash,
    generationEpoch: head.tip.generationEpoch,
    ...headMacAttributes(head.headMac),
    frontier: Buffer.concat(head.frontier.map((hash) => Buffer.from(hash, 'hex'))),
    ...(head.policy ? { policy: canonicalJson(head.policy) } : {}),
  });
}
