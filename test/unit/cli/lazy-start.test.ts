import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_CACHE, freshCli } from '../../../scripts/cli-build.mjs';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** Packages a start must not load: the AWS SDK, the MCP SDK, the Vega-Lite compiler. */
const HEAVY = /^(@aws-sdk\/|@modelcontextprotocol\/|vega-lite$|vega$)/;

/** The npm packages a module loads at import time: its static import graph, dynamic imports left out. */
async function staticPackages(entry: string): Promise<string[]> {
  const { metafile } = await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    splitting: true,
    outdir: join(tmpdir(), 'reseal-lazy-start'),
    metafile: true,
    logLevel: 'silent',
  });
  const seen = new Set<string>();
  const packages = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const imported of metafile.inputs[file]?.imports ?? []) {
      if (imported.kind === 'dynamic-import') continue;
      if (imported.external) packages.add(imported.path);
      else stack.push(imported.path);
    }
  }
  return [...packages].sort();
}

describe('the CLI starts light (docs/cli.md, "Start-up")', () => {
  it('cli/main.ts (--version, --help) loads no command module and no SDK', async () => {
    const packages = await staticPackages('cli/main.ts');
    expect(packages.filter((p) => HEAVY.test(p))).toEqual([]);
  });

  it.each([
    'manifest',
    'triage',
    'guard',
    'verify',
    'publish',
    'recall',
    'export',
    'inspect',
    'report',
    'receipt',
    'writer-key',
    'lineage-id',
  ])('the %s command module loads the AWS SDK (and Vega-Lite) only when its action needs them', async (name) => {
    const packages = await staticPackages(`cli/commands/${name}.ts`);
    expect(packages.filter((p) => HEAVY.test(p))).toEqual([]);
  });
});

describe('freshCli: a stale compiled CLI is never run', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  function stamped(): string {
    root = mkdtempSync(join(tmpdir(), 'reseal-cli-build-'));
    mkdirSync(join(root, 'cli'));
    writeFileSync(join(root, 'cli', 'main.ts'), 'export const a = 1;\n');
    const stat = statSync(join(root, 'cli', 'main.ts'));
    mkdirSync(join(root, CLI_CACHE, 'build-1'), { recursive: true });
    writeFileSync(
      join(root, CLI_CACHE, 'stamp.json'),
      JSON.stringify({ build: 'build-1', inputs: { 'cli/main.ts': [stat.size, stat.mtimeMs] } }),
    );
    return root;
  }

  it('is fresh while every source it was built from is as it was', () => {
    const dir = stamped();
    expect(freshCli(dir)).toEqual({ entry: join(dir, CLI_CACHE, 'build-1', 'main.js') });
  });

  it('is stale when a source was edited (size or time), removed, or when there is no build', () => {
    const dir = stamped();
    const source = join(dir, 'cli', 'main.ts');
    utimesSync(source, new Date(), new Date(Date.now() + 5_000));
    expect(freshCli(dir)).toEqual({ stale: 'cli/main.ts changed since it was built' });
    rmSync(source);
    expect(freshCli(dir)).toEqual({ stale: 'cli/main.ts is gone' });
    rmSync(join(dir, CLI_CACHE, 'stamp.json'));
    expect(freshCli(dir)).toEqual({ stale: 'no compiled CLI yet' });
  });
});
