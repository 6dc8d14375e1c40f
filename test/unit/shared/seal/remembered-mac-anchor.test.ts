import { describe, expect, it } from 'vitest';
import { AnchorKeyMismatchError, AnchorUnavailableError } from '../../../../shared/errors';
import type { AnchorSignature, MacAnchor } from '../../../../shared/ports/mac-anchor';
import {
  REMEMBERED_MAC_ENTRIES,
  REMEMBERED_MAC_MAX_AGE_MS,
  RememberedMacAnchor,
} from '../../../../shared/seal/remembered-mac-anchor';
import { TEST_KEY_ID, testAnchor } from '../../../helpers/seal-factories';

/** A MAC anchor (node:crypto HMAC, like KMS) that counts its calls; `answer` overrides its verdicts. */
class CountingAnchor implements MacAnchor {
  readonly keyId = TEST_KEY_ID;
  readonly hmac = testAnchor();
  generated = 0;
  verified = 0;
  answer: boolean | null = null;

  async generateMac(message: Uint8Array): Promise<AnchorSignature> {
    this.generated++;
    return this.hmac.generateMac(message);
  }

  async verifyMac(message: Uint8Array, signature: AnchorSignature): Promise<boolean> {
    this.verified++;
    const verdict = await this.hmac.verifyMac(message, signature);
    return this.answer ?? verdict;
  }
}

const bytes = (text: string) => new TextEncoder().encode(text);
const MESSAGE = bytes('{"head":"state one"}');
const OTHER = bytes('{"head":"state two"}');

function setup(options: { maxEntries?: number; maxAgeMs?: number } = {}) {
  const inner = new CountingAnchor();
  const clock = { nowMs: 1_000_000 };
  const anchor = new RememberedMacAnchor(inner, { ...options, clock: () => clock.nowMs });
  return { inner, clock, anchor };
}

