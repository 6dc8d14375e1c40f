import { createHash, randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_KEPT_MANIFEST_BYTES, type ManifestCache } from '../shared/ports/manifest-cache';

/** Where the CLI keeps manifests, relative to the working directory, unless {@link MANIFEST_CACHE_ENV} names another directory. */
export const DEFAULT_MANIFEST_CACHE_DIR = '.reseal/manifests';
/** Environment variable naming the CLI's manifest directory instead of {@link DEFAULT_MANIFEST_CACHE_DIR}; `none` keeps none. */
export const MANIFEST_CACHE_ENV = 'RESEAL_MANIFEST_CACHE';
/** The {@link MANIFEST_CACHE_ENV} value that turns the CLI's manifest directory off. */
export const NO_MANIFEST_CACHE = 'none';

/** Files a {@link FileManifestCache} keeps by default: at most 64 KiB of manifest each, so about 16 MiB. */
export const FILE_MANIFEST_CACHE_FILES = 256;

/** A temporary file older than this is a writer's that died before its rename: removed when the directory is bounded. */
const STALE_TEMPORARY_MS = 10 * 60 * 1000;

/** A kept file's name: 64 hex digits and `.json`; nothing else in the directory is read as one. */
const KEPT_FILE = /^[0-9a-f]{64}\.json$/;

/**
 * A temporary file's name as `set` makes it (`.<UUID>.<pid>.tmp`): only such a file is removed
 * as a dead writer's, so a directory named by `RESEAL_MANIFEST_CACHE` that other programs use
 * too (a home directory, `/tmp`) loses none of their temporary files.
 */
const TEMPORARY_FILE = /^\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.\d+\.tmp$/;

/** The file format, `{ formatVersion, key, manifest }`. */
const FORMAT_VERSION = 1;

/**
 * A {@link ManifestCache} in a directory, shared by the processes that name it (the CLI's
 * `.reseal/manifests/`: docs/cli.md, "Kept manifests"), so a recall in a new process reads no
 * manifest item an earlier one proved. Each manifest is one file `<SHA-256 of the key>.json`
 * holding `{ formatVersion: 1, key, manifest }`: the key (a lineage id is any string) never
 * names a path, and a file answers only the key it holds. Written atomically (a temporary file
 * of its own, renamed over the name), so a concurrent reader finds the whole file or none.
 * Bounded by count (default {@link FILE_MANIFEST_CACHE_FILES}), the least recently used (file
 * modification time, touched on each hit) removed first. Nothing read is trusted: the chain
 * store checks a manifest against its digest before use; a file that is too large, does not
 * parse or is not of this format is removed and reads as absent. No error escapes.
 */
export class FileManifestCache implements ManifestCache {
  /** The directory the files are kept in, as given (a relative path is the process's working directory's). */
  readonly directory: string;
  readonly #maxFiles: number;

  /**
   * @param directory - created on the first write (mode 0700; files 0600)
   * @param maxFiles - files kept at most (≥ 1)
   */
  constructor(directory: string, maxFiles = FILE_MANIFEST_CACHE_FILES) {
    this.directory = directory;
    this.#maxFiles = Math.max(1, maxFiles);
  }

  /** The file that keeps `key`'s manifest: its name is a hash, whatever the key holds. */
  pathOf(key: string): string {
    // JSON.stringify first: distinct keys, lone surrogates included, hash distinct bytes.
    return join(this.directory, `${createHash('sha256').update(JSON.stringify(key), 'utf8').digest('hex')}.json`);
  }

  async get(key: string): Promise<unknown> {
    const path = this.pathOf(key);
    let handle: FileHandle;
    try {
      // Never follows a link and never waits on a FIFO planted under the name: a regular file or a miss.
      handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      return undefined; // absent (or unreadable): a miss
    }
    try {
      const file = await handle.stat();
      if (!file.isFile() || file.size > maxFileBytes(key)) {
        await forget(path);
        return undefined;
      }
      // At most one byte past the size stated: a file grown since (only a hostile writer changes
      // a kept file in place; `set` renames a new one over it) is never read whole into memory.
      const bytes = await readAtMost(handle, file.size + 1);
      const kept = bytes.length > file.size ? null : keptOf(bytes.toString('utf8'));
      if (kept === null) {
        await forget(path);
        return undefined;
      }
      if (kept.key !== key) return undefined; // another key's file (a hash collision would be news)
      // The use is marked on the file read, through its descriptor: never on whatever the name
      // holds by now (a link swapped in would have its target touched).
      const now = new Date();
      await handle.utimes(now, now).catch(() => undefined);
      return kept.manifest;
    } catch {
      return undefined; // unreadable: a miss
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  async set(key: string, manifest: unknown): Promise<void> {
    const body = JSON.stringify({ formatVersion: FORMAT_VERSION, key, manifest });
    if (Buffer.byteLength(body, 'utf8') > maxFileBytes(key)) return;
    const path = this.pathOf(key);
    const temporary = join(this.directory, `.${randomUUID()}.${process.pid}.tmp`);
    try {
      await mkdir(this.directory, { recursive: true, mode: 0o700 });
      await writeFile(temporary, body, { mode: 0o600, flag: 'wx' });
      await rename(temporary, path);
    } catch {
      await forget(temporary);
      return;
    }
    await this.#bound();
  }

  async delete(key: string): Promise<void> {
    await forget(this.pathOf(key));
  }

  /** Removes the least recently used files past the bound, and temporary files a dead writer left. */
  async #bound(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch {
      return;
    }
    const kept = names.filter((name) => KEPT_FILE.test(name));
    const temporaries = names.filter((name) => TEMPORARY_FILE.test(name));
    const nowMs = Date.now();
    for (const name of temporaries) {
      const modified = await modifiedMs(join(this.directory, name));
      if (modified !== null && nowMs - modified > STALE_TEMPORARY_MS) await forget(join(this.directory, name));
    }
    if (kept.length <= this.#maxFiles) return;
    const aged = await Promise.all(
      kept.map(async (name) => ({ name, modified: (await modifiedMs(join(this.directory, name))) ?? 0 })),
    );
    aged.sort((a, b) => a.modified - b.modified || a.name.localeCompare(b.name));
    for (const { name } of aged.slice(0, aged.length - this.#maxFiles)) await forget(join(this.directory, name));
  }
}

/** The largest file kept for `key`: its manifest at the bound, the key and the format's frame. */
function maxFileBytes(key: string): number {
  return MAX_KEPT_MANIFEST_BYTES + Buffer.byteLength(JSON.stringify(key), 'utf8') + 64;
}

/** The key and manifest a file's text holds, or `null` when it is not a file of this format. */
function keptOf(text: string): { key: string; manifest: object } | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return null;
  const { formatVersion, key, manifest } = json as Record<string, unknown>;
  if (formatVersion !== FORMAT_VERSION || typeof key !== 'string') return null;
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) return null;
  return { key, manifest };
}

/** Up to `limit` bytes from the start of an open file (fewer at its end). */
async function readAtMost(handle: FileHandle, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(limit);
  let length = 0;
  while (length < limit) {
    const { bytesRead } = await handle.read(buffer, length, limit - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  return buffer.subarray(0, length);
}

/** The file's modification time, ms since the Unix epoch (the bound's recency), or `null` when it is gone. */
async function modifiedMs(path: string): Promise<number | null> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return null;
  }
}

/** Removes the file at `path`, if any; never throws (a cache that cannot write answers as if it kept nothing). */
async function forget(path: string): Promise<void> {
  await rm(path, { force: true }).catch(() => undefined);
}
