/**
 * Builds the installable package into `dist/` (run by `npm run build`, and by `npm pack` through
 * `prepack`): what `npm install reseal-<version>.tgz` needs to run with plain `node`.
 *
 * - JavaScript: esbuild bundles the package's entry points ({@link ENTRY_POINTS}) as ESM for
 *   Node 20, every npm package left external (they are the package's `dependencies`). Code
 *   splitting puts what two entry points share in one chunk under `dist/chunks/`, so `reseal` and
 *   `reseal/core` hand around the same classes (`instanceof InvalidInputError` holds across them).
 *   Bundling is what makes the sources' extensionless relative imports run under Node's ESM loader.
 * - Types: `tsc --emitDeclarationOnly` (tsconfig.build.json) writes one declaration file per source
 *   file under `dist/types/`, then {@link addDeclarationExtensions} spells every relative import
 *   with its `.js` / `/index.js` ending, so the declarations resolve for consumers compiling with
 *   `moduleResolution: node16` / `nodenext` as well as `bundler`.
 *
 * A clone never needs this: `bin/reseal.mjs` runs the TypeScript sources through tsx when they
 * are present.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Output name (`dist/<name>.js`) → source entry point, relative to the repository root. */
export const ENTRY_POINTS = {
  index: 'client/index.ts',
  core: 'shared/index.ts',
  cli: 'cli/main.ts',
  mcp: 'mcp/index.ts',
  'openai-agents': 'frameworks/openai-agents/index.ts',
} as const;

/** Where the declarations go, relative to the repository root (mirrors the source tree). */
export const TYPES_DIR = 'dist/types';

/**
 * Rewrites the relative module specifiers of one declaration file so Node-style resolution finds
 * them: `'./builders'` → `'./builders.js'` when `builders.d.ts` exists beside it, `'./seal'` →
 * `'./seal/index.js'` and `'..'` → `'../index.js'` for a folder. Specifiers that already end in `.js` and package names are
 * left alone.
 *
 * @param text - the declaration file's content
 * @param exists - whether a declaration file exists, given its path relative to the file's folder
 */
export function addDeclarationExtensions(text: string, exists: (relativePath: string) => boolean): string {
  return text.replace(
    /(\bfrom\s+|\bimport\(\s*)(['"])(\.{1,2}(?:\/[^'"]*)?)\2/g,
    (match, lead: string, quote: string, spec: string) => {
      if (spec.endsWith('.js')) return match;
      if (exists(`${spec}.d.ts`)) return `${lead}${quote}${spec}.js${quote}`;
      if (exists(`${spec}/index.d.ts`)) return `${lead}${quote}${spec}/index.js${quote}`;
      throw new Error(`declaration import ${JSON.stringify(spec)} resolves to no .d.ts file`);
    },
  );
}

async function declarationFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return declarationFiles(path);
      return Promise.resolve(entry.name.endsWith('.d.ts') ? [path] : []);
    }),
  );
  return nested.flat();
}

/** Builds `dist/` from scratch: the bundles, then the declarations. */
export async function buildPackage(root = ROOT): Promise<void> {
  const dist = join(root, 'dist');
  await rm(dist, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(Object.entries(ENTRY_POINTS).map(([name, source]) => [name, join(root, source)])),
    outdir: dist,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    // Error classes set literal names, but keep class names for stack traces anyway.
    keepNames: true,
    logLevel: 'warning',
  });
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  const types = join(root, TYPES_DIR);
  for (const file of await declarationFiles(types)) {
    const text = await readFile(file, 'utf8');
    const rewritten = addDeclarationExtensions(text, (relative) => existsSync(join(dirname(file), relative)));
    if (rewritten !== text) await writeFile(file, rewritten);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await buildPackage();
  process.stdout.write(`built dist/: ${Object.keys(ENTRY_POINTS).join(', ')} and ${TYPES_DIR}/\n`);
}
