import { describe, expect, it } from 'vitest';
import { signLineageCheckpoints } from '../../../../functions/sealer/sign-lineage-checkpoints';
import { InvalidInputError } from '../../../../shared/errors';

// docs/deployment-log.md, "What changes for the sealer": signed per run until the lead turns it off.
describe('SIGN_LINEAGE_CHECKPOINTS', () => {
  it('signs by default (unset, empty, true) and not with false', () => {
    expect(signLineageCheckpoints(undefined)).toBe(true);
    expect(signLineageCheckpoints('')).toBe(true);
    expect(signLineageCheckpoints('true')).toBe(true);
    expect(signLineageCheckpoints('false')).toBe(false);
  });

  it('refuses anything else rather than guess', () => {
    for (const value of ['no', 'FALSE', '0']) {
      expect(() => signLineageCheckpoints(value)).toThrow(InvalidInputError);
    }
  });
});
