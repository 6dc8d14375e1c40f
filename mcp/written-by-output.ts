import type { WrittenBy } from '../client/written-by';
import { isoTime } from './iso-time';
import type { WrittenByOutput } from './outputs/written-by-output';

/** A {@link WrittenBy} as the tools answer it (`signedAt` as ISO 8601 UTC), `null` as `null`. */
export function writtenByOutput(writtenBy: WrittenBy): WrittenByOutput;
export function writtenByOutput(writtenBy: WrittenBy | null): WrittenByOutput | null;
export function writtenByOutput(writtenBy: WrittenBy | null): WrittenByOutput | null {
  if (writtenBy === null || writtenBy.status === 'UNATTRIBUTED') return writtenBy && { status: writtenBy.status };
  const { signedAtMs, ...rest } = writtenBy;
  return { ...rest, signedAt: isoTime(signedAtMs) };
}
