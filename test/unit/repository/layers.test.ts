import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** The shipped code: what the package, the Lambda functions and the stack are built from. */
const PRODUCTION = ['adapters', 'bin', 'cli', 'client', 'frameworks', 'functions', 'infra', 'mcp', 'shared'] as const;

/** The AWS SDKs and runtimes the pure core must not import (docs/pipeline.md: adapters hold them). */
const AWS_PACKAGES = /^(@aws-sdk\/|@smithy\/|@aws-lambda-powertools\/|aws-cdk-lib|aws-lambda$|constructs$)/;

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

describe('layers: who may import whom', () => {
  it('finds the imports it checks (the scan sees real specifiers and resolves where they land)', () => {
    const { importedFiles } = ts.preProcessFile("import { x } from '../../test/helpers/y';", true, true);
    expect(importedFiles.map((ref) => ref.fileName)).toEqual(['../../test/helpers/y']);
    expect(landsIn('mcp/inspect-result.ts', '../cli/format/timeline-text')).toBe('cli');
    expect(landsIn('cli/commands/recall.ts', '../../client/recalls')).toBe('client');
    expect(landsIn('shared/log/merkle-hashing.ts', './note-key')).toBe('shared');
    expect(landsIn('shared/log/merkle-hashing.ts', 'zod')).toBeNull();
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

  it('scripts/ and infra/ import nothing from test/ (bench/ may: it measures with test fixtures)', () => {
    const offending = importsUnder(['scripts', 'infra']).filter(({ file, spec }) => landsIn(file, spec) === 'test');
    expect(offending.map(show)).toEqual([]);
  });

  it('shared/ (the pure core) imports nothing outside shared/ and no AWS SDK', () => {
    const offending = importsUnder(['shared']).filter(
      ({ file, spec }) => AWS_PACKAGES.test(spec) || (landsIn(file, spec) ?? 'shared') !== 'shared',
    );
    expect(offending.map(show)).toEqual([]);
  });
});
