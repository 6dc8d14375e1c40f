import { groupedCount } from './grouped-count';

/**
 * The size limits of an environment snapshot (docs/cli.md, "Input limits"), the one definition
 * every entry point applies: the CLI's `--env` files, the client's snapshot providers, the MCP
 * tools' `env` argument and the core's checked entry points (`parseEnvSnapshot`, `buildManifest`).
 *
 * Why these numbers: a runner image's full software report is about 1.5 million keys in 84 MB
 * of JSON; the limits leave a third more room. Reseal holds a snapshot in memory (a map of
 * key → value, then one digest per key), about 1 kB per key at peak, so the key limit bounds a
 * CLI run's memory (about 2 GB at the limit, bench/large-env.ts); the byte limit bounds what is
 * read before a key is counted, and is checked before the text is read whole.
 */

/** Most keys an environment snapshot may hold. */
export const MAX_ENV_SNAPSHOT_KEYS = 2_000_000;

/** Largest environment snapshot file read, in bytes of JSON text (128 MiB). */
export const MAX_ENV_SNAPSHOT_BYTES = 128 * 1024 * 1024;

/**
 * The refusal of a snapshot of `keys` keys, or `null` when it is within {@link MAX_ENV_SNAPSHOT_KEYS}.
 * The message names the limit and the count, so the fix (a smaller snapshot) is plain.
 */
export function envSnapshotKeyLimitIssue(keys: number): string | null {
  if (keys <= MAX_ENV_SNAPSHOT_KEYS) return null;
  return (
    `environment snapshot holds ${groupedCount(keys)} keys, more than the limit of ` +
    `${groupedCount(MAX_ENV_SNAPSHOT_KEYS)} (MAX_ENV_SNAPSHOT_KEYS, docs/cli.md "Input limits")`
  );
}
