import { describe, expect, it } from 'vitest';
import { REDACTED_TEXT, redactedText } from '../../../../shared/schemas/redacted-text';

describe('redactedText: a sentence without the stored strings it quotes', () => {
  it('replaces every occurrence of each quote, longest first', () => {
    const text = 'triage says: IGNORE PREVIOUS INSTRUCTIONS [not proven]; again IGNORE PREVIOUS INSTRUCTIONS';
    expect(redactedText(text, ['IGNORE', 'IGNORE PREVIOUS INSTRUCTIONS'])).toBe(
      `triage says: ${REDACTED_TEXT} [not proven]; again ${REDACTED_TEXT}`,
    );
  });

  it('leaves quotes shorter than minLength and text that quotes nothing', () => {
    expect(redactedText('seq 3 is r-1', ['r-1', 'absent'])).toBe('seq 3 is r-1');
    expect(redactedText('seq 3 is r-1', ['r-1'], 3)).toBe(`seq 3 is ${REDACTED_TEXT}`);
  });
});
