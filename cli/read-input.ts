import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { InvalidInputError } from '../shared/errors';
import { BadInputError } from './errors';
import type { CliIo } from './io';

/** Largest input file the CLI reads, in bytes (a lineage export of ~100k records fits). */
export const MAX_INPUT_FILE_BYTES = 256 * 1024 * 1024;

/**
 * Reads and parses a JSON file. The path is reported as the user typed it.
 *
 * @throws {BadInputError} when the file is missing, unreadable, too large or not valid JSON
 */
export async function readJsonFile(io: CliIo, path: string): Promise<unknown> {
  const full = isAbsolute(path) ? path : resolve(io.cwd, path);
  let text: string;
  try {
    const bytes = await readFile(full);
    if (bytes.byteLength > MAX_INPUT_FILE_BYTES) {
      throw new BadInputError(`${path}: file is larger than ${MAX_INPUT_FILE_BYTES} bytes`);
    }
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    if (error instanceof BadInputError) throw error;
    throw new BadInputError(`${path}: ${describeReadError(error)}`, { cause: error });
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BadInputError(`${path}: not valid JSON (${describeJsonError(error, text)})`, { cause: error });
  }
}

/** A one-line JSON parse error, with line and column when the engine reports a position. */
function describeJsonError(error: unknown, text: string): string {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
  const token = /^Unexpected (token '.+?'|end of JSON input|non-whitespace character after JSON)/.exec(message)?.[0];
  const position = /at position (\d+)/.exec(message)?.[1];
  const summary = (token ?? message.split(', "')[0] ?? message).replace(/ (in JSON )?at position \d+$/, '');
  if (position === undefined) return summary.length > 120 ? `${summary.slice(0, 117)}...` : summary;
  const before = text.slice(0, Number(position));
  const line = before.split('\n').length;
  const column = Number(position) - before.lastIndexOf('\n');
  return `${summary} at line ${line} column ${column}`;
}

/**
 * Reads a JSON file and validates it with `schema`.
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
  const raw = await readJsonFile(io, path);
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const lines = result.error.issues.flatMap((issue) => {
    const at = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `  at ${at ? `${at}.` : ''}${key}: unknown field (not part of the ${what})`);
    }
    return [`  at ${at || '<root>'}: ${issue.message}`];
  });
  throw new BadInputError(`${path}: invalid ${what}\n${lines.join('\n')}`, { cause: result.error });
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

/** Turns a core {@link InvalidInputError} into a {@link BadInputError} naming `path` and each field. */
export function fileInputError(path: string, what: string, error: InvalidInputError): BadInputError {
  const lines = error.issues.map((issue) => `  at ${issue.path || '<root>'}: ${issue.message}`);
  return new BadInputError(`${path}: invalid ${what}\n${lines.join('\n')}`, { cause: error });
}

function describeReadError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'file not found';
  if (code === 'EISDIR') return 'is a directory, not a file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (error instanceof TypeError) return 'not UTF-8 text';
  return `cannot read file (${error instanceof Error ? error.message : String(error)})`;
}
