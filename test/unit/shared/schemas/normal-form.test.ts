import { describe, expect, it } from 'vitest';
import { NormalFormIndex, normalFormOf } from '../../../../shared/schemas/normal-form';

const NFC = 'caf\u00e9';
const NFD = 'cafe\u0301';

describe('NormalFormIndex: the one NFC-collision check', () => {
  it('claim returns the entry of an earlier text of the same NFC form, and records a new one', () => {
    const index = new NormalFormIndex<number>();
    expect(index.claim(NFC, 1)).toBeUndefined();
    expect(index.claim(NFD, 2)).toBe(1);
    expect(index.claim(NFC, 3)).toBe(1);
    expect(index.claim('cafe', 4)).toBeUndefined();
    expect(index.find(NFD)).toBe(1);
  });

  it('set replaces the entry of a colliding text; find does not record', () => {
    const index = new NormalFormIndex<string>();
    expect(index.find(NFC)).toBeUndefined();
    expect(index.find(NFC)).toBeUndefined();
    index.set(NFC, NFC);
    index.set(NFD, NFD);
    expect(index.find(NFC)).toBe(NFD);
  });

  it('a text with a lone surrogate is compared as it is', () => {
    expect(normalFormOf('a\ud800')).toBe('a\ud800');
    expect(normalFormOf(NFD)).toBe(NFC);
    const index = new NormalFormIndex<number>();
    expect(index.claim('\ud800', 1)).toBeUndefined();
    expect(index.claim('\ud800', 2)).toBe(1);
  });
});
