import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMITTED_GUARANTEES, FAILED_RUN_MARKER, GENERATED_GUARANTEES } from '../../reporters/guarantees-paths';
import { updateGuarantees } from '../../reporters/update-guarantees';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A repository root holding a committed table, and a generated one when `generated` is given. */
function repo(generated?: string): string {
  const root = mkdtempSync(join(tmpdir(), 'reseal-guarantees-'));
  roots.push(root);
  mkdirSync(join(root, dirname(COMMITTED_GUARANTEES)), { recursive: true });
  writeFileSync(join(root, COMMITTED_GUARANTEES), '# Guarantees\n\n1 rows, 0 failing.\n');
  if (generated !== undefined) {
    mkdirSync(join(root, dirname(GENERATED_GUARANTEES)), { recursive: true });
    writeFileSync(join(root, GENERATED_GUARANTEES), generated);
  }
  return root;
}

describe('npm run guarantees:update (test/reporters/update-guarantees.ts)', () => {
  it('copies a generated table whose rows all pass onto docs/guarantees.md', () => {
    const table = '# Guarantees\n\n2 rows, 0 failing.\n';
    const root = repo(table);
    expect(updateGuarantees(root, () => {})).toBe(0);
    expect(readFileSync(join(root, COMMITTED_GUARANTEES), 'utf8')).toBe(table);
  });

  it.each([
    ['no generated table (no complete run yet)', undefined, 'run `npm test` first'],
    ['a table with failing rows', '# Guarantees\n\n2 rows, 1 failing.\n', '1 row(s)'],
    ['a file that is no guarantees table', 'hello\n', 'not a guarantees table'],
  ])('refuses %s and leaves docs/guarantees.md as it was', (_what, generated, message) => {
    const root = repo(generated);
    const lines: string[] = [];
    expect(updateGuarantees(root, (line) => lines.push(line))).toBe(1);
    expect(lines.join('\n')).toContain(message);
    expect(readFileSync(join(root, COMMITTED_GUARANTEES), 'utf8')).toBe('# Guarantees\n\n1 rows, 0 failing.\n');
  });

  it('refuses the table of a failed run (a file whose setup threw recorded no rows), though every row it has passes', () => {
    const root = repo('# Guarantees\n\n1 rows, 0 failing.\n');
    writeFileSync(join(root, FAILED_RUN_MARKER), '1 test file(s) failed, 0 run error(s)\n');
    const lines: string[] = [];
    expect(updateGuarantees(root, (line) => lines.push(line))).toBe(1);
    expect(lines.join('\n')).toContain('failed (1 test file(s) failed');
  });
});
