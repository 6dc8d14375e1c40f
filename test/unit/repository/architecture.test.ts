import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** The shipped code: what the package, the Lambda functions and the stack are built from. */
const PRODUCTION = ['adapters', 'bin', 'cli', 'client', 'frameworks', 'functions', 'infra', 'mcp', 'shared'] as const;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : /\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/**
 * What a module declares for export: the names it declares itself, those of them that are values
 * (functions, classes, enums, variables: what runs, as against types), and whether it forwards
 * another module's (`export … from`).
 */
function exportsOf(
  fileName: string,
  source: string,
): { readonly names: string[]; readonly values: string[]; readonly forwards: boolean } {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const names: string[] = [];
  const values = new Set<string>();
  let forwards = false;
  for (const node of file.statements) {
    if (ts.isExportDeclaration(node)) {
      if (node.moduleSpecifier) forwards = true;
      else if (node.exportClause && ts.isNamedExports(node.exportClause))
        for (const element of node.exportClause.elements) {
          names.push(element.name.text);
          if (!node.isTypeOnly && !element.isTypeOnly) values.add(element.name.text);
        }
      continue;
    }
    const modifiers = ts.canHaveModifiers(node) ? (ts.getModifiers(node) ?? []) : [];
    if (!modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue;
    if (ts.isVariableStatement(node)) {
      for (const declaration of node.declarationList.declarations)
        if (ts.isIdentifier(declaration.name)) {
          names.push(declaration.name.text);
          values.add(declaration.name.text);
        }
    } else if (
      (ts.isFunctionDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node) ||
        ts.isEnumDeclaration(node)) &&
      node.name
    ) {
      names.push(node.name.text);
      if (!ts.isInterfaceDeclaration(node) && !ts.isTypeAliasDeclaration(node)) values.add(node.name.text);
    }
  }
  return { names, values: [...values], forwards };
}

/** The words of a name, lower case, a plural `s` folded: `kebab-case`, `camelCase`, `PascalCase`, `SCREAMING_CASE`. */
function wordsOf(name: string): string[] {
  const parts = /^[A-Z0-9_]+$/.test(name)
    ? name.split('_')
    : name.split(/[-_]/).flatMap((part) => part.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? []);
  return parts.filter((part) => part.length > 0).map((part) => part.toLowerCase().replace(/s$/, ''));
}

/**
 * Whether `exported` is named after the file `fileName`: it holds every word of the file's name,
 * in any order (`checkHeldRecord` in held-record-check.ts, `DynamoDBChainStore` in
 * dynamodb-chain-store.ts).
 */
function namedAfter(fileName: string, exported: string): boolean {
  const held = exported.replace(/_/g, '').toLowerCase();
  return wordsOf(basename(fileName).replace(/\.(ts|mjs)$/, '')).every((word) => held.includes(word));
}

/**
 * The value exports of `fileName` that name another concept than the file's: those that share no
 * word with the file's name. A file keeps what belongs to its one concept under the concept's
 * words (`isolateDelta` and `isolateValidatedDelta` in isolate-delta.ts), an error class it throws
 * (`…Error`) and the constants of its own format (`SCREAMING_CASE`: a limit, a prefix, a domain
 * tag); a second concept (`readString` in a file of items) goes to a file of its own.
 */
function secondConcepts(fileName: string, values: readonly string[]): string[] {
  const fileWords = new Set(wordsOf(basename(fileName).replace(/\.(ts|mjs)$/, '')));
  return values.filter(
    (name) =>
      name !== 'handler' &&
      !name.endsWith('Error') &&
      !/^[A-Z0-9_]+$/.test(name) &&
      !wordsOf(name).some((word) => fileWords.has(word)),
  );
}

/** The production files, relative to the repository, with what each exports. */
const modules = PRODUCTION.flatMap((dir) => sourceFiles(join(ROOT, dir))).map((file) => ({
  file: relative(ROOT, file).split(sep).join('/'),
  ...exportsOf(file, readFileSync(file, 'utf8')),
}));

/** Barrels (`index.ts`: the package's entry points), Lambda entries (`handler`), and scripts that export nothing. */
const isEntry = ({ file, names }: { readonly file: string; readonly names: readonly string[] }) =>
  basename(file) === 'index.ts' || names.length === 0 || names.every((name) => name === 'handler');

