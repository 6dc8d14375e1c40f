// The compiled CLI of a clone (docs/cli.md, "Start-up"): bin/reseal.mjs runs it when it is fresh,
// and rebuilds it (with a note on stderr) when any source it was built from changed. Plain
// JavaScript with Node built-ins only, so checking freshness costs a few file stats; esbuild is
// loaded only to build. Never shipped: an installed package runs dist/cli.js.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the compiled CLI lives, relative to the repository root (inside node_modules: never committed). */
export const CLI_CACHE = join('node_modules', '.cache', 'reseal-cli');
const STAMP = 'stamp.json';
/** Builds older than this (a day: a long-running `reseal mcp` may still load chunks of its own), other than the new one, are removed by the next build. */
const KEEP_OLD_BUILDS_MS = 24 * 60 * 60 * 1000;

/**
 * The compiled CLI when it is fresh: every source file it was bundled from has the size and
 * modification time it had at build time.
 *
 * @param {string} root - the repository root
 * @returns {{ entry: string } | { stale: string }} its entry file, or why it must be rebuilt
 */
export function freshCli(root) {
  const dir = join(root, CLI_CACHE);
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(dir, STAMP), 'utf8'));
  } catch {
    return { stale: 'no compiled CLI yet' };
  }
  for (const [path, [size, mtimeMs]] of Object.entries(stamp.inputs)) {
    let now;
    try {
      now = statSync(join(root, path));
    } catch {
      return { stale: `${path} is gone` };
    }
    if (now.size !== size || now.mtimeMs !== mtimeMs) return { stale: `${path} changed since it was built` };
  }
  return { entry: join(dir, stamp.build, 'main.js') };
}

/**
 * Bundles cli/main.ts with esbuild (ESM for Node 20, npm packages external, one chunk per lazily
 * loaded command) into a new folder of {@link CLI_CACHE} and makes it current. Concurrent runs
 * each build their own folder; the stamp is replaced atomically, so a running CLI never loses
 * the chunks it loads later.
 *
 * @param {string} root - the repository root
 * @returns {Promise<string>} the entry file of the new build
 */
export async function buildCli(root) {
  const { build } = await import('esbuild');
  const dir = join(root, CLI_CACHE);
  const name = `build-${Date.now().toString(36)}-${process.pid}`;
  const startedMs = Date.now();
  const result = await build({
    absWorkingDir: root,
    entryPoints: { main: join(root, 'cli', 'main.ts') },
    outdir: join(dir, name),
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    keepNames: true,
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = {};
  let editedDuringBuild = false;
  for (const path of Object.keys(result.metafile.inputs)) {
    const stat = statSync(join(root, path));
    inputs[path] = [stat.size, stat.mtimeMs];
    if (stat.mtimeMs >= startedMs) editedDuringBuild = true;
  }
  // A source edited while it was bundled may not be in the build: leave it unstamped (stale).
  if (!editedDuringBuild) {
    const temporary = join(dir, `${STAMP}.${process.pid}`);
    writeFileSync(temporary, JSON.stringify({ build: name, inputs }));
    renameSync(temporary, join(dir, STAMP));
  }
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === name || !entry.name.startsWith('build-')) continue;
    const path = join(dir, entry.name);
    if (Date.now() - statSync(path).mtimeMs > KEEP_OLD_BUILDS_MS) rmSync(path, { recursive: true, force: true });
  }
  mkdirSync(dir, { recursive: true });
  return join(dir, name, 'main.js');
}
