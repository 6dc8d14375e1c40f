import { describe, expect, it } from 'vitest';
import { signLineageCheckpoints } from '../../../../functions/sealer/sign-lineage-checkpoints';
import { InvalidInputError } from '../../../../shared/errors';

// docs/deployment-log.md, "What changes for the sealer", step 3: no lineage checkpoint unless asked.
describe('SIGN_LINEAGE_CHECKPOINTS', () => {
  it('signs no lineage checkpoint by default (unset, empty, false), only with true', () => {
    expect(signLineageCheckpoints(undefined)).toBe(false);
    expect(signLineageCheckpoints('')).toBe(false);
    expect(signLineageCheckpoints('false')).toBe(false);
    expect(signLineageCheckpoints('true')).toBe(true);
  });

  it('refuses anything else rather than guess', () => {
    for (const value of ['no', 'FALSE', '0']) {
      expect(() => signLineageCheckpoints(value)).toThrow(InvalidInputError);
    }
  });
});
