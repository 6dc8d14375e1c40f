import { z } from 'zod';
import { HEX_DIGEST_PATTERN } from '../canonical/digest';
import { Identifier } from '../schemas/identifier';
import { parseInput } from '../schemas/parse';
import {
  type IndexEntry,
  type LineageIndexValue,
  LineageIndexValueSchema,
  type ResidualIndexValue,
  ResidualIndexValueSchema,
  sameEntryValue,
} from './index-entry';
import type { LineageIndexKey, ResidualIndexKey } from './index-key';

/**
 * The tree head a caller checked a lineage's new head against (RFC 9162 consistency, with
 * `verifyConsistency` of shared/log): the update applies only while the index still maps the
 * lineage to exactly this head.
 */
const CheckedFromSchema = z.strictObject({
  treeSize: LineageIndexValueSchema.shape.treeSize,
  rootHash: z.string().regex(HEX_DIGEST_PATTERN),
});

/**
 * One change to the index (docs/verifiable-index.md, "Updates"):
 * - a lineage's new head, with `consistentFrom`, the head the caller proved it consistent with
 *   (`null` for a lineage the caller believes new);
 * - a residual id's location, set once.
 */
export const IndexUpdateSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('lineage'),
    lineageId: Identifier,
    value: LineageIndexValueSchema,
    consistentFrom: CheckedFromSchema.nullable(),
  }),
  z.strictObject({
    kind: z.literal('residual'),
    lineageId: Identifier,
    residualId: Identifier,
    value: ResidualIndexValueSchema,
  }),
]);

/** One change to the index. */
export type IndexUpdate = z.infer<typeof IndexUpdateSchema>;

/**
 * Validates updates from outside (strict at every level).
 * @throws {InvalidInputError} naming the bad field
 */
export function parseIndexUpdates(input: unknown): IndexUpdate[] {
  return parseInput(z.array(IndexUpdateSchema), input, 'index updates');
}

/** Why an update was refused: the evidence the integrator raises (docs/verifiable-index.md, "Update rule"). */
export type IndexUpdateFinding =
  /** A residual id's entry would change: it is set once. */
  | {
      readonly kind: 'RESIDUAL_CHANGED';
      readonly key: ResidualIndexKey;
      readonly held: ResidualIndexValue;
      readonly offered: ResidualIndexValue;
      readonly reason: string;
    }
  /** A lineage's head would move back: a smaller tree or an older generation epoch. */
  | {
      readonly kind: 'LINEAGE_ROLLBACK';
      readonly key: LineageIndexKey;
      readonly held: LineageIndexValue;
      readonly offered: LineageIndexValue;
      readonly reason: string;
    }
  /** The same tree size with another root or head record: two histories. */
  | {
      readonly kind: 'LINEAGE_FORK';
      readonly key: LineageIndexKey;
      readonly held: LineageIndexValue;
      readonly offered: LineageIndexValue;
      readonly reason: string;
    }
  /** The caller checked consistency from a head the index does not hold (or holds none of). */
  | {
      readonly kind: 'LINEAGE_UNCHECKED';
      readonly key: LineageIndexKey;
      readonly held: LineageIndexValue | null;
      readonly offered: LineageIndexValue;
      readonly consistentFrom: z.infer<typeof CheckedFromSchema> | null;
      readonly reason: string;
    };

/** The entry an update writes. */
export function updateEntry(update: IndexUpdate): IndexEntry {
  return update.kind === 'lineage'
    ? { kind: 'lineage', lineageId: update.lineageId, value: update.value }
    : { kind: 'residual', lineageId: update.lineageId, residualId: update.residualId, value: update.value };
}

/**
 * The update rule (docs/verifiable-index.md, "Update rule"), given the entry the index holds for
 * the update's key (`null` when none):
 * - a residual entry, once set, never changes (the same value again is no change);
 * - a lineage entry moves only forward: `consistentFrom` must be the held head (`null` for a new
 *   lineage), `treeSize` and `generationEpoch` not smaller, and at the same size the same root and
 *   head record.
 *
 * @returns `'UNCHANGED'` (nothing to write), `'APPLY'`, or the finding that refuses it
 */
export function admitUpdate(held: IndexEntry | null, update: IndexUpdate): 'UNCHANGED' | 'APPLY' | IndexUpdateFinding {
  if (update.kind === 'residual') {
    if (held === null) return 'APPLY';
    if (sameEntryValue(held.value, update.value)) return 'UNCHANGED';
    const key = { kind: 'residual', lineageId: update.lineageId, residualId: update.residualId } as const;
    const was = held.value as ResidualIndexValue;
    return {
      kind: 'RESIDUAL_CHANGED',
      key,
      held: was,
      offered: update.value,
      reason: `residual ${update.residualId} of lineage ${update.lineageId} is indexed at seq ${was.seq} (${was.recordHash}); seq ${update.value.seq} (${update.value.recordHash}) would change it`,
    };
  }
  const key = { kind: 'lineage', lineageId: update.lineageId } as const;
  const offered = update.value;
  const was = held === null ? null : (held.value as LineageIndexValue);
  const from = update.consistentFrom;
  if (was === null || from === null || from.treeSize !== was.treeSize || from.rootHash !== was.rootHash) {
    if (was === null && from === null) return 'APPLY';
    const heldText = was === null ? 'no entry' : `size ${was.treeSize}, root ${was.rootHash}`;
    const fromText = from === null ? 'nothing (a new lineage)' : `size ${from.treeSize}, root ${from.rootHash}`;
    return {
      kind: 'LINEAGE_UNCHECKED',
      key,
      held: was,
      offered,
      consistentFrom: from,
      reason: `lineage ${update.lineageId}: the new head was checked against ${fromText}, but the index holds ${heldText}`,
    };
  }
  if (offered.treeSize < was.treeSize || offered.generationEpoch < was.generationEpoch) {
    return {
      kind: 'LINEAGE_ROLLBACK',
      key,
      held: was,
      offered,
      reason: `lineage ${update.lineageId} would move back: size ${was.treeSize} → ${offered.treeSize}, epoch ${was.generationEpoch} → ${offered.generationEpoch}`,
    };
  }
  if (
    offered.treeSize === was.treeSize &&
    (offered.rootHash !== was.rootHash || offered.headRecordHash !== was.headRecordHash)
  ) {
    return {
      kind: 'LINEAGE_FORK',
      key,
      held: was,
      offered,
      reason: `lineage ${update.lineageId}: two heads of size ${was.treeSize} (root ${was.rootHash}, then ${offered.rootHash})`,
    };
  }
  return sameEntryValue(was, offered) ? 'UNCHANGED' : 'APPLY';
}
