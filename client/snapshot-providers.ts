import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { InvalidInputError } from '../shared/errors';
import type { EnvSnapshot } from '../shared/schemas/env-snapshot';
import { envSnapshotKeyLimitIssue } from '../shared/schemas/env-snapshot-limits';
import { type CommandRun, type CommandRunner, execFileRunner } from './exec-file-runner';
import { DEFAULT_COMMAND_TIMEOUT_MS, type SnapshotConfig } from './reseal-config';

/** Key prefixes of the providers' keys: `env:HTTP_PROXY`, `tool:node`, `file:package-lock.json`. */
export const SnapshotKeyPrefix = { ENV: 'env:', TOOL: 'tool:', FILE: 'file:' } as const;

/** Largest value a snapshot key may hold (the `EnvSnapshot` bound), in UTF-16 code units. */
const MAX_VALUE_LENGTH = 65_536;

/**
 * An environment snapshot as the providers took it: the flat `key → value` map a manifest seals
 * (the core's `EnvSnapshot`), and a note for each key that could not be taken (command not found,
 * non-zero exit, timeout, unreadable file). A key that could not be taken is absent, as a tool
 * that is not installed is absent: a claim resting on it shows as drift (`vanished`).
 */
export interface TakenSnapshot {
  readonly env: EnvSnapshot;
  /** One line per key left out, e.g. `tool:docker: not run (spawn docker ENOENT)`. */
  readonly notes: readonly string[];
}

/** Something that takes environment snapshots on demand (the configured providers, or a fake). */
export interface SnapshotSource {
  /**
   * Takes a fresh snapshot; never throws for a key that cannot be taken (it is noted instead).
   * Throws `InvalidInputError` when the snapshot holds more than `MAX_ENV_SNAPSHOT_KEYS` keys
   * (docs/cli.md, "Input limits"), naming the limit and the count.
   */
  take(): Promise<TakenSnapshot>;
}

/** Options of {@link snapshotProviders}. */
export interface SnapshotProviderOptions {
  /** Folder relative file paths and commands run in (the config file's folder). */
  readonly dir: string;
  /** Environment variables to read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Runs commands (default: `execFile`, no shell, with the timeout). */
  readonly run?: CommandRunner;
}

/** The value of a command's run: its trimmed standard output, else its trimmed standard error. */
function commandValue(run: Extract<CommandRun, { ok: true }>): string {
  const out = run.stdout.trim();
  return out !== '' ? out : run.stderr.trim();
}

/**
 * The snapshot providers of a config's `snapshot` section (docs/mcp.md, "Environment snapshots"):
 * each {@link SnapshotSource.take} reads the allow-listed environment variables, runs every named
 * command (concurrently, each with its timeout) and hashes every named file (SHA-256 hex of its
 * bytes), and returns them as one flat map with keys in code-unit order.
 *
 * @example
 * const { config, dir } = await loadResealConfig('reseal.config.json');
 * const { env, notes } = await snapshotProviders(config.snapshot, { dir }).take();
 * // env: { 'env:HTTP_PROXY': '…', 'file:package-lock.json': '3b0c…', 'tool:node': 'v20.20.2' }
 */
export function snapshotProviders(config: SnapshotConfig, options: SnapshotProviderOptions): SnapshotSource {
  const run = options.run ?? execFileRunner;
  return {
    async take() {
      const values = new Map<string, string>();
      const notes: string[] = [];
      const environment = options.env ?? process.env;
      for (const [name, value] of Object.entries(environment)) {
        if (value === undefined) continue;
        const wanted = config.env.names.includes(name) || config.env.prefixes.some((prefix) => name.startsWith(prefix));
        if (!wanted) continue;
        const key = `${SnapshotKeyPrefix.ENV}${name}`;
        if (!value.isWellFormed() || value.length > MAX_VALUE_LENGTH)
          notes.push(`${key}: left out (not a usable string)`);
        else values.set(key, value);
      }
      const commands = Object.entries(config.commands).map(async ([name, command]) => {
        const key = `${SnapshotKeyPrefix.TOOL}${name}`;
        const timeoutMs = command.timeoutMs ?? config.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
        const result = await run(command, { cwd: options.dir, timeoutMs });
        if (!result.ok) return notes.push(`${key}: not run (${result.reason})`);
        const value = commandValue(result);
        if (!value.isWellFormed() || value.length > MAX_VALUE_LENGTH) {
          return notes.push(`${key}: left out (output is not a usable string)`);
        }
        return values.set(key, value);
      });
      const files = config.files.map(async (file) => {
        const key = `${SnapshotKeyPrefix.FILE}${file}`;
        try {
          const bytes = await readFile(isAbsolute(file) ? file : join(options.dir, file));
          values.set(key, createHash('sha256').update(bytes).digest('hex'));
        } catch (error) {
          notes.push(`${key}: not read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
        }
      });
      await Promise.all([...commands, ...files]);
      // The same limit as every other entry point (docs/cli.md, "Input limits"): refused whole, not cut.
      const tooMany = envSnapshotKeyLimitIssue(values.size);
      if (tooMany !== null) throw new InvalidInputError('environment snapshot', [{ path: '', message: tooMany }]);
      const env: Record<string, string> = {};
      for (const key of [...values.keys()].sort()) env[key] = values.get(key) as string;
      return { env, notes: notes.sort() };
    },
  };
}
