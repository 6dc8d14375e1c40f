import type { SeenSeal } from '../shared/log/seen-seal';
import type { CheckpointStore } from './checkpoint-store';

/** A {@link CheckpointStore} in memory (one process). */
export class MemoryCheckpointStore implements CheckpointStore {
  readonly #notes = new Map<string, string>();
  readonly #seen = new Map<string, readonly SeenSeal[]>();
  async load(key: string): Promise<string | null> {
    return this.#notes.get(key) ?? null;
  }
  async save(key: string, note: string, replaces?: (current: string | null) => boolean): Promise<void> {
    if (replaces && !replaces(this.#notes.get(key) ?? null)) return;
    this.#notes.set(key, note);
  }
  async loadSeenSeals(key: string): Promise<readonly SeenSeal[]> {
    return this.#seen.get(key) ?? [];
  }
  async updateSeenSeals(key: string, update: (current: readonly SeenSeal[]) => readonly SeenSeal[]): Promise<void> {
    this.#seen.set(key, update(this.#seen.get(key) ?? []));
  }
}
