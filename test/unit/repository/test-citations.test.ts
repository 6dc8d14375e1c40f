import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The repository stands alone (README.md: docs/ is the specification). No tracked file — docs,
 * README, production code and its comments, CLI and MCP messages, scripts, bench files, generated
 * schemas, test vectors, goldens and tests — cites a document outside it: neither a numbered
 * outside document ("seed" and a number) nor that document's clause names, nor a tracker entry
 * ("issue" and a number). They cite docs/ sections instead ("docs/triage.md rule 8",
 * "docs/sealing.md check 15"). The patterns are assembled from parts, so that this file does not
 * spell what it looks for.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SEED = ['se', 'ed'].join('');
const ISSUE = ['iss', 'ue'].join('');
const METHOD = ['Met', 'hod'].join('');

/** Clause names of the outside documents, spelled as they spell them (title case). */
const CLAUSES = [
  ['Decision', 'Boundary'],
  ['Recorded', 'Elements?'],
  ['What Was', 'Observed'],
  ['Core', 'Distinction'],
  ['Condition of', 'Validity'],
  ['Operational', 'Effect'],
  ['Executable', 'Reference Pattern'],
  ['Hash-With', '-Payload'],
  ['Rollback', 'Forgery'],
].map((parts) => parts.join(parts[1]?.startsWith('-') ? '' : ' '));

const FORBIDDEN: readonly { what: string; pattern: RegExp }[] = [
  { what: 'a numbered outside document', pattern: new RegExp(`\\b${SEED}s? ?\\d{3}\\b`, 'i') },
  { what: 'an outside document', pattern: new RegExp(`\\bthe ${SEED}(?:'s|s)\\b`, 'i') },
  { what: 'a tracker entry', pattern: new RegExp(`\\b${ISSUE}s? ?#?\\d+\\b`, 'i') },
  { what: "an outside document's clause", pattern: new RegExp(`\\b(?:${CLAUSES.join('|')})\\b`) },
  { what: "an outside document's method step", pattern: new RegExp(`\\b${METHOD} \\d`) },
];

/**
 * Tracked files that may keep a match, each with the reason it must. Empty today: add an entry
 * only for text the repository cannot change (a licence credit, a third party's data).
 */
const ALLOWED: readonly { path: string; reason: string }[] = [];

/** Every tracked file that still exists in the working tree, minus {@link ALLOWED}. */
function scanned(): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return tracked
    .split('\0')
    .filter((path) => path !== '' && existsSync(`${ROOT}${path}`) && !ALLOWED.some((entry) => entry.path === path));
}

/** `path:line: what: text` of every line that cites outside the repository. */
function citations(path: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) =>
      FORBIDDEN.filter(({ pattern }) => pattern.test(line)).map(
        ({ what }) => `${path}:${index + 1}: cites ${what}: ${line.trim().slice(0, 160)}`,
      ),
    );
}

/** The file's text, or `null` for a binary file (one with a NUL byte). */
function textOf(path: string): string | null {
  const bytes = readFileSync(`${ROOT}${path}`);
  return bytes.includes(0) ? null : bytes.toString('utf8');
}

describe('the repository cites docs/ sections only', () => {
  it('finds what it looks for, and not a fast-check seed, a key seed or a zod issue', () => {
    const [boundary, elements, observed, , , , , payload] = CLAUSES.map((clause) => clause.replace('s?', 's'));
    expect(citations('x', `it('${SEED} 003 ${boundary} (3)')`)).toHaveLength(2);
    expect(citations('x', ` * (${SEED.replace('s', 'S')} 004, ${elements} 2)`)).toHaveLength(2);
    expect(citations('x', `// ${ISSUE} 8, part 1`)).toHaveLength(1);
    expect(citations('x', `${ISSUE} #12`)).toHaveLength(1);
    expect(citations('x', `as the ${SEED}s spell them`)).toHaveLength(1);
    expect(citations('x', `(${SEED} 000 ${METHOD} 4)`)).toHaveLength(2);
    expect(citations('x', `(${observed} 1, ${payload} forgery)`)).toHaveLength(1);
    expect(citations('x', '// Every wait here names the fast-check seed, so a time-out can be replayed.')).toEqual([]);
    expect(citations('x', ' * an Ed25519 key derived from a 32-byte seed')).toEqual([]);
    expect(citations('x', ' * one issue per bad field; the issue names the missing one (rule M4)')).toEqual([]);
    expect(citations('x', '## The four recorded elements → manifest fields (docs/triage.md rule 8)')).toEqual([]);
  });

  it('scans every tracked file: docs, README, code, CLI and MCP, scripts, bench, schemas, tests, vectors, goldens', () => {
    const files = scanned();
    for (const path of [
      'README.md',
      'docs/guard.md',
      'shared/triage/isolate-delta.ts',
      'cli/commands/triage.ts',
      'mcp/tools/write.ts',
      'scripts/gen-schemas.ts',
      'bench/RESULTS.md',
      'schemas/SealedRecord.schema.json',
      'test/vectors/triage.json',
      'test/unit/cli/golden/triage-partial.txt',
    ]) {
      expect(files).toContain(path);
    }
  });

  it('every allow-list entry is a tracked file and says why it must keep its text', () => {
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
    for (const { path, reason } of ALLOWED) {
      expect(tracked, path).toContain(path);
      expect(reason.trim().length, path).toBeGreaterThan(10);
    }
  });

  it('no tracked file cites an outside document, its clauses or a tracker entry', () => {
    const found = scanned().flatMap((path) => {
      const text = textOf(path);
      return text === null ? [] : citations(path, text);
    });
    expect(found).toEqual([]);
  });
});
