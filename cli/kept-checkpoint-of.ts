import { LogVerificationError } from '../client/errors';
import type { ResealClient } from '../client/reseal-client';

/**
 * The lineage checkpoint kept for `lineageId` (read before a walk, which may replace it): its size,
 * `{ size: null }` when the kept note does not verify (the walk then fails citing it), or `null`
 * (no checkpoint store, or nothing kept yet).
 * @throws what the checkpoint store's read throws, other than a note that does not verify
 */
export async function keptCheckpointOf(
  client: Pick<ResealClient, 'keptCheckpoint'>,
  lineageId: string,
): Promise<{ readonly size: number | null } | null> {
  try {
    const kept = await client.keptCheckpoint(lineageId);
    return kept ? { size: kept.size } : null;
  } catch (error) {
    if (error instanceof LogVerificationError) return { size: null };
    throw error;
  }
}
