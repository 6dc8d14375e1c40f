import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import { EnvSnapshot } from '../../../../shared/schemas/env-snapshot';
import { MAX_ISSUE_PATH_SEGMENT, parseInput } from '../../../../shared/schemas/parse';

// A refused key is named in the error, but clipped: a 1 MB key must not become 1 MB of error text
// (docs/cli.md, "Input limits").
describe('parseInput issue paths', () => {
  it('clips a refused key to MAX_ISSUE_PATH_SEGMENT in the issue path', () => {
    const key = 'k'.repeat(1_000_000);
    let thrown: unknown;
    try {
      parseInput(EnvSnapshot, { [key]: 'v', ok: '1' }, 'environment snapshot');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidInputError);
    const issues = (thrown as InvalidInputError).issues;
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) expect(issue.path.length).toBeLessThanOrEqual(MAX_ISSUE_PATH_SEGMENT);
    expect(issues[0]?.path.startsWith('kkkk')).toBe(true);
    expect(issues[0]?.path.endsWith('…')).toBe(true);
  });

  it('leaves a key within the bound whole', () => {
    expect(() => parseInput(EnvSnapshot, { 'bad\u0001key': 'v' }, 'environment snapshot')).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ path: 'bad\u0001key' })] }),
    );
  });
});
