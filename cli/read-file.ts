import { open } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { parseStrictJson } from '../shared/canonical/strict-json';
import { StrictJsonError, StrictJsonFailure } from '../shared/canonical/strict-json-error';
import { describeError } from '../shared/describe-error';
import { InvalidInputError } from '../shared/errors';
import { parseInput } from '../shared/schemas/parse';
import { BadInputError } from './errors';
import type { CliIo } from './io';
import { issueLines } from './issue-lines';

/** Largest input file the CLI reads, in bytes (a lineage export of ~100k records fits; docs/cli.md, "Input limits"). */
export const MAX_INPUT_FILE_BYTES = 256 * 1024 * 1024;

/** Bytes read per call: the progress callback runs once per piece. */
const READ_PIECE_BYTES = 1024 * 1024;

/** How {@link readJsonFile} bounds and reports its read. */
export interface ReadLimit {
  /** Most bytes read; a larger file is refused (default {@link MAX_INPUT_FILE_BYTES}). */
  readonly maxBytes: number;
  /** The constant's name, for the refusal (e.g. `MAX_ENV_SNAPSHOT_BYTES`). */
  readonly name: string;
  /** Called after each piece read with the bytes read so far and the file's size (0 when not a regular file). */
  readonly onBytes?: (done: number, total: number) => void;
}

/** The default {@link ReadLimit}: {@link MAX_INPUT_FILE_BYTES}, no progress. */
export const INPUT_FILE_LIMIT: ReadLimit = { maxBytes: MAX_INPUT_FILE_BYTES, name: 'MAX_INPUT_FILE_BYTES' };

/**
 * Reads and parses a JSON file with `parseStrictJson` (a repeated member name is refused, never
 * resolved to its last value). The path is reported as the user typed it. The size limit is
 * checked before the text is read whole (docs/cli.md, "Input limits"): a regular file by its
 * size, anything else (a pipe, a device) by counting the bytes as they are read.
 *
 * @param what - what the file holds, for messages (e.g. `"environment snapshot"`)
 * @param limit - the byte limit and its name, and a progress callback (default {@link MAX_INPUT_FILE_BYTES})
 * @throws {BadInputError} when the file is missing, unreadable, larger than the limit (naming the
 *   limit and the size found), not valid JSON (with line and column), nested too deeply, or
 *   repeats a member name (naming its path and key)
 */
export async function readJsonFile(
  io: CliIo,
  path: string,
  what = 'JSON file',
  limit: ReadLimit = INPUT_FILE_LIMIT,
): Promise<unknown> {
  const full = isAbsolute(path) ? path : resolve(io.cwd, path);
  let text: string;
  try {
    const bytes = await readBounded(full, path, what, limit);
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    if (error instanceof BadInputError) throw error;
    throw new BadInputError(`${path}: ${describeReadError(error)}`, { cause: error });
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return parseStrictJson(text, what);
  } catch (error) {
    if (!(error instanceof StrictJsonError)) throw error;
    if (error.failure === StrictJsonFailure.SYNTAX) {
      throw new BadInputError(`${path}: not valid JSON (${error.issues[0]?.message ?? error.message})`, {
        cause: error,
      });
    }
    throw fileInputError(path, what, error);
  }
}

/**
 * Reads a JSON file and validates it with `schema` through `parseInput`, so each issue names its
 * field (escaped when not printable ASCII) and the real reason (e.g. a map key holding a lone
 * UTF-16 surrogate, not zod's generic "Invalid key in record").
 *
 * @param what - what the file holds, for messages (e.g. `"environment snapshot"`)
 * @throws {BadInputError} naming the file and every bad field
 */
export async function readSchemaFile<S extends z.ZodType>(
  io: CliIo,
  path: string,
  schema: S,
  what: string,
): Promise<z.output<S>> {
  const raw = await readJsonFile(io, path, what);
  return validateFileContent(path, what, () => parseInput(schema, raw, what, { unknownFieldPerKey: true }));
}

/**
 * Runs `evaluate` on the content of `path`, turning an {@link InvalidInputError} into a
 * {@link BadInputError} whose message names the file and each field.
 */
export function validateFileContent<T>(path: string, what: string, evaluate: () => T): T {
  try {
    return evaluate();
  } catch (error) {
    if (error instanceof InvalidInputError) throw fileInputError(path, what, error);
    throw error;
  }
}

/**
 * Turns a core {@link InvalidInputError} into a {@link BadInputError} naming `path` and each field
 * (a field that is not printable ASCII is shown as an escaped JSON string, e.g. `"\udc00"`).
 */
export function fileInputError(path: string, what: string, error: InvalidInputError): BadInputError {
  return new BadInputError(`${path}: invalid ${what}\n${issueLines(error)}`, { cause: error });
}

/**
 * The bytes of `full`, refused with a {@link BadInputError} as soon as they are known to pass
 * `limit.maxBytes`: before any read for a regular file, else at the first piece past it.
 */
async function readBounded(full: string, path: string, what: string, limit: ReadLimit): Promise<Buffer> {
  const tooLarge = (found: string) =>
    new BadInputError(
      `${path}: ${what} is larger than the limit of ${limit.maxBytes.toLocaleString('en-US')} bytes ` +
        `(${limit.name}, docs/cli.md "Input limits"): ${found}`,
    );
  const handle = await open(full, 'r');
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    const size = stat.isFile() ? stat.size : 0;
    if (size > limit.maxBytes) throw tooLarge(`the file is ${size.toLocaleString('en-US')} bytes`);
    const pieces: Buffer[] = [];
    let read = 0;
    for (;;) {
      const piece = Buffer.allocUnsafe(READ_PIECE_BYTES);
      const { bytesRead } = await handle.read(piece, 0, READ_PIECE_BYTES, null);
      if (bytesRead === 0) break;
      read += bytesRead;
      if (read > limit.maxBytes) throw tooLarge(`read ${read.toLocaleString('en-US')} bytes before stopping`);
      pieces.push(bytesRead === READ_PIECE_BYTES ? piece : piece.subarray(0, bytesRead));
      limit.onBytes?.(read, size);
    }
    return pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, read);
  } finally {
    await handle.close();
  }
}

function describeReadError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'file not found';
  if (code === 'EISDIR') return 'is a directory, not a file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (error instanceof TypeError) return 'not UTF-8 text';
  return `cannot read file (${describeError(error)})`;
}
