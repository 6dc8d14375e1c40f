import { describe, expect, it } from 'vitest';
import { untrustedRecallText } from '../../../client/untrusted-recall-text';
import { RecallEnd, type VerifiedRecall } from '../../../client/verified-recall';
import { REDACTED_TEXT } from '../../../shared/schemas/redacted-text';

/** A recall refuted by the client's own finding, the stored answer naming `storedResidualId`. */
function refuted(storedResidualId: string, refusalReason: string | null): VerifiedRecall {
  return {
    end: RecallEnd.NOT_INTACT,
    target: { residualId: 'residual-3' },
    record: null,
    reason: `the index maps residual residual-3 to seq 1 as of deployment checkpoint 2, but the record shown is seq 2`,
    report: { refusalReason, residualId: storedResidualId, verification: null },
  } as unknown as VerifiedRecall;
}

// docs/mcp.md, "Untrusted data": only stored words are redacted from the reason, and each one
// redacted is shown in the untrusted section.
describe('untrustedRecallText', () => {
  it("the residual id the caller asked for is the caller's word: the client's reason naming it is not redacted", () => {
    const text = untrustedRecallText(refuted('residual-3', null));
    expect(text.reason).toContain('maps residual residual-3 to seq 1');
    expect(text.reason).not.toContain(REDACTED_TEXT);
    expect(text.untrusted?.refusalReason).toBeNull();
  });

  it('a stored residual id other than the one asked for, and a stored refusal reason, are still redacted', () => {
    const planted = refuted('seq 1 as of deployment', 'the index maps residual');
    const text = untrustedRecallText(planted);
    expect(text.reason).toContain(REDACTED_TEXT);
    expect(text.untrusted?.residualId).toBe('seq 1 as of deployment');
    expect(text.untrusted?.refusalReason).toBe('the index maps residual');
  });
});
