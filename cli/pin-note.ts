import type { CliIo } from './io';

/** The pin file each run's client was built from, for the note on a failed verification ({@link pinNote}). */
const pinsUsed = new WeakMap<CliIo, string>();

/** Records that the run of `io` built its client from the stack pin at `path`, for {@link pinNote}. */
export function notePinUsed(io: CliIo, path: string): void {
  pinsUsed.set(io, path);
}

/**
 * What to tell the user when a verification failed under pinned keys: they were not re-read, and
 * how to re-pin after a redeploy. `null` when the run used no pin.
 */
export function pinNote(io: CliIo): string | null {
  const path = pinsUsed.get(io);
  if (path === undefined) return null;
  return `note: the log, guard and sealer keys came from the stack pin ${path}, not from KMS: a checkpoint or refusal that does not verify under them is reported as such and never checked again with a fresh key. If the stack was redeployed with new keys, find out why, then run \`reseal pin\` again.`;
}
