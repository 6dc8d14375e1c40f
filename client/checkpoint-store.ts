import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { wellFormedString } from '../shared/schemas/primitives';
import { CheckpointFileError } from './errors';

/**
 * Where a client keeps the last signed checkpoint it verified, per lineage (docs/verifiable-log.md,
 * "Checkpoints the client keeps"), as immudb clients keep server state: every later read must be
 * consistent with it, so a rollback or a fork of the table shows. Only verified notes are saved;
 * a loaded note is verified again before use, so a store file edited by someone else can make the
 * client refuse, never accept.
 */
export interface CheckpointStore {
  /**
   * The kept signed checkpoint (C2SP signed note) under `key`, or `null`. The client keys by
   * checkpoint origin (`reseal/<stack>/<lineageId>`), so one store serves several stacks.
   */
  load(key: string): Promise<string | null>;
  /** Keeps `note` under `key` (the caller has verified it and its consistency). */
  save(key: string, note: string): Promise<void>;
}

/** A {@link CheckpointStore} in memory (one process). */
export class MemoryCheckpointStore implements CheckpointStore {
  readonly #notes = new Map<string, string>();
  async load(key: string): Promise<string | null> {
    return this.#notes.get(key) ?? null;
  }
  async save(key: string, note: string): Promise<void> {
    this.#notes.set(key, note);
  }
}

/** The file a {@link FileCheckpointStore} writes: `{ formatVersion: 1, checkpoints: { <origin>: <note> } }`. */
export const CheckpointFileSchema = z.strictObject({
  formatVersion: z.literal(1),
  checkpoints: z.record(wellFormedString(1024).min(1), wellFormedString(16_384)),
});

/**
 * A {@link CheckpointStore} in one JSON file ({@link CheckpointFileSchema}), written atomically
 * (a temporary file renamed over it). A missing file is an empty store; a malformed one is an
 * error, never silently reset (that would forget what the client trusted).
 */
export class FileCheckpointStore implements CheckpointStore {
  readonly path: string;
  constructor(path: string) {
    this.path = path;
  }

  /** @throws {CheckpointFileError} when the file exists but is not a checkpoint file */
  async load(key: string): Promise<string | null> {
    return (await this.#read())[key] ?? null;
  }

  /** @throws {CheckpointFileError} when the file exists but is not a checkpoint file */
  async save(key: string, note: string): Promise<void> {
    const checkpoints = { ...(await this.#read()), [key]: note };
    await mkdir(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify({ formatVersion: 1, checkpoints }, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, this.path);
  }

  async #read(): Promise<Record<string, string>> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new CheckpointFileError(this.path, (error as Error).message, { cause: error });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new CheckpointFileError(this.path, 'not JSON', { cause: error });
    }
    const parsed = CheckpointFileSchema.safeParse(json);
    if (!parsed.success)
      throw new CheckpointFileError(this.path, `not a checkpoint file (${parsed.error.issues[0]?.message})`);
    return parsed.data.checkpoints;
  }
}
