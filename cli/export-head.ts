import type { LineageExportEnvelope } from '../client/lineage-export';
import { type LineageHead, LineageHeadSchema } from '../shared/seal/lineage-head';
import { BadInputError } from './errors';

/**
 * The stored head an export carries (the table's claim at export time), or `null` when it has
 * none; checked against the records as `storedHead` by `verify --export` and `inspect --export`.
 *
 * @throws {BadInputError} naming the export and the bad head field
 */
export function exportHeadOf(path: string, envelope: Pick<LineageExportEnvelope, 'head'>): LineageHead | null {
  if (envelope.head === null) return null;
  const head = LineageHeadSchema.safeParse(envelope.head);
  if (!head.success) {
    const issue = head.error.issues[0];
    throw new BadInputError(
      `${path}: invalid lineage export\n  at head.${issue?.path.join('.') ?? ''}: ${issue?.message}`,
    );
  }
  return head.data;
}
