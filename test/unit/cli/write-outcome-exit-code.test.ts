import { describe, expect, it } from 'vitest';
import { writeOutcomeExitCode } from '../../../cli/format/write-outcome-exit-code';
import type { WriteOutcome } from '../../../client/write-outcomes';

/** A sealed outcome with only the fields the exit code reads (docs/cli.md, `publish --wait`). */
const sealed = (checkpoint: string | null, state: string | null) =>
  ({ kind: 'SEALED', checkpoint, freshness: state === null ? null : { state } }) as unknown as WriteOutcome;

describe('writeOutcomeExitCode (docs/cli.md, "publish --wait")', () => {
  it.each([
    ['PROVEN', 'note', 'PROVEN', 0],
    ['awaiting integration', 'note', 'SEALED_AWAITING_INTEGRATION', 3],
    ['INCONSISTENT', null, 'INCONSISTENT', 20],
    ['REFUSED', 'note', 'REFUSED', 20],
    ['unchecked, in a signed lineage checkpoint', 'note', null, 0],
    ["unchecked, in a head the sealer MAC'd: the sealer's word, awaiting integration", null, null, 3],
  ] as const)('a seal %s', (_what, checkpoint, state, code) => {
    expect(writeOutcomeExitCode(sealed(checkpoint, state))).toBe(code);
  });

  it('a refusal or a conflict: exit 10', () => {
    expect(writeOutcomeExitCode({ kind: 'REJECTED' } as unknown as WriteOutcome)).toBe(10);
    expect(writeOutcomeExitCode({ kind: 'CONFLICT' } as unknown as WriteOutcome)).toBe(10);
  });
});
