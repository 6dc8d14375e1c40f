import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as core from '../../../shared/index';

const SHARED = join(import.meta.dirname, '..', '..', '..', 'shared');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('architecture: shared/ is the pure domain core', () => {
  const files = sourceFiles(SHARED);

  it('has source files to check', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it.each(files.map((file) => [file.slice(SHARED.length + 1), file]))(
    '%s imports no AWS, CDK, Powertools or middy',
    (_name, file) => {
      const imports = [...readFileSync(file, 'utf8').matchAll(/from\s+'([^']+)'/g)].map((match) => match[1]);
      const forbidden = imports.filter((spec) =>
        /^(@aws-sdk\/|aws-cdk-lib|constructs|@aws-lambda-powertools\/|@middy\/|node:(http|https|net|dgram|tls))/.test(
          spec ?? '',
        ),
      );
      expect(forbidden).toEqual([]);
    },
  );

  it('exports each protocol entry point from the barrel', () => {
    for (const name of [
      'evaluateWrite',
      'sealRecord',
      'verifyChain',
      'isolateDelta',
      'buildManifest',
      'canonicalJson',
      'hashCanonical',
    ]) {
      expect(typeof (core as Record<string, unknown>)[name], name).toBe('function');
    }
    expect(Object.values(core.DeltaVerdict)).toEqual([
      'NO_DRIFT',
      'AMBIENT_DRIFT_ONLY',
      'PARTIAL_REPROBE_REQUIRED',
      'FULL_RECONSTRUCTION_REQUIRED',
    ]);
  });
});

/**
 * The import graph of shared/: each file (path relative to shared/) to the files of shared/ it
 * imports or re-exports, type-only imports included (a cycle of types is still a cycle of
 * concepts). Specifiers are read by the TypeScript scanner, so comments and strings never count.
 */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((ref) => ref.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => resolve(dirname(file), spec))
      .map((base) => [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate)))
      .filter((target): target is string => target?.startsWith(SHARED) === true);
    graph.set(relative(SHARED, file), [...new Set(targets.map((target) => relative(SHARED, target)))]);
  }
  return graph;
}

/** Every cycle found by a depth-first walk, each as the files along it (first file repeated last). */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (node: string): void => {
    const at = path.indexOf(node);
    if (at >= 0) {
      cycles.push([...path.slice(at), node]);
      return;
    }
    if (done.has(node)) return;
    path.push(node);
    for (const next of graph.get(node) ?? []) visit(next);
    path.pop();
    done.add(node);
  };
  for (const node of [...graph.keys()].sort()) visit(node);
  return cycles;
}

describe('architecture: the import graph of shared/ is layered', () => {
  const graph = importGraph(sourceFiles(SHARED));
  const area = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file);

  it('reads the imports it checks (the walk sees real edges)', () => {
    expect(graph.get('guard/stale-state-guard.ts')).toContain('guard/policy.ts');
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c', 'a']]);
    expect(
      cyclesOf(
        new Map([
          ['a', ['b', 'c']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cyclesOf(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('shared/errors.ts is a leaf: every module may import it', () => {
    expect(graph.get('errors.ts')).toEqual([]);
  });

  it('shared/schemas/ are leaves: they import only canonical/, errors.ts and each other', () => {
    const outward = [...graph]
      .filter(([file]) => area(file) === 'schemas')
      .flatMap(([file, targets]) =>
        targets.filter((t) => !['schemas', 'canonical', 'errors.ts'].includes(area(t))).map((t) => `${file} → ${t}`),
      );
    expect(outward).toEqual([]);
  });

  it('the guard does not reach into triage (the manifest comes with the write, shared/write/)', () => {
    const reach = [...graph]
      .filter(([file]) => area(file) === 'guard')
      .flatMap(([file, targets]) => targets.filter((t) => area(t) === 'triage').map((t) => `${file} → ${t}`));
    expect(reach).toEqual([]);
  });
});
