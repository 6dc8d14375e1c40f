import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';

/**
 * An item of the lineage table in DynamoDB's `AttributeValue` form, built through the SDK's own
 * `marshall` (`@aws-sdk/util-dynamodb`; docs/pipeline.md, "Data layout"). Plain objects of
 * strings, numbers and bytes are marshalled in their key order, so the bytes on the wire are the
 * ones hand-built `{ S }` / `{ N }` / `{ B }` values gave. JSON-valued attributes are stored as
 * strings (canonical JSON for headers), never as maps; the binary attributes are a manifest item's
 * gzip-compressed manifest and a record item's gzip-compressed record (text when compression does
 * not pay). Each item's own file (`record-item.ts`, `head-item.ts`, …) builds and reads it;
 * reading goes through `read-attribute.ts`.
 */
export type Item = Record<string, AttributeValue>;

/** Native attribute values the table's items are built of (optional ones may be `undefined`: left out). */
type Attributes = Record<string, string | number | Uint8Array | undefined>;

/** `attributes` as a DynamoDB item; `undefined` values are left out. */
export function itemOf(attributes: Attributes): Item {
  return marshall(attributes, { removeUndefinedValues: true });
}
