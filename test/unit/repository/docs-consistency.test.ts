import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Tracked Markdown files: README.md and docs/. */
function markdownFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z', '--', 'README.md', 'docs/*.md'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((path) => path !== '');
}

/** The cells of a table line (`| a | b |` → 2), `\|` and `|` inside code spans not counted. */
function cellCount(line: string): number {
  const bare = line.replace(/`[^`]*`/g, '``').replace(/\\\|/g, '');
  return bare.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').length;
}

/** `file:line: n cells, header has m` for every table row whose cell count is not its header's. */
function ragged(path: string, text: string): string[] {
  const lines = text.split('\n');
  const found: string[] = [];
  let header: number | null = null;
  let fenced = false;
  lines.forEach((line, index) => {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced || !line.startsWith('|')) {
      header = null;
      return;
    }
    const cells = cellCount(line);
    if (header === null) header = cells;
    else if (cells !== header) found.push(`${path}:${index + 1}: ${cells} cells, its header has ${header}`);
  });
  return found;
}

describe('README.md and docs/: tables render, versions agree', () => {
  it('finds a row with an extra cell (the check sees what a renderer drops)', () => {
    expect(ragged('x', '| a | b |\n| - | - |\n| 1 | 2 | 3 |\n| 1 | `x \\| y` |')).toEqual([
      'x:3: 3 cells, its header has 2',
    ]);
  });

  it('every table row of README.md and docs/ has as many cells as its header', () => {
    const files = markdownFiles();
    expect(files).toContain('README.md');
    expect(files.flatMap((path) => ragged(path, readFileSync(`${ROOT}${path}`, 'utf8')))).toEqual([]);
  });

  it('every "Node.js ≥ x.y" in README.md and docs/ is the minimum package.json engines sets', () => {
    const engines = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { engines: { node: string } }).engines
      .node;
    const minimum = /^>=(\d+\.\d+)$/.exec(engines)?.[1];
    expect(minimum, `engines.node is ${engines}`).toBeDefined();
    const stated = markdownFiles().flatMap((path) =>
      [...readFileSync(`${ROOT}${path}`, 'utf8').matchAll(/Node(?:\.js)? ≥ (\d+\.\d+)/g)].map(
        (m) => `${path}: ${m[1]}`,
      ),
    );
    expect(stated.length).toBeGreaterThan(2);
    expect(stated.filter((entry) => !entry.endsWith(`: ${minimum}`))).toEqual([]);
  });
});

/** Tracked Markdown and shipped TypeScript (its docstring examples are read as documentation too). */
function documentedFiles(): string[] {
  const patterns = ['README.md', 'docs/*.md', 'cli/*.ts', 'client/*.ts', 'frameworks/*.ts', 'mcp/*.ts', 'examples/*'];
  return execFileSync('git', ['ls-files', '-z', '--', ...patterns], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((path) => /\.(md|ts)$/.test(path));
}

/**
 * `file:line` of every `waitForOutcome(…)` call given `request` but no `sinceMs`, and of every
 * paragraph telling to pass `published.request` to `waitForOutcome` without `sinceMs`: a caller
 * following it would count an earlier attempt's refusal of the same request (docs/pipeline.md,
 * "Polling the table").
 */
function waitsWithoutSince(path: string, text: string): string[] {
  const line = (at: number) => `${path}:${text.slice(0, at).split('\n').length}`;
  const calls = [...text.matchAll(/waitForOutcome\(/g)].flatMap((m) => {
    const call = text.slice(m.index, text.indexOf(');', m.index));
    return /\brequest\b/.test(call) && !call.includes('sinceMs') ? [line(m.index)] : [];
  });
  let at = 0;
  const paragraphs = text.split(/\n\s*\n/).flatMap((paragraph) => {
    const start = text.indexOf(paragraph, at);
    at = start + paragraph.length;
    const told = paragraph.includes('published.request') && paragraph.includes('waitForOutcome');
    return told && !paragraph.includes('sinceMs') ? [line(start)] : [];
  });
  return [...calls, ...paragraphs];
}

describe('waitForOutcome examples show sinceMs', () => {
  it('finds a call given request without sinceMs', () => {
    expect(waitsWithoutSince('example', 'a\n\nclient.waitForOutcome(l, r, { request });')).toEqual(['example:3']);
    expect(waitsWithoutSince('example', 'waitForOutcome(l, r, { request, sinceMs });')).toEqual([]);
  });

  it('every waitForOutcome example of README.md, docs/ and the shipped docstrings given request passes sinceMs', () => {
    const found = documentedFiles().flatMap((path) => waitsWithoutSince(path, readFileSync(`${ROOT}${path}`, 'utf8')));
    expect(found).toEqual([]);
  });
});
