import type { CheckpointStore } from './checkpoint-store';

/** A {@link CheckpointStore} in memory (one process). */
export class MemoryCheckpointStore implements CheckpointStore {
  readonly #notes = new Map<string, string>();
  async load(key: string): Promise<string | null> {
    return this.#notes.get(key) ?? null;
  }
  async save(key: string, note: string, replaces?: (current: string | null) => boolean): Promise<void> {
    if (replaces && !replaces(this.#notes.get(key) ?? null)) return;
    this.#notes.set(key, note);
  }
}
