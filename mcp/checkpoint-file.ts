import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { parseStrictJson } from '../shared/canonical/strict-json';
import { parseInput } from '../shared/schemas/parse';
import { EpochMillis, safeRecord } from '../shared/schemas/primitives';
import { type ChainCheckpoint, ChainCheckpointSchema } from '../shared/seal/chain-verification';

/**
 * Where the MCP server keeps, per lineage, the last head it saw verified (a write's verified seal,
 * or a `reseal_verify` that came back intact): the checkpoint it recalls and verifies against
 * when the caller passes none, so a cut tail or a rewritten record is caught across sessions.
 */
export interface CheckpointKeeper {
  /** The kept checkpoint of a lineage, or `null`. */
  get(lineageId: string): Promise<ChainCheckpoint | null>;
  /** Keeps `checkpoint` unless one at a later seq is already kept. */
  keep(lineageId: string, checkpoint: ChainCheckpoint): Promise<void>;
}

const CheckpointFileSchema = z.strictObject({
  formatVersion: z.literal(1),
  lineages: safeRecord(ChainCheckpointSchema.extend({ keptAtMs: EpochMillis })),
});
type CheckpointFile = z.infer<typeof CheckpointFileSchema>;

/** A {@link CheckpointKeeper} for one server process only (no `RESEAL_CHECKPOINTS` file). */
export class MemoryCheckpoints implements CheckpointKeeper {
  readonly #kept = new Map<string, ChainCheckpoint>();
  async get(lineageId: string): Promise<ChainCheckpoint | null> {
    return this.#kept.get(lineageId) ?? null;
  }
  async keep(lineageId: string, checkpoint: ChainCheckpoint): Promise<void> {
    const kept = this.#kept.get(lineageId);
    if (!kept || kept.seq < checkpoint.seq)
      this.#kept.set(lineageId, { seq: checkpoint.seq, recordHash: checkpoint.recordHash });
  }
}

/**
 * A {@link CheckpointKeeper} in a JSON file (`{ formatVersion: 1, lineages: { <id>: { seq,
 * recordHash, keptAtMs } } }`), read on every call and replaced atomically (write, then rename),
 * so several servers of one user can share it. A missing file is an empty one; a corrupt file is
 * an error, never silently reset (it would drop the checkpoints that catch truncation).
 */
export class FileCheckpoints implements CheckpointKeeper {
  readonly #path: string;
  readonly #nowMs: () => number;
  constructor(path: string, nowMs: () => number = Date.now) {
    this.#path = path;
    this.#nowMs = nowMs;
  }

  /** @throws {InvalidInputError} when the file is not a checkpoint file */
  async get(lineageId: string): Promise<ChainCheckpoint | null> {
    const kept = (await this.#read()).lineages[lineageId];
    return kept ? { seq: kept.seq, recordHash: kept.recordHash } : null;
  }

  /** @throws {InvalidInputError} when the file is not a checkpoint file */
  async keep(lineageId: string, checkpoint: ChainCheckpoint): Promise<void> {
    const file = await this.#read();
    const kept = file.lineages[lineageId];
    if (kept && kept.seq >= checkpoint.seq) return;
    const next: CheckpointFile = {
      formatVersion: 1,
      lineages: {
        ...file.lineages,
        [lineageId]: { seq: checkpoint.seq, recordHash: checkpoint.recordHash, keptAtMs: this.#nowMs() },
      },
    };
    await mkdir(dirname(this.#path), { recursive: true });
    const temporary = `${this.#path}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, this.#path);
  }

  async #read(): Promise<CheckpointFile> {
    let text: string;
    try {
      text = await readFile(this.#path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { formatVersion: 1, lineages: {} };
      throw error;
    }
    const what = `checkpoint file ${this.#path}`;
    return parseInput(CheckpointFileSchema, parseStrictJson(text, what), what);
  }
}
