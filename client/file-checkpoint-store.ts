import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { wellFormedString } from '../shared/schemas/primitives';
import type { CheckpointStore } from './checkpoint-store';
import { CheckpointFileError } from './errors';

/**
 * The file a {@link FileCheckpointStore} reads: `{ formatVersion, checkpoints: { <origin>: <note> } }`
 * (docs/verifiable-log.md, "Checkpoints the client keeps"). Format 1 holds signed lineage
 * checkpoints only; format 2, the one written, also holds deployment checkpoints (origin
 * `reseal/<stack>`), so a client that knows only format 1 refuses the file rather than rewriting
 * it without knowing what it keeps. A format-1 file is read as is and written back as format 2.
 */
export const CheckpointFileSchema = z.strictObject({
  formatVersion: z.union([z.literal(1), z.literal(2)]),
  checkpoints: z.record(wellFormedString(1024).min(1), wellFormedString(16_384)),
});

/** The format {@link FileCheckpointStore} writes. */
export const CHECKPOINT_FILE_FORMAT = 2;

/**
 * A {@link CheckpointStore} in one JSON file ({@link CheckpointFileSchema}), written atomically
 * (a temporary file of its own, `<path>.<pid>.<uuid>.tmp`, renamed over it). Saves of one store
 * run one at a time, each reading the file afresh, so concurrent saves in a process keep every
 * key and never leave a partial file (docs/verifiable-log.md, "Checkpoints the client keeps").
 * A missing file is an empty store; a malformed one is an error, never silently reset (that would
 * forget what the client trusted).
 */
export class FileCheckpointStore implements CheckpointStore {
  readonly path: string;
  /** The tail of the queue of saves: each save starts once the one before it settled. */
  #saving: Promise<void> = Promise.resolve();
  constructor(path: string) {
    this.path = path;
  }

  /** @throws {CheckpointFileError} when the file exists but is not a checkpoint file */
  async load(key: string): Promise<string | null> {
    return (await this.#read())[key] ?? null;
  }

  /**
   * Serialised with the other saves of this store; `replaces` sees the note in the file right
   * before the write ({@link CheckpointStore.save}).
   * @throws {CheckpointFileError} when the file exists but is not a checkpoint file
   */
  save(key: string, note: string, replaces?: (current: string | null) => boolean): Promise<void> {
    const run = this.#saving.then(() => this.#write(key, note, replaces));
    this.#saving = run.catch(() => undefined);
    return run;
  }

  async #write(key: string, note: string, replaces?: (current: string | null) => boolean): Promise<void> {
    const kept = await this.#read();
    if (replaces && !replaces(kept[key] ?? null)) return;
    const checkpoints = { ...kept, [key]: note };
    await mkdir(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.${randomUUID()}.tmp`;
    await writeFile(temporary, `${JSON.stringify({ formatVersion: CHECKPOINT_FILE_FORMAT, checkpoints }, null, 2)}\n`, {
      mode: 0o600,
    });
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
