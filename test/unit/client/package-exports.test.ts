import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addDeclarationExtensions, ENTRY_POINTS, TYPES_DIR } from '../../../scripts/build';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  private?: boolean;
  exports: Record<string, { types: string; default: string } | string>;
  bin: Record<string, string>;
  files: string[];
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
};

/** What the installed package runs: the sources the build bundles (every file they import). */
const SHIPPED_DIRS = ['client', 'shared', 'cli', 'mcp', 'adapters', 'frameworks'];

/** Framework adapters' packages: optional peers, imported for their types only (the agent brings its own). */
const FRAMEWORK_PEERS = ['@openai/agents-core'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** The npm packages a source file imports (`@scope/name/sub` → `@scope/name`). */
function importedPackages(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...[...text.matchAll(/^(?:import|export)[^;]*?\bfrom '([^']+)';/gms)].map((m) => m[1]),
    ...[...text.matchAll(/\bimport\('([^']+)'\)/g)].map((m) => m[1]),
    // A file a package ships, found at run time (the report page inlines the Vega runtime).
    ...[...text.matchAll(/\brequire\.resolve\('([^']+)'\)/g)].map((m) => m[1]),
  ].filter((spec) => spec !== undefined && !spec.startsWith('.'));
  return specs
    .filter((spec): spec is string => spec !== undefined && !spec.startsWith('node:'))
    .map((spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string)));
}

describe('package exports: agents import the client and the core by package name', () => {
  it('"reseal" is the agent client, "reseal/core" the domain core, "reseal/mcp" the MCP server', async () => {
    const client = await import('reseal');
    const core = await import('reseal/core');
    const mcp = await import('reseal/mcp');
    expect(typeof client.ResealClient).toBe('function');
    expect(typeof client.writeRequest).toBe('function');
    expect(typeof client.snapshotProviders).toBe('function');
    expect(typeof core.isolateDelta).toBe('function');
    expect(typeof core.evaluateWrite).toBe('function');
    expect(typeof mcp.createResealMcpServer).toBe('function');
  });

  it('is publishable: each export names a built bundle and its declarations; npm pack builds first', () => {
    expect(pkg.private).toBeUndefined();
    const entries: Record<string, keyof typeof ENTRY_POINTS> = {
      '.': 'index',
      './core': 'core',
      './mcp': 'mcp',
      './openai-agents': 'openai-agents',
    };
    for (const [subpath, name] of Object.entries(entries)) {
      const source = ENTRY_POINTS[name].replace(/\.ts$/, '.d.ts');
      expect(pkg.exports[subpath], subpath).toEqual({
        types: `./${TYPES_DIR}/${source}`,
        default: `./dist/${name}.js`,
      });
    }
    expect(pkg.bin).toEqual({ reseal: 'bin/reseal.mjs' });
    expect(pkg.files).toEqual(expect.arrayContaining(['dist/', 'bin/reseal.mjs']));
    expect(pkg.scripts.prepack).toBe('npm run build');
  });

  it('a framework is an optional peer dependency, pinned for development, and imported for its types only', () => {
    for (const name of FRAMEWORK_PEERS) {
      expect(pkg.peerDependencies[name], name).toBeDefined();
      expect(pkg.peerDependenciesMeta[name], name).toEqual({ optional: true });
      expect(pkg.devDependencies[name], name).toMatch(/^\d+\.\d+\.\d+$/);
      expect(pkg.dependencies[name], name).toBeUndefined();
    }
    const valueImports = sourceFiles(join(ROOT, 'frameworks')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^import (?!type )[^;]*?\bfrom '([^']+)';/gms)]
        .map((m) => m[1] as string)
        .filter((spec) => FRAMEWORK_PEERS.some((name) => spec === name || spec.startsWith(`${name}/`)))
        .map((spec) => `${file}: ${spec}`),
    );
    expect(valueImports).toEqual([]);
  });

  it('dependencies are exactly what the shipped code imports: nothing Lambda-only or dev-only', () => {
    const imported = new Set(SHIPPED_DIRS.flatMap((dir) => sourceFiles(join(ROOT, dir))).flatMap(importedPackages));
    expect(Object.keys(pkg.dependencies).sort()).toEqual(
      [...imported].filter((name) => !FRAMEWORK_PEERS.includes(name)).sort(),
    );
    for (const name of Object.keys(pkg.dependencies)) {
      expect(name).not.toMatch(/^(@aws-lambda-powertools\/|@middy\/|@types\/aws-lambda$|tsx$|vitest$|esbuild$)/);
    }
  });
});

describe('declaration files spell their relative imports for Node resolution', () => {
  const present = new Set(['./builders.d.ts', '../shared/index.d.ts', '../index.d.ts', './seal/index.d.ts']);
  const exists = (path: string) => present.has(path);

  it('adds .js to files and /index.js to folders, in from-clauses and import() types', () => {
    const text = [
      "export { writeRequest } from './builders';",
      "import type { X } from '../shared';",
      'type J = import("..").JsonValue;',
      "export * from './seal';",
      "import { z } from 'zod';",
      "export { y } from './already.js';",
    ].join('\n');
    expect(addDeclarationExtensions(text, exists)).toBe(
      [
        "export { writeRequest } from './builders.js';",
        "import type { X } from '../shared/index.js';",
        'type J = import("../index.js").JsonValue;',
        "export * from './seal/index.js';",
        "import { z } from 'zod';",
        "export { y } from './already.js';",
      ].join('\n'),
    );
  });

  it('refuses a relative import that resolves to no declaration', () => {
    expect(() => addDeclarationExtensions("export * from './missing';", exists)).toThrow(/missing/);
  });
});
