import { canonicalJson } from '../shared/canonical/canonical-json';
import type { StoredLogHead } from '../shared/log/log-state';
import { HeadLayout } from '../shared/ports/head-layout';
import type { AppendBatch } from '../shared/ports/lineage-store';
import type { LineageHead } from '../shared/seal/lineage-head';
import type { SealedRecord } from '../shared/seal/sealed-record';
import { headKeyMacOf, headMacAttributes, headMacOf } from './head-mac-attributes';
import { type Item, itemOf } from './item';
import { LineageKeys } from './lineage-keys';
import { readHashes, readJson, readNumber, readSeq, readString } from './read-attribute';
import { smallHeadItem } from './small-head-item';

/**
 * The head item of an append: the batch's last record's seq, record hash and epoch, its head-key
 * MAC (or KMS head-state MAC), the frontier and the policy, in `layout` ({@link HeadLayout}): `small` is `smallHeadItem`
 * (adapters/small-head-item.ts: the frontier binary, no signed checkpoint; a batch without a
 * head-state MAC, a test's old head, is written compatible); `compatible` also with the tip record's
 * header copy, `mac`, `keyId`, `residualId` (and a signed checkpoint, when the batch carries one)
 * and the frontier as JSON hex, as every head was stored before (docs/sealing.md, "Migration").
 */
export function headItem(batch: AppendBatch, last: SealedRecord, layout: HeadLayout): Item {
  const claims = {
    pk: LineageKeys.lineage(batch.lineageId),
    sk: LineageKeys.head,
    seq: last.header.monotonicSequenceNumber,
    recordHash: last.recordHash,
    generationEpoch: last.header.generationEpoch,
    ...(batch.headMac ? headMacAttributes(batch.headMac) : {}),
    ...(batch.policy ? { policy: canonicalJson(batch.policy) } : {}),
  };
  if (layout === HeadLayout.SMALL && batch.headMac) {
    // The tip's header, MAC, key id and residual id are the tip record's own; the head-state MAC
    // covers seq, record hash, epoch, tree and policy digest without them (docs/sealing.md, "The head item").
    return smallHeadItem({
      lineageId: batch.lineageId,
      tip: {
        seq: last.header.monotonicSequenceNumber,
        recordHash: last.recordHash,
        generationEpoch: last.header.generationEpoch,
      },
      headMac: batch.headMac,
      frontier: batch.frontier,
      policy: batch.policy ?? null,
    });
  }
  return itemOf({
    ...claims,
    mac: last.anchor.mac,
    keyId: last.anchor.keyId,
    residualId: last.header.residualId,
    header: canonicalJson(last.header),
    ...(batch.checkpoint ? { checkpoint: batch.checkpoint } : {}),
    frontier: JSON.stringify(batch.frontier),
  });
}

/**
 * A head item as a {@link LineageHead} claim (unverified; missing fields read as `-1` / `''` /
 * `0`, and so does a seq that is not a sequence number: {@link readSeq}).
 */
export function headOf(lineageId: string, item: Item | undefined): LineageHead | null {
  if (!item) return null;
  return {
    lineageId,
    seq: readSeq(item, 'seq') ?? -1,
    recordHash: readString(item, 'recordHash') ?? '',
    generationEpoch: readNumber(item, 'generationEpoch') ?? 0,
    mac: readString(item, 'mac') ?? '',
    keyId: readString(item, 'keyId') ?? '',
  };
}

/**
 * The stored frontier of a head item, hex: binary, 32 bytes a hash (the small head,
 * docs/sealing.md, "The append's layout"), or a JSON array of strings (heads stored before; each
 * checked by the log state); `null` when absent or malformed (binary not a whole number of hashes,
 * text that is not a list of strings), as `recordNodesOf` (adapters/record-item.ts) reads a
 * record's nodes ({@link readHashes}).
 */
export function headFrontierOf(item: Item): string[] | null {
  const frontier = readHashes(item, 'frontier');
  return frontier?.every((h) => typeof h === 'string') ? (frontier as string[]) : null;
}

/**
 * A head item as the log state it claims (unverified; {@link headOf}, {@link headFrontierOf}, the
 * stored JSON of `header` and `policy`, `null` when absent or unreadable, the head-state MAC as
 * `headMacOf` reads it, with a batch MAC's `heads`, and the head-key MAC as `headKeyMacOf` reads it): the legacy
 * head with its tip `header` and the small head without one (docs/sealing.md, "The append's
 * layout") read alike; `claimedLogState` (shared/log/log-state.ts) tells them apart.
 */
export function logHeadOf(lineageId: string, item: Item | undefined): StoredLogHead | null {
  const head = headOf(lineageId, item);
  if (!item || !head) return null;
  return {
    head,
    header: readJson<unknown>(item, 'header', null),
    checkpoint: readString(item, 'checkpoint') ?? null,
    frontier: headFrontierOf(item),
    policy: readJson<unknown>(item, 'policy', null),
    headMac: headMacOf(item),
    headKeyMac: headKeyMacOf(item),
  };
}
