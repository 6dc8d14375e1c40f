import type { SeenSeal } from '../shared/log/seen-seal';

/**
 * Where a client keeps the last signed checkpoint it verified, per lineage, and the newest
 * deployment checkpoint it authenticated, per deployment log (docs/verifiable-log.md, "Checkpoints
 * the client keeps"), as immudb clients keep server state: every later read must be consistent
 * with them, so a rollback or a fork of the table shows. Only verified notes are saved;
 * a loaded note is verified again before use, so a store file edited by someone else can make the
 * client refuse, never accept.
 */
export interface CheckpointStore {
  /**
   * The kept signed checkpoint (C2SP signed note) under `key`, or `null`. The client keys by
   * checkpoint origin: a lineage's `reseal/<stack>/<lineageId>`, the deployment log's
   * `reseal/<stack>`; so one store serves several stacks.
   */
  load(key: string): Promise<string | null>;
  /**
   * Keeps `note` under `key` (the caller has verified it and its consistency). With `replaces`,
   * the store reads the note kept now, right before writing and with no other save of this store
   * in between, and keeps `note` only when `replaces(current)` is true: so a save decided on an
   * older read never moves the key back (docs/verifiable-log.md, "Checkpoints the client keeps",
   * concurrency). A store without that guarantee may ignore `replaces` only if it is never shared.
   */
  save(key: string, note: string, replaces?: (current: string | null) => boolean): Promise<void>;
  /**
   * The seals this client saw awaiting integration in the lineage of checkpoint origin `key`
   * (docs/verifiable-log.md, "Seals seen awaiting integration"), oldest seq first; `[]` when none.
   * A store without it remembers none (a tail rewind is then answered as of the last integration).
   */
  loadSeenSeals?(key: string): Promise<readonly SeenSeal[]>;
  /**
   * Sets the seals seen under `key` to `update(current)`, `current` read right before the write
   * with no other save of this store in between (the same rule as {@link save}): an update adds or
   * removes its own entries and never drops another save's.
   */
  updateSeenSeals?(key: string, update: (current: readonly SeenSeal[]) => readonly SeenSeal[]): Promise<void>;
}
