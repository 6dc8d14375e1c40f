import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** The shipped code: what the package, the Lambda functions and the stack are built from. */
const PRODUCTION = ['adapters', 'bin', 'cli', 'client', 'frameworks', 'functions', 'infra', 'mcp', 'shared'] as const;

/** The AWS SDKs and runtimes the pure core must not import (docs/pipeline.md: adapters hold them). */
const AWS_PACKAGES = /^(@aws-sdk\/|@smithy\/|@aws-lambda-powertools\/|aws-cdk-lib|aws-lambda$|constructs$)/;

/** Handler middleware and network modules, which the pure core has no use for either. */
const IO_PACKAGES = /^(@middy\/|node:(http|https|net|dgram|tls)$)/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : /\.(ts|mjs)$/.test(entry.name)
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Every import of every file under `dirs`: the importing file and the specifier, both as written. */
function importsUnder(dirs: readonly string[]): { readonly file: string; readonly spec: string }[] {
  return dirs
    .flatMap((dir) => sourceFiles(join(ROOT, dir)))
    .flatMap((file) =>
      ts
        .preProcessFile(readFileSync(file, 'utf8'), true, true)
        .importedFiles.map((ref) => ({ file: relative(ROOT, file).split(sep).join('/'), spec: ref.fileName })),
    );
}

/** The top-level directory a relative specifier of `file` lands in, or `null` for a package. */
function landsIn(file: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const target = relative(ROOT, resolve(ROOT, dirname(file), spec)).split(sep);
  return target[0] === '..' ? '..' : (target[0] ?? null);
}

/**
 * The relative specifiers of `source` that load a module at run time: static imports and
 * re-exports, except `import type` / `export type` and imports whose every name is `type` (the
 * compiler erases those). Dynamic `import()` is left out: it loads lazily, so it closes no cycle
 * at load time.
 */
function runtimeSpecifiers(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const specs: string[] = [];
  for (const node of file.statements) {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            bindings !== undefined &&
            ts.isNamedImports(bindings) &&
            bindings.elements.length > 0 &&
            bindings.elements.every((element) => element.isTypeOnly)));
      if (!typeOnly) specs.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.isTypeOnly) specs.push(node.moduleSpecifier.text);
    }
  }
  return specs.filter((spec) => spec.startsWith('.'));
}

/** The file a relative specifier of `file` loads (`.ts`, `.mjs` or `index.ts`), or `null` when none is found. */
function resolveFile(file: string, spec: string): string | null {
  const base = resolve(dirname(file), spec.replace(/\.js$/, ''));
  const found = [base, `${base}.ts`, `${base}.mjs`, join(base, 'index.ts')].find(
    (candidate) => existsSync(candidate) && statSync(candidate).isFile(),
  );
  return found ?? null;
}

/** Every relative specifier of `source` (imports, re-exports, `import()`, type-only ones included), by the TypeScript scanner. */
function allSpecifiers(_fileName: string, source: string): string[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((ref) => ref.fileName)
    .filter((spec) => spec.startsWith('.'));
}

/**
 * The import edges between the files under `dirs` (paths relative to the repository), each file to
 * the files its `specifiersOf` load.
 */
function fileEdges(
  dirs: readonly string[],
  specifiersOf: (fileName: string, source: string) => string[],
): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of dirs.flatMap((dir) => sourceFiles(join(ROOT, dir)))) {
    const from = relative(ROOT, file).split(sep).join('/');
    const targets = specifiersOf(file, readFileSync(file, 'utf8'))
      .map((spec) => resolveFile(file, spec))
      .filter((target): target is string => target !== null)
      .map((target) => relative(ROOT, target).split(sep).join('/'));
    edges.set(from, new Set(targets));
  }
  return edges;
}

const show = ({ file, spec }: { file: string; spec: string }) => `${file} → ${spec}`;

