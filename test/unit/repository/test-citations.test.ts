import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Test names, test comments and the guarantees table cite docs/ sections (README.md: docs/ is the
 * specification), never a clause of a document outside the repository ("seed" and a number) nor a
 * tracker entry ("issue" and a number). The patterns are assembled from parts, so that this file
 * does not spell what it looks for.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SEED = ['se', 'ed'].join('');
const ISSUE = ['iss', 'ue'].join('');
const FORBIDDEN = new RegExp(`\\b(?:${SEED}s? ?\\d{3}|${ISSUE} ?#?\\d+)\\b`, 'i');

/**
 * Files whose text is the output of production code (triage report reasons), which cite what the
 * production code says; they change with it.
 */
const PRODUCED = [/^test\/vectors\/triage\.json$/, /^test\/unit\/cli\/golden\/.*\.txt$/];

/** Tracked files under test/, plus vitest.config.ts and docs/guarantees.md. */
function scanned(): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z', '--', 'test', 'vitest.config.ts', 'docs/guarantees.md'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return tracked.split('\0').filter((path) => path !== '' && !PRODUCED.some((pattern) => pattern.test(path)));
}

/** `path:line: text` of every line that cites outside the repository. */
function citations(path: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) => (FORBIDDEN.test(line) ? [`${path}:${index + 1}: ${line.trim().slice(0, 160)}`] : []));
}

describe('tests cite docs/ sections only', () => {
  it('finds what it looks for (the pattern matches both kinds, and not a fast-check seed)', () => {
    expect(citations('x', `it('${SEED} 003 Decision Boundary (3)')`)).toHaveLength(1);
    expect(citations('x', `// ${ISSUE} 8, part 1`)).toHaveLength(1);
    expect(citations('x', `${ISSUE} #12`)).toHaveLength(1);
    expect(citations('x', '// Every wait here names the fast-check seed, so a time-out can be replayed.')).toEqual([]);
  });

  it('no tracked file under test/, nor vitest.config.ts or docs/guarantees.md, cites a seed clause or an issue number', () => {
    const files = scanned();
    expect(files.length).toBeGreaterThan(50);
    expect(files.flatMap((path) => citations(path, readFileSync(`${ROOT}${path}`, 'utf8')))).toEqual([]);
  });
});
