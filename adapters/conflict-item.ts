import { z } from 'zod';
import type { ConflictReason } from '../shared/ports/conflict-reason';
import type { ConflictRecord } from '../shared/ports/lineage-store';
import type { LineageHead } from '../shared/seal/lineage-head';
import { type Item, itemOf } from './item';
import { LineageKeys } from './lineage-keys';
import { readJson, readJsonAs, readNumber, readString } from './read-attribute';

/** The item of a conflict record (JSON fields as JSON text; docs/pipeline.md, "Data layout"). */
export function conflictItem(conflict: ConflictRecord): Item {
  return itemOf({
    pk: LineageKeys.lineage(conflict.lineageId),
    sk: LineageKeys.conflict(conflict.residualId, conflict.atMs, conflict.messageId),
    residualId: conflict.residualId,
    reason: conflict.reason,
    detail: conflict.detail,
    attemptedHeader: JSON.stringify(conflict.attemptedHeader),
    expectedHead: JSON.stringify(conflict.expectedHead),
    observedHead: JSON.stringify(conflict.observedHead),
    atMs: conflict.atMs,
    messageId: conflict.messageId,
    requestDigest: conflict.requestDigest || undefined,
    statement: conflict.statement || undefined,
  });
}

const StoredHeadSchema = z
  .looseObject({
    lineageId: z.string(),
    seq: z.number().int().min(0),
    recordHash: z.string(),
    generationEpoch: z.number().int().min(0),
    mac: z.string(),
    keyId: z.string(),
  })
  .nullable();

/**
 * A conflict item as a {@link ConflictRecord} (unverified; absent fields read as empty / null).
 * A JSON field that is present but malformed reads as `null` and is named in `unreadable`.
 */
export function conflictOf(lineageId: string, item: Item): ConflictRecord {
  const unreadable: string[] = [];
  const record: ConflictRecord = {
    lineageId,
    residualId: readString(item, 'residualId') ?? '',
    reason: (readString(item, 'reason') ?? '') as ConflictReason,
    detail: readString(item, 'detail') ?? '',
    attemptedHeader: readJson<unknown>(item, 'attemptedHeader', null),
    expectedHead: readJsonAs<LineageHead | null>(item, 'expectedHead', StoredHeadSchema, null, unreadable),
    observedHead: readJsonAs<LineageHead | null>(item, 'observedHead', StoredHeadSchema, null, unreadable),
    atMs: readNumber(item, 'atMs') ?? 0,
    messageId: readString(item, 'messageId') ?? '',
    requestDigest: readString(item, 'requestDigest') ?? null,
    statement: readString(item, 'statement') ?? null,
  };
  return unreadable.length === 0 ? record : { ...record, unreadable: `unreadable ${unreadable.join(', ')}` };
}