/** The directed edges `from → to` between top-level directories that `imports` make. */
function directoryEdges(
  imports: readonly { readonly file: string; readonly spec: string }[],
): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const { file, spec } of imports) {
    const from = file.split('/')[0] ?? '';
    const to = landsIn(file, spec);
    if (to === null || to === from) continue;
    edges.set(from, (edges.get(from) ?? new Set()).add(to));
  }
  return edges;
}

/** One cycle of `edges` as `a → b → a`, or `null` when the directories form no cycle. */
function cycleOf(edges: ReadonlyMap<string, ReadonlySet<string>>): string | null {
  const done = new Set<string>();
  const visit = (node: string, path: readonly string[]): string | null => {
    if (path.includes(node)) return [...path.slice(path.indexOf(node)), node].join(' → ');
    if (done.has(node)) return null;
    for (const next of edges.get(node) ?? []) {
      const cycle = visit(next, [...path, node]);
      if (cycle) return cycle;
    }
    done.add(node);
    return null;
  };
  for (const node of edges.keys()) {
    const cycle = visit(node, []);
    if (cycle) return cycle;
  }
  return null;
}

/**
 * The strongly connected components of `edges` with more than one file (Tarjan's algorithm), each
 * sorted: every group of files that reach each other through their imports.
 */
function cycleGroups(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member !== undefined) group.push(member);
      } while (member !== undefined && member !== node);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return groups;
}

describe('layers: who may import whom', () => {
  it('finds the imports it checks (the scan sees real specifiers and resolves where they land)', () => {
    const { importedFiles } = ts.preProcessFile("import { x } from '../../test/helpers/y';", true, true);
    expect(importedFiles.map((ref) => ref.fileName)).toEqual(['../../test/helpers/y']);
    expect(landsIn('mcp/inspect-result.ts', '../cli/format/timeline-text')).toBe('cli');
    expect(landsIn('cli/commands/recall.ts', '../../client/recalls')).toBe('client');
    expect(landsIn('shared/log/merkle-hash.ts', './note-key')).toBe('shared');
    expect(landsIn('shared/log/merkle-hash.ts', 'zod')).toBeNull();
  });

  it('no production file imports test/ or scripts/; only cli/ and bin/ import cli/ (no cli ↔ mcp cycle)', () => {
    const offending = importsUnder(PRODUCTION).filter(({ file, spec }) => {
      const where = landsIn(file, spec);
      if (where === 'test' || where === 'scripts') return true;
      return where === 'cli' && !file.startsWith('cli/') && !file.startsWith('bin/');
    });
    expect(offending.map(show)).toEqual([]);
  });

  it('the production directories import each other without a cycle (cli → mcp → client, never back)', () => {
    // The check itself: a cli ↔ mcp pair is a cycle, a one-way chain is not.
    const pair = [
      { file: 'cli/commands/mcp.ts', spec: '../../mcp/server' },
      { file: 'mcp/inspect-result.ts', spec: '../cli/format/timeline-text' },
    ];
    expect(cycleOf(directoryEdges(pair))).toBe('cli → mcp → cli');
    expect(cycleOf(directoryEdges(pair.slice(0, 1)))).toBeNull();

    const edges = directoryEdges(importsUnder(PRODUCTION));
    expect(edges.get('cli')).toContain('mcp');
    expect(cycleOf(edges)).toBeNull();
  });

  it('no file of the shipped code loads itself through its imports (no run-time import cycle between files)', () => {
    // The check itself: a value import each way is a cycle; an `import type` back is erased, no edge.
    expect(runtimeSpecifiers('a.ts', "import { b } from './b';\nexport { c } from './c';")).toEqual(['./b', './c']);
    expect(
      runtimeSpecifiers(
        'a.ts',
        "import type { B } from './b';\nimport { type C } from './c';\nexport type { D } from './d';\nimport('./e');",
      ),
    ).toEqual([]);
    expect(runtimeSpecifiers('a.ts', "import { type C, c } from './c';\nimport './side-effect';")).toEqual([
      './c',
      './side-effect',
    ]);
    const pair = new Map([
      ['a.ts', new Set(['b.ts'])],
      ['b.ts', new Set(['a.ts'])],
    ]);
    expect(cycleOf(pair)).toBe('a.ts → b.ts → a.ts');

    const edges = fileEdges(PRODUCTION, runtimeSpecifiers);
    expect(edges.get('functions/integrator/integrator-service.ts')).toContain(
      'functions/integrator/witness-submission.ts',
    );
    expect(cycleOf(edges)).toBeNull();
  });

  it('no file of the shipped code reaches itself through its imports, type-only ones included (README.md, "Architecture": a type lives in the file that owns its concept)', () => {
    // The check itself: an `import type` back is erased at run time, yet it is still a cycle of concepts.
    const typeBack = new Map([
      ['a.ts', new Set(allSpecifiers('a.ts', "import { b } from './b';").map((spec) => `${spec.slice(2)}.ts`))],
      ['b.ts', new Set(allSpecifiers('b.ts', "import type { A } from './a';").map((spec) => `${spec.slice(2)}.ts`))],
    ]);
    expect(cycleGroups(typeBack)).toEqual([['a.ts', 'b.ts']]);

    const edges = fileEdges(PRODUCTION, allSpecifiers);
    expect(edges.get('mcp/log-check-fields.ts')).toContain('mcp/log-check.ts');
    expect(cycleGroups(edges)).toEqual([]);
  });

  it('scripts/ and infra/ import nothing from test/ (bench/ may: it measures with test fixtures)', () => {
    const offending = importsUnder(['scripts', 'infra']).filter(({ file, spec }) => landsIn(file, spec) === 'test');
    expect(offending.map(show)).toEqual([]);
  });

  it('shared/ (the pure core) imports nothing outside shared/, no AWS SDK, no middleware or network module', () => {
    const offending = importsUnder(['shared']).filter(
      ({ file, spec }) =>
        AWS_PACKAGES.test(spec) || IO_PACKAGES.test(spec) || (landsIn(file, spec) ?? 'shared') !== 'shared',
    );
    expect(offending.map(show)).toEqual([]);
  });
});