describe('RememberedMacAnchor (docs/verifiable-log.md, "Appending")', () => {
  it('generates through the wrapped anchor, under its key id, and answers its own pair without asking it', async () => {
    const { inner, anchor } = setup();
    expect(anchor.keyId).toBe(TEST_KEY_ID);
    const signature = await anchor.generateMac(MESSAGE);
    expect(signature).toEqual(await inner.hmac.generateMac(MESSAGE));
    expect(inner.generated).toBe(1);
    expect(await anchor.verifyMac(MESSAGE, signature)).toBe(true);
    expect(await anchor.verifyMac(MESSAGE, { ...signature })).toBe(true);
    expect(inner.verified).toBe(0);
  });

  it('a pair it did not generate goes to the wrapped anchor: another MAC, another message, another key, another algorithm', async () => {
    const { inner, anchor } = setup();
    const genuine = await anchor.generateMac(MESSAGE);
    const otherMac = await inner.hmac.generateMac(OTHER);
    // Another state's genuine MAC beside this state, and this MAC beside another state: both asked, both false.
    expect(await anchor.verifyMac(MESSAGE, otherMac)).toBe(false);
    expect(await anchor.verifyMac(OTHER, genuine)).toBe(false);
    expect(inner.verified).toBe(2);
    // Another key id: the wrapped anchor's answer (here its refusal), not memory's.
    await expect(anchor.verifyMac(MESSAGE, { ...genuine, keyId: 'other-key' })).rejects.toThrow(AnchorKeyMismatchError);
    expect(inner.verified).toBe(3);
    // Another algorithm name with the same MAC bytes.
    expect(await anchor.verifyMac(MESSAGE, { ...genuine, algorithm: 'HMAC_SHA_512' as never })).toBe(false);
    expect(inner.verified).toBe(4);
  });

  it('never answers false from memory: a pair unlike the remembered one gets the wrapped anchor’s answer', async () => {
    const { inner, anchor } = setup();
    await anchor.generateMac(MESSAGE);
    inner.answer = true; // the wrapped anchor vouches for it (another spelling KMS would accept, say)
    expect(await anchor.verifyMac(MESSAGE, await inner.hmac.generateMac(OTHER))).toBe(true);
    expect(inner.verified).toBe(1);
  });

  it('a false from the wrapped anchor is never remembered as true, nor is its true remembered', async () => {
    const { inner, anchor } = setup();
    const forged = await inner.hmac.generateMac(OTHER);
    for (let i = 0; i < 3; i++) expect(await anchor.verifyMac(MESSAGE, forged)).toBe(false);
    expect(inner.verified).toBe(3);
    // Also after the genuine pair of the message is remembered.
    const genuine = await anchor.generateMac(MESSAGE);
    expect(await anchor.verifyMac(MESSAGE, forged)).toBe(false);
    expect(inner.verified).toBe(4);
    expect(await anchor.verifyMac(MESSAGE, genuine)).toBe(true);
    expect(inner.verified).toBe(4);
    // A pair only the wrapped anchor vouched for is asked of it again.
    const vouched = await inner.hmac.generateMac(OTHER);
    expect(await anchor.verifyMac(OTHER, vouched)).toBe(true);
    expect(await anchor.verifyMac(OTHER, vouched)).toBe(true);
    expect(inner.verified).toBe(6);
  });

  it('a failing generateMac remembers nothing, and a failing check is the wrapped anchor’s rejection', async () => {
    const { inner, anchor } = setup();
    const genuine = await inner.hmac.generateMac(MESSAGE);
    inner.hmac.disable();
    await expect(anchor.generateMac(MESSAGE)).rejects.toThrow(AnchorUnavailableError);
    expect(anchor.size).toBe(0);
    await expect(anchor.verifyMac(MESSAGE, genuine)).rejects.toThrow(AnchorUnavailableError);
  });

  it(`a remembered pair is honoured for maxAgeMs (${REMEMBERED_MAC_MAX_AGE_MS / 60_000} minutes by default), then asked again: a disabled key stops being honoured`, async () => {
    const { inner, clock, anchor } = setup();
    const signature = await anchor.generateMac(MESSAGE);
    clock.nowMs += REMEMBERED_MAC_MAX_AGE_MS - 1;
    expect(await anchor.verifyMac(MESSAGE, signature)).toBe(true);
    expect(inner.verified).toBe(0);
    clock.nowMs += 1;
    expect(await anchor.verifyMac(MESSAGE, signature)).toBe(true);
    expect(inner.verified).toBe(1);
    // The key disabled in KMS: past the age bound the check is KMS's, and fails closed.
    const again = await anchor.generateMac(OTHER);
    inner.hmac.disable();
    clock.nowMs += REMEMBERED_MAC_MAX_AGE_MS;
    await expect(anchor.verifyMac(OTHER, again)).rejects.toThrow(AnchorUnavailableError);
    expect(inner.verified).toBe(2);
  });

  it(`keeps at most maxEntries pairs (${REMEMBERED_MAC_ENTRIES.toLocaleString('en')} by default), forgetting the least recently used`, async () => {
    const { inner, anchor } = setup({ maxEntries: 2 });
    const first = await anchor.generateMac(bytes('first'));
    const second = await anchor.generateMac(bytes('second'));
    // A hit makes `first` the most recently used: `second` is the one forgotten.
    expect(await anchor.verifyMac(bytes('first'), first)).toBe(true);
    const third = await anchor.generateMac(bytes('third'));
    expect(anchor.size).toBe(2);
    expect(inner.verified).toBe(0);
    expect(await anchor.verifyMac(bytes('second'), second)).toBe(true);
    expect(inner.verified).toBe(1);
    expect(await anchor.verifyMac(bytes('first'), first)).toBe(true);
    expect(await anchor.verifyMac(bytes('third'), third)).toBe(true);
    expect(inner.verified).toBe(1);
  });

  it('refuses bounds that are not positive', () => {
    const inner = new CountingAnchor();
    expect(() => new RememberedMacAnchor(inner, { maxEntries: 0 })).toThrow(RangeError);
    expect(() => new RememberedMacAnchor(inner, { maxEntries: 1.5 })).toThrow(RangeError);
    expect(() => new RememberedMacAnchor(inner, { maxAgeMs: 0 })).toThrow(RangeError);
    expect(() => new RememberedMacAnchor(inner, { maxAgeMs: Number.NaN })).toThrow(RangeError);
  });
});
