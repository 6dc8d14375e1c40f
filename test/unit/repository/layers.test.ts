import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : /\.(ts|mjs)$/.test(entry.name)
        ? [join(dir, entry.name)]
        : [],
  );
}

/** `file → specifier` for every import of a file under `dirs` whose specifier reaches into test/. */
function importsOfTest(dirs: readonly string[]): string[] {
  return dirs
    .flatMap((dir) => sourceFiles(join(ROOT, dir)))
    .flatMap((file) =>
      ts
        .preProcessFile(readFileSync(file, 'utf8'), true, true)
        .importedFiles.map((ref) => ref.fileName)
        .filter((spec) => /(^|\/)test\//.test(spec))
        .map((spec) => `${relative(ROOT, file)} → ${spec}`),
    );
}

describe('layers: production code never imports test code', () => {
  it('finds the imports it checks (the scan sees real specifiers)', () => {
    const { importedFiles } = ts.preProcessFile("import { x } from '../../test/helpers/y';", true, true);
    expect(importedFiles.map((ref) => ref.fileName)).toEqual(['../../test/helpers/y']);
  });

  it('scripts/, infra/ and the shipped code import nothing from test/ (bench/ may: it measures with test fixtures)', () => {
    expect(importsOfTest(['scripts', 'infra', 'adapters', 'cli', 'client', 'functions', 'mcp', 'shared'])).toEqual([]);
  });
});