describe('layers: the import graph of shared/ is layered', () => {
  // Type-only imports count here: a cycle of types is still a cycle of concepts.
  const graph = fileEdges(['shared'], allSpecifiers);
  const area = (file: string) => file.split('/').slice(1, -1)[0] ?? file.slice('shared/'.length);
  const edgesFrom = (inArea: (file: string) => boolean) =>
    [...graph]
      .filter(([file]) => inArea(file))
      .flatMap(([file, targets]) => [...targets].map((t) => [file, t] as const));

  it('reads the imports it checks (the walk sees real edges, type-only ones included)', () => {
    expect(graph.get('shared/guard/evaluate-write.ts')).toContain('shared/guard/policy.ts');
    expect(allSpecifiers('a.ts', "import type { B } from './b';")).toEqual(['./b']);
    expect(area('shared/guard/policy.ts')).toBe('guard');
    expect(area('shared/errors.ts')).toBe('errors.ts');
  });

  it('has no import cycle', () => {
    expect(cycleOf(graph)).toBeNull();
  });

  it('shared/errors.ts is a leaf: every module may import it', () => {
    expect([...(graph.get('shared/errors.ts') ?? ['(not found)'])]).toEqual([]);
  });

  it('shared/schemas/ are leaves: they import only canonical/, errors.ts and each other', () => {
    const outward = edgesFrom((file) => area(file) === 'schemas').filter(
      ([, to]) => !['schemas', 'canonical', 'errors.ts'].includes(area(to)),
    );
    expect(outward.map(([from, to]) => `${from} → ${to}`)).toEqual([]);
  });

  it('the guard does not reach into triage (the manifest comes with the write, shared/write/)', () => {
    const reach = edgesFrom((file) => area(file) === 'guard').filter(([, to]) => area(to) === 'triage');
    expect(reach.map(([from, to]) => `${from} → ${to}`)).toEqual([]);
  });
});
