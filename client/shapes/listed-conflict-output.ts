import { z } from 'zod';
import { isoTime } from '../../shared/iso-time';
import type { ConflictRecord } from '../../shared/ports/lineage-store';
import type { LineageHead } from '../../shared/seal/lineage-head';

/**
 * A stored head a conflict names: `{ seq, recordHash, generationEpoch }`, the fields of a write
 * outcome's `observedHead`, typed loosely: an unsigned conflict is listed as stored.
 */
const ConflictHeadOutput = z.object({ seq: z.number(), recordHash: z.string(), generationEpoch: z.number() });

/**
 * A stored sealer conflict as `reseal inspect --lineage --json` lists it (docs/cli.md, `reseal
 * inspect`), camelCase, the attempted header left out: under `conflicts` when the sealer's signed
 * statement checks, else under `untrusted.conflicts` with every string escaped.
 */
export const ListedConflictOutput = z.object({
  reason: z.string(),
  detail: z.string(),
  lineageId: z.string(),
  residualId: z.string(),
  expectedHead: ConflictHeadOutput.nullable(),
  observedHead: ConflictHeadOutput.nullable(),
  /** When it was refused, ISO 8601 UTC (`(invalid time <ms>)` for a time no `Date` holds). */
  conflictedAt: z.string(),
  /** Whether the sealer's signed statement checks on the item read whole. */
  signatureVerified: z.boolean(),
  /** The fields of the stored item that could not be read, or `null`. */
  unreadable: z.string().nullable(),
});
/** Type of {@link ListedConflictOutput}. */
export type ListedConflictOutput = z.infer<typeof ListedConflictOutput>;

const headOutput = (head: LineageHead | null) =>
  head && { seq: head.seq, recordHash: head.recordHash, generationEpoch: head.generationEpoch };

/** A {@link ConflictRecord} as listed, with whether its signature checked (the caller escapes an untrusted one). */
export function listedConflictOutput(
  c: ConflictRecord & { readonly unreadable?: string },
  signatureVerified: boolean,
): ListedConflictOutput {
  return {
    reason: c.reason,
    detail: c.detail,
    lineageId: c.lineageId,
    residualId: c.residualId,
    expectedHead: headOutput(c.expectedHead),
    observedHead: headOutput(c.observedHead),
    conflictedAt: isoTime(c.atMs),
    signatureVerified,
    unreadable: c.unreadable ?? null,
  };
}
