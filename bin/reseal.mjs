#!/usr/bin/env node
// The `reseal` CLI. In a clone (the TypeScript sources are beside this file) it runs the compiled
// CLI that scripts/cli-build.mjs keeps in node_modules/.cache/reseal-cli when that is fresh; when
// a source changed it rebuilds first, saying so on stderr, and if it cannot build it runs the
// sources through tsx, saying so too: a stale build never runs. In an installed package (sources
// not shipped) it runs the compiled bundle, dist/cli.js, on plain node. See docs/cli.md, "Start-up".
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = new URL('../cli/main.ts', import.meta.url);

async function cloneMain() {
  const { buildCli, freshCli } = await import(new URL('../scripts/cli-build.mjs', import.meta.url).href);
  const fresh = freshCli(root);
  if ('entry' in fresh) return (await import(pathToFileURL(fresh.entry).href)).main;
  try {
    const entry = await buildCli(root);
    process.stderr.write(`reseal: compiled the CLI again (${fresh.stale})\n`);
    return (await import(pathToFileURL(entry).href)).main;
  } catch (error) {
    process.stderr.write(
      `reseal: cannot compile the CLI (${error instanceof Error ? error.message : String(error)}); running the sources through tsx\n`,
    );
    const { register } = await import('tsx/esm/api');
    register();
    return (await import(source.href)).main;
  }
}

const main = existsSync(source) ? await cloneMain() : (await import('../dist/cli.js')).main;
await main();
