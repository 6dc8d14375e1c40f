#!/usr/bin/env node
// The `reseal` CLI. In a clone (the TypeScript sources are beside this file) it runs them through
// tsx, so `npx reseal` works after `npm ci` with no build step and never runs a stale build; in an
// installed package (sources not shipped) it runs the compiled bundle, dist/cli.js, on plain node.
import { existsSync } from 'node:fs';

const source = new URL('../cli/main.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import(source.href);
  await main();
} else {
  const { main } = await import('../dist/cli.js');
  await main();
}
