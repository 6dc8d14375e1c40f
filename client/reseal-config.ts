import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { parseStrictJson } from '../shared/canonical/strict-json';
import { MapKey } from '../shared/schemas/map-key';
import { parseInput } from '../shared/schemas/parse';
import { safeRecord } from '../shared/schemas/safe-record';
import { wellFormedString } from '../shared/schemas/well-formed-string';

/** File name the client, the CLI and the MCP server look for in the working directory. */
export const RESEAL_CONFIG_FILE = 'reseal.config.json';

/** Longest a snapshot command may run, in milliseconds, when neither it nor the config says. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;

const TimeoutMs = z.number().int().min(1).max(120_000);

/** A command whose output is one snapshot value (`tool:<name>`), run with `execFile`: no shell. */
const SnapshotCommandSchema = z.strictObject({
  /** Executable, looked up on `PATH` (e.g. `node`, `git`). No shell: pipes and globs do not apply. */
  command: wellFormedString(1024).min(1),
  /** Arguments, passed as they are (e.g. `["--version"]`). */
  args: z.array(wellFormedString(4096)).max(64).default([]),
  /** Kill it after this many milliseconds (default: the config's `timeoutMs`, else 5,000). */
  timeoutMs: TimeoutMs.optional(),
});
/** Type of {@link SnapshotCommandSchema} (after defaults). */
export type SnapshotCommand = z.infer<typeof SnapshotCommandSchema>;

/**
 * What an environment snapshot is made of (docs/mcp.md, "Environment snapshots"). Each provider
 * yields keys of one prefix, so their keys never collide:
 * - `env`: environment variables, by exact name or by prefix → `env:<NAME>`;
 * - `commands`: the trimmed standard output of named commands (tool versions) → `tool:<name>`;
 * - `files`: SHA-256 (hex) of named files' bytes → `file:<path as written>`.
 */
export const SnapshotConfigSchema = z.strictObject({
  env: z
    .strictObject({
      /** Variables taken by exact name (e.g. `HTTP_PROXY`). */
      names: z.array(MapKey).max(1024).default([]),
      /** Variables taken when their name starts with one of these (e.g. `NODE_`). */
      prefixes: z.array(MapKey).max(64).default([]),
    })
    .default({ names: [], prefixes: [] }),
  /** Command name → command; the name is the key's suffix (`tool:<name>`), so it holds no `:`. */
  commands: safeRecord(SnapshotCommandSchema)
    .superRefine((commands, ctx) => {
      for (const name of Object.keys(commands)) {
        if (name.includes(':')) {
          ctx.addIssue({ code: 'custom', path: [name], message: 'a command name must not contain ":"' });
        }
      }
    })
    .default({}),
  /** Paths, relative to the config file's folder unless absolute. */
  files: z.array(wellFormedString(4096).min(1)).max(1024).default([]),
  /** Default timeout of each command, in milliseconds (5,000 when absent). */
  timeoutMs: TimeoutMs.optional(),
});
/** Type of {@link SnapshotConfigSchema} (after defaults). */
export type SnapshotConfig = z.infer<typeof SnapshotConfigSchema>;

/**
 * The `reseal.config.json` file: strict (an unknown or misspelt field is refused, naming it).
 *
 * `{ snapshot?: { env?: { names?, prefixes? }, commands?: { <name>: { command, args?, timeoutMs? } },
 *    files?: string[], timeoutMs? } }`
 */
export const ResealConfigSchema = z.strictObject({
  snapshot: SnapshotConfigSchema.default({
    env: { names: [], prefixes: [] },
    commands: {},
    files: [],
  }),
});
/** Type of {@link ResealConfigSchema} (after defaults). */
export type ResealConfig = z.infer<typeof ResealConfigSchema>;

/** A config and the folder its relative paths are resolved against. */
export interface LoadedResealConfig {
  readonly config: ResealConfig;
  /** Absolute path of the file it was read from. */
  readonly path: string;
  /** Folder of that file: relative `files` and each command's working directory. */
  readonly dir: string;
}

/**
 * Reads and validates a `reseal.config.json` file (strict JSON: a repeated member name is
 * refused, never "the last one wins").
 *
 * @param path - the file, absolute or relative to the process's working directory
 * @throws {InvalidInputError} naming the file and each bad field (`snapshot.commands.git.args`)
 * @throws {Error} (`ENOENT`, …) when the file cannot be read
 */
export async function loadResealConfig(path: string): Promise<LoadedResealConfig> {
  const absolute = resolve(path);
  const text = await readFile(absolute, 'utf8');
  const what = `Reseal config ${path}`;
  const config = parseInput(ResealConfigSchema, parseStrictJson(text, what), what, { unknownFieldPerKey: true });
  return { config, path: absolute, dir: dirname(absolute) };
}
