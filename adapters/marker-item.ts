import type { ResidualLocation } from '../shared/errors';
import type { LogEntry } from '../shared/log/log-extension';
import { Identifier } from '../shared/schemas/identifier';
import { type Item, itemOf } from './item';
import { LineageKeys } from './lineage-keys';
import { readSeq, readString } from './read-attribute';

/** The residual-id marker of a log entry (idempotency, per lineage; docs/pipeline.md, "Data layout"). */
export function markerItem(lineageId: string, { record }: LogEntry): Item {
  return itemOf({
    pk: LineageKeys.lineage(lineageId),
    sk: LineageKeys.residualSk(record.header.residualId),
    lineageId,
    seq: record.header.monotonicSequenceNumber,
  });
}

/**
 * A residual-id marker as a location (unverified). A `seq` that is not a safe integer ≥ 0 (above
 * 2^53, negative, fractional) is not a seq: it reads as `-1`, like a missing one, so no reader
 * mistakes its rounded value for a record's. A `lineageId` that is not an {@link Identifier} is
 * no lineage id: it reads as `''`, like a missing one, so a table writer's text (newlines, escape
 * sequences, instructions) never reaches the signed conflict that quotes the marker
 * (docs/sealing.md, threat model).
 */
export function markerLocationOf(item: Item): ResidualLocation {
  const lineageId = Identifier.safeParse(readString(item, 'lineageId'));
  return { lineageId: lineageId.success ? lineageId.data : '', seq: readSeq(item, 'seq') ?? -1 };
}
