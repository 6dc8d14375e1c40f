import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { type SeenSeal, SeenSealSchema } from '../shared/log/seen-seal';
import { wellFormedString } from '../shared/schemas/well-formed-string';
import type { CheckpointStore } from './checkpoint-store';
import { CheckpointFileError } from './errors';

/**
 * The file a {@link FileCheckpointStore} reads: `{ formatVersion, checkpoints: { <origin>: <note> },
 * seenSeals?: { <lineage origin>: [SeenSeal…] } }` (docs/verifiable-log.md, "Checkpoints the client
 * keeps"). Format 1 holds signed lineage checkpoints only; format 2 also deployment checkpoints
 * (origin `reseal/<stack>`); format 3, the one written, also the seals the client saw awaiting
 * integration. A client that knows an older format refuses a newer file rather than rewriting it
 * without knowing what it keeps; formats 1 and 2 are read as is and written back as format 3.
 */
export const CheckpointFileSchema = z
  .strictObject({
    formatVersion: z.union([z.literal(1), z.literal(2), z.literal(3)]),
    checkpoints: z.record(wellFormedString(1024).min(1), wellFormedString(16_384)),
    seenSeals: z.record(wellFormedString(1024).min(1), z.array(SeenSealSchema).max(1024)).optional(),
  })
  .refine((file) => file.formatVersion === 3 || file.seenSeals === undefined, {
    message: 'seenSeals is a format-3 field',
  });

/** The format {@link FileCheckpointStore} writes. */
export const CHECKPOINT_FILE_FORMAT = 3;

type CheckpointFile = { checkpoints: Record<string, string>; seenSeals: Record<string, readonly SeenSeal[]> };

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
    return (await this.#read()).checkpoints[key] ?? null;
  }

  /**
   * Serialised with the other saves of this store; `replaces` sees the note in the file right
   * before the write ({@link CheckpointStore.save}).
   * @throws {CheckpointFileError} when the file exists but is not a checkpoint file
   */
  save(key: string, note: string, replaces?: (current: string | null) => boolean): Promise<void> {
    return this.#queue((file) => {
      if (replaces && !replaces(file.checkpoints[key] ?? null)) return null;
      return { ...file, checkpoints: { ...file.checkpoints, [key]: note } };
    });
  }

  /** @throws {CheckpointFileError} when the file exists but is not a checkpoint file */
  async loadSeenSeals(key: string): Promise<readonly SeenSeal[]> {
    return (await this.#read()).seenSeals[key] ?? [];
  }

  /**
   * Serialised with the other saves of this store ({@link CheckpointStore.updateSeenSeals}); a
   * lineage left with no seal loses its key.
   * @throws {CheckpointFileError} when the file exists but is not a checkpoint file
   */
  updateSeenSeals(key: string, update: (current: readonly SeenSeal[]) => readonly SeenSeal[]): Promise<void> {
    return this.#queue((file) => {
      const current = file.seenSeals[key] ?? [];
      const next = update(current);
      if (next.length === current.length && next.every((entry, i) => entry === current[i])) return null;
      const { [key]: _dropped, ...others } = file.seenSeals;
      return { ...file, seenSeals: next.length === 0 ? others : { ...others, [key]: next } };
    });
  }

  /** Runs `change` on the file read afresh, after every earlier save of this store; `null` writes nothing. */
  #queue(change: (file: CheckpointFile) => CheckpointFile | null): Promise<void> {
    const run = this.#saving.then(async () => {
      const next = change(await this.#read());
      if (next) await this.#write(next);
    });
    this.#saving = run.catch(() => undefined);
    return run;
  }

  async #write(file: CheckpointFile): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.${randomUUID()}.tmp`;
    const body = {
      formatVersion: CHECKPOINT_FILE_FORMAT,
      checkpoints: file.checkpoints,
      ...(Object.keys(file.seenSeals).length > 0 ? { seenSeals: file.seenSeals } : {}),
    };
    await writeFile(temporary, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, this.path);
  }

  async #read(): Promise<CheckpointFile> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { checkpoints: {}, seenSeals: {} };
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
    return { checkpoints: parsed.data.checkpoints, seenSeals: parsed.data.seenSeals ?? {} };
  }
}
