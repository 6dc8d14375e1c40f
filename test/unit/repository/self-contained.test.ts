import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The repository is self-contained (README.md, docs/ is the specification): comments and docs point only at files it holds, and
 * docs/ is the specification. Scans every tracked `.ts`, `.mjs` and `.md` file (not `schemas/`,
 * which is generated, nor `test/vectors/`, nor this file). The names it looks for are assembled
 * from parts below, so that not even this file spells them:
 *
 * 1. No mention of a document the repository does not hold: the project's design notes (by their
 *    upper-case name, {@link BRIEF_NAME}), a document under `../shared/`, a seed file
 *    (`NNN_<16 hex>.txt`) or a seeds folder. Import and export lines are skipped (`'../shared/…'` there is a module).
 * 2. Every bare Markdown file name (`README.md`, `guard.md`) is the name of a tracked file.
 * 3. Every path a Markdown link names (`](path)`, relative to the page; `#anchor` stripped; URLs
 *    and pure anchors skipped), and every page-relative path in backticks (`../shared/x.ts`), is a
 *    tracked file or folder inside the repository.
 * 4. Every repository path in prose or a comment (a token starting with a top-level folder such
 *    as `docs/`, `shared/` or `test/` and ending in a file extension; or, in backticks, ending in
 *    `/` for a folder) is a tracked file or folder. Globs and placeholders (`<`, `*`, `…`, `{`, `$`) are skipped.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SELF = 'test/unit/repository/self-contained.test.ts';

const TOP_LEVEL = [
  'docs',
  'shared',
  'functions',
  'adapters',
  'client',
  'cli',
  'mcp',
  'frameworks',
  'infra',
  'test',
  'scripts',
  'bench',
  'schemas',
  'examples',
  'bin',
];

/** One reference that points outside the repository. */
interface Problem {
  file: string;
  line: number;
  rule: string;
  text: string;
}

/** What the scan needs to know about the repository. */
interface Repository {
  /** Tracked (or new, not ignored) files, repository-relative with `/`. */
  files: ReadonlySet<string>;
  /** Every folder that holds one of them. */
  folders: ReadonlySet<string>;
  /** Base names of the Markdown files among them. */
  markdownNames: ReadonlySet<string>;
}

/** The design notes' name (outside the repository), assembled so no file here spells it. */
const BRIEF_NAME = ['DES', 'IGN'].join('');
/** A seed file name of the same shape as the ones outside the repository. */
const SEED_FILE = `${['004', 'de998f23e63ecd5e'].join('_')}.txt`;
/** A style guide outside the repository. */
const GUIDE_NAME = `${['STY', 'LE'].join('')}.md`;
/** The seed folder's name outside the repository. */
const SEED_FOLDER = ['se', 'eds'].join('');

