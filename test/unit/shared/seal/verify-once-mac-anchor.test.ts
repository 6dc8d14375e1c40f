import { describe, expect, it, vi } from 'vitest';
import { VerifyOnceMacAnchor } from '../../../../shared/seal/verify-once-mac-anchor';
import { testAnchor } from '../../../helpers/seal-factories';

describe('VerifyOnceMacAnchor: one VerifyMac per distinct MAC within one integration', () => {
  it('asks once per (message, MAC) while true, overlapping calls sharing the one request; another pair is asked apart', async () => {
    const inner = testAnchor();
    const verifyMac = vi.spyOn(inner, 'verifyMac');
    const message = new Uint8Array(32).fill(1);
    const mac = await inner.generateMac(message);
    const once = new VerifyOnceMacAnchor(inner);
    expect(await Promise.all([once.verifyMac(message, mac), once.verifyMac(message, mac)])).toEqual([true, true]);
    expect(await once.verifyMac(message, mac)).toBe(true);
    expect(verifyMac).toHaveBeenCalledTimes(1);
    const other = new Uint8Array(32).fill(2);
    expect(await once.verifyMac(other, await inner.generateMac(other))).toBe(true);
    expect(verifyMac).toHaveBeenCalledTimes(2);
    // A new instance (the next integration) remembers nothing.
    expect(await new VerifyOnceMacAnchor(inner).verifyMac(message, mac)).toBe(true);
    expect(verifyMac).toHaveBeenCalledTimes(3);
  });

  it('never remembers a false or a failed check: the next caller asks again', async () => {
    const inner = testAnchor();
    const verifyMac = vi.spyOn(inner, 'verifyMac');
    const message = new Uint8Array(32).fill(1);
    const mac = await inner.generateMac(message);
    const once = new VerifyOnceMacAnchor(inner);
    const forged = { ...mac, mac: `${'A'.repeat(43)}=` };
    expect(await once.verifyMac(message, forged)).toBe(false);
    expect(await once.verifyMac(message, forged)).toBe(false);
    expect(verifyMac).toHaveBeenCalledTimes(2);
    verifyMac.mockRejectedValueOnce(new Error('KMS unreachable'));
    await expect(once.verifyMac(message, mac)).rejects.toThrow('KMS unreachable');
    expect(await once.verifyMac(message, mac)).toBe(true);
    expect(verifyMac).toHaveBeenCalledTimes(4);
    // Another MAC text for the same message is another pair.
    expect(await once.verifyMac(message, { ...mac, mac: `${'B'.repeat(43)}=` })).toBe(false);
    expect(verifyMac).toHaveBeenCalledTimes(5);
  });
});