describe('architecture: one concept per file, named after its primary export (README.md, "Architecture")', () => {
  it('reads names as the rule means them (the check itself)', () => {
    expect(wordsOf('deployment-chain-reader.ts'.replace('.ts', ''))).toEqual(['deployment', 'chain', 'reader']);
    expect(namedAfter('client/deployment-chain-reader.ts', 'DeploymentChainReader')).toBe(true);
    expect(namedAfter('cli/recall-exit.ts', 'recallExitCode')).toBe(true);
    expect(namedAfter('functions/guard/create-handler.ts', 'createGuardHandler')).toBe(true);
    expect(namedAfter('shared/log/held-record-check.ts', 'checkHeldRecord')).toBe(true);
    expect(namedAfter('client/errors.ts', 'LogVerificationError')).toBe(true);
    expect(namedAfter('adapters/dynamodb-chain-store.ts', 'DynamoDBChainStore')).toBe(true);
    expect(namedAfter('adapters/lineage-keys.ts', 'RECORD_SK_PREFIX')).toBe(false);
    expect(namedAfter('cli/read-file.ts', 'issueLines')).toBe(false);
    expect(exportsOf('a.ts', "export { b } from './b';\nexport type { C } from './c';")).toEqual({
      names: [],
      values: [],
      forwards: true,
    });
    expect(
      exportsOf(
        'a.ts',
        'export const A = 1, B = 2;\nexport function f() {}\nexport interface I {}\nconst x = 1;\nexport { x };',
      ).names,
    ).toEqual(['A', 'B', 'f', 'I', 'x']);
    expect(
      exportsOf('a.ts', 'export interface I {}\nexport type T = 1;\nexport class K {}\nexport enum E {}').values,
    ).toEqual(['K', 'E']);
    expect(secondConcepts('shared/triage/isolate-delta.ts', ['isolateDelta', 'isolateValidatedDelta'])).toEqual([]);
    expect(secondConcepts('shared/canonical/strict-json.ts', ['parseStrictJson', 'MAX_PARSE_DEPTH'])).toEqual([]);
    expect(secondConcepts('shared/errors.ts', ['ResealError', 'isRetryable'])).toEqual(['isRetryable']);
    expect(secondConcepts('adapters/record-item.ts', ['recordItem', 'readString'])).toEqual(['readString']);
  });

  it('each production file exports a concept named after the file', () => {
    const unnamed = modules
      .filter((module) => !isEntry(module))
      .filter(({ file, names }) => !names.some((name) => namedAfter(file, name)))
      .map(({ file }) => file);
    expect(modules.length).toBeGreaterThan(300);
    expect(unnamed).toEqual([]);
  });

  it("a file's other value exports belong to its concept: each shares a word with the file's name", () => {
    const mixed = modules
      .filter(({ file }) => basename(file) !== 'index.ts')
      .filter(({ file, values }) => secondConcepts(file, values).length > 0)
      .map(({ file }) => file);
    expect(mixed).toEqual([]);
  });

  it('no production file but an index.ts forwards another module (import a concept from the file that owns it)', () => {
    const forwarding = modules.filter(({ file, forwards }) => forwards && basename(file) !== 'index.ts');
    expect(forwarding.map(({ file }) => file)).toEqual([]);
  });
});

describe('architecture: the recall is decided once, in client/ (docs/verifiable-log.md, "Recall")', () => {
  const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');

  it('only client/ calls decideRecall; RecallEnd is declared in client/verified-recall.ts alone', () => {
    const callers = modules.filter(({ file }) => /\bdecideRecall\(/.test(text(file))).map(({ file }) => file);
    expect(callers.length).toBeGreaterThan(0);
    expect(callers.filter((file) => !file.startsWith('client/'))).toEqual([]);
    const declaring = modules.filter(({ names }) => names.includes('RecallEnd')).map(({ file }) => file);
    expect(declaring).toEqual(['client/verified-recall.ts']);
  });

  it("the CLI's exit code and the MCP tool's answer map the end client/ decided (they import RecallEnd from client/verified-recall.ts)", () => {
    for (const file of ['cli/recall-exit.ts', 'cli/format/recall.ts', 'mcp/recall-result.ts']) {
      expect(text(file), file).toMatch(
        /import \{[^}]*\bRecallEnd\b[^}]*\} from '\.\.\/(\.\.\/)?client\/verified-recall'/,
      );
    }
  });
});