const FORBIDDEN: readonly { rule: string; pattern: RegExp }[] = [
  { rule: 'names the design notes (not in the repository)', pattern: new RegExp(`\\b${BRIEF_NAME}\\b`) },
  { rule: 'names a document under ../shared/', pattern: /(?:\.\.\/)+shared\/[^\s'"`)]*\.(?:md|txt)\b/ },
  { rule: 'names a seed file (not in the repository)', pattern: /\b\d{3}_[0-9a-f]{16}\.txt\b/ },
  { rule: 'names the seed folder (not in the repository)', pattern: new RegExp(`(?:^|[^\\w-])${SEED_FOLDER}/`) },
];

const IMPORT_LINE = /^\s*(?:import\b|export\b.*\bfrom\s*['"]|}\s*from\s*['"])/;
const MARKDOWN_NAME = /(?<![\w./-])([\w-]+\.md)\b/g;
const MARKDOWN_LINK = /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
const REPO_PATH = new RegExp(`(?<![\\w./-])((?:${TOP_LEVEL.join('|')})/[^\\s\`'"()\\[\\],;]*)`, 'g');
/** A folder only in backticks (`adapters/`): elsewhere `x/y/` is too often not a path. */
const REPO_FOLDER = new RegExp(`\`((?:${TOP_LEVEL.join('|')})/(?:[^\\s\`]*/)?)\``, 'g');
/** A page-relative path in backticks (`../shared/index.ts`), in Markdown. */
const RELATIVE_PATH = /`(\.\.?\/[^\s`]*)`/g;
const PLACEHOLDER = /[<*…{$]/;

/** The repository as git sees it: tracked files, plus new files that are not ignored. */
function readRepository(): Repository {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
      .split('\0')
      .filter((path) => path !== '');
  return repositoryOf([...git('ls-files', '-z'), ...git('ls-files', '-z', '--others', '--exclude-standard')]);
}

function repositoryOf(paths: readonly string[]): Repository {
  const files = new Set(paths);
  const folders = new Set<string>();
  for (const file of files) {
    for (let dir = posix.dirname(file); dir !== '.'; dir = posix.dirname(dir)) folders.add(dir);
  }
  const markdownNames = new Set([...files].filter((f) => f.endsWith('.md')).map((f) => posix.basename(f)));
  return { files, folders, markdownNames };
}

function isScanned(path: string): boolean {
  return (
    /\.(?:ts|mjs|md)$/.test(path) &&
    path !== 'package-lock.json' &&
    !path.startsWith('schemas/') &&
    !path.startsWith('test/vectors/') &&
    !path.startsWith('node_modules/') &&
    path !== SELF
  );
}

function exists(repo: Repository, path: string): boolean {
  const clean = posix.normalize(path).replace(/\/$/, '');
  return repo.files.has(clean) || repo.folders.has(clean);
}

/** A repository path as written in prose, without trailing punctuation, `#anchor` or `:line`. */
function cleanPath(token: string): string {
  return token
    .replace(/[.:!?]+$/, '')
    .replace(/#.*$/, '')
    .replace(/:\d+(?::\d+)?$/, '');
}

/** Every reference in one file's text that points outside the repository. */
function problemsIn(file: string, text: string, repo: Repository): Problem[] {
  const problems: Problem[] = [];
  const markdown = file.endsWith('.md');
  text.split('\n').forEach((content, index) => {
    const line = index + 1;
    const report = (rule: string, found: string) => problems.push({ file, line, rule, text: found });
    if (!markdown && IMPORT_LINE.test(content)) return;

    for (const { rule, pattern } of FORBIDDEN) {
      const match = pattern.exec(content);
      if (match) report(rule, match[0].trim());
    }

    // Link targets are checked against the page below, not again as prose.
    const prose = markdown ? content.replace(/\]\([^)]*\)/g, ']()') : content;
    for (const [, name] of prose.matchAll(MARKDOWN_NAME)) {
      if (name !== undefined && !repo.markdownNames.has(name))
        report('names a Markdown file the repository does not hold', name);
    }

    if (markdown) {
      for (const [, target] of content.matchAll(MARKDOWN_LINK)) {
        if (target === undefined || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
        const path = target.replace(/#.*$/, '');
        if (PLACEHOLDER.test(path)) continue;
        const resolved = path.startsWith('/') ? path.slice(1) : posix.join(posix.dirname(file), path);
        if (resolved.startsWith('..') || !exists(repo, resolved)) report('links to a missing file', target);
      }
      for (const [, target] of prose.matchAll(RELATIVE_PATH)) {
        if (target === undefined || PLACEHOLDER.test(target)) continue;
        const resolved = posix.join(posix.dirname(file), cleanPath(target));
        if (resolved.startsWith('..') || !exists(repo, resolved)) report('names a missing page-relative path', target);
      }
    }

    for (const [, token] of prose.matchAll(REPO_PATH)) {
      if (token === undefined || PLACEHOLDER.test(token)) continue;
      const path = cleanPath(token);
      if (/\/[^/]*[^/.]\.[A-Za-z0-9]+$/.test(path) && !exists(repo, path))
        report('names a missing repository path', path);
    }
    for (const [, folder] of prose.matchAll(REPO_FOLDER)) {
      if (folder !== undefined && !PLACEHOLDER.test(folder) && !exists(repo, folder))
        report('names a missing repository folder', folder);
    }
  });
  return problems;
}

function format(problems: readonly Problem[]): string {
  return problems.map((p) => `${p.file}:${p.line}: ${p.rule}: ${p.text}`).join('\n');
}

describe('repository: self-contained (README.md, docs/ is the specification)', () => {
  const repo = readRepository();
  // A tracked file deleted in the working tree is not read.
  const scanned = [...repo.files].filter((file) => isScanned(file) && existsSync(`${ROOT}${file}`)).sort();

  it('scans the tracked sources and docs', () => {
    expect(scanned).toContain('README.md');
    expect(scanned).toContain('docs/sealing.md');
    expect(scanned).toContain('shared/index.ts');
    expect(scanned.some((f) => f.startsWith('schemas/') || f.startsWith('test/vectors/'))).toBe(false);
  });

  it('comments and docs name no document outside the repository, and every path they name exists', () => {
    const problems = scanned.flatMap((file) => problemsIn(file, readFileSync(`${ROOT}${file}`, 'utf8'), repo));
    expect(format(problems)).toBe('');
  });

  describe('the scan itself, on planted references', () => {
    const planted = repositoryOf([
      'README.md',
      'docs/guard.md',
      'docs/sealing.md',
      'shared/index.ts',
      'shared/seal/a.ts',
    ]);
    const rulesOf = (file: string, text: string) => problemsIn(file, text, planted).map((p) => p.rule);

    it('flags the design notes, a ../shared/ document, a seed file and the seed folder', () => {
      expect(rulesOf('shared/seal/a.ts', ` * (${BRIEF_NAME}.md, "Facts from the field")`)).toContain(
        'names the design notes (not in the repository)',
      );
      expect(rulesOf('shared/seal/a.ts', ` * ${BRIEF_NAME} Hardening (fencing)`)).toContain(
        'names the design notes (not in the repository)',
      );
      expect(rulesOf('docs/guard.md', 'as `../shared/NOTES.txt` asks')).toContain('names a document under ../shared/');
      expect(rulesOf('docs/guard.md', `seed \`${SEED_FILE}\``)).toContain('names a seed file (not in the repository)');
      expect(rulesOf('docs/guard.md', `see ../${SEED_FOLDER}/ for the text`)).toContain(
        'names the seed folder (not in the repository)',
      );
    });

    it('skips module imports from ../shared/ in source files', () => {
      expect(rulesOf('shared/seal/a.ts', "import { x } from '../shared/index';")).toEqual([]);
      expect(rulesOf('shared/seal/a.ts', "} from '../../shared/seal/a';")).toEqual([]);
    });

    it('flags a Markdown file name the repository does not hold', () => {
      expect(rulesOf('shared/index.ts', ` * pure (${GUIDE_NAME} §1), see README.md and guard.md`)).toEqual([
        'names a Markdown file the repository does not hold',
      ]);
    });

    it('resolves Markdown links against the page, strips anchors and skips URLs and anchors', () => {
      expect(rulesOf('docs/guard.md', '[sealing](sealing.md#checkpoints), [readme](../README.md)')).toEqual([]);
      expect(rulesOf('docs/guard.md', '[x](https://example.com/a.md) [y](#rules) [z](mailto:a@b.c)')).toEqual([]);
      expect(rulesOf('docs/guard.md', '[triage](triage.md)')).toEqual(['links to a missing file']);
      expect(rulesOf('README.md', '[guard](docs/guard.md) [old](docs/old.md)')).toEqual(['links to a missing file']);
      expect(rulesOf('docs/guard.md', '`../shared/index.ts` and `./sealing.md`')).toEqual([]);
      expect(rulesOf('docs/guard.md', 'as `../shared/NOTES` and `../../shared/index.ts` ask')).toEqual([
        'names a missing page-relative path',
        'names a missing page-relative path',
      ]);
    });

    it('flags repository paths in prose and comments that do not exist, and skips placeholders', () => {
      expect(rulesOf('shared/index.ts', ' * (`shared/seal/a.ts`, docs/sealing.md.)')).toEqual([]);
      expect(rulesOf('shared/index.ts', ' * (`adapters/`) and `shared/seal/`, Credential=test/2026/')).toEqual([
        'names a missing repository folder',
      ]);
      expect(rulesOf('shared/index.ts', ' * `docs/missing.md` and test/gone.test.ts:12')).toEqual([
        'names a missing repository path',
        'names a missing repository path',
      ]);
      expect(rulesOf('docs/guard.md', '`test/<name>.txt`, `shared/**/*.ts`, `docs/…`, `bench/{name}.ts`')).toEqual([]);
    });
  });
});
