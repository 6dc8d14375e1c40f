import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  AnchorKeyMismatchError,
  AnchorUnavailableError,
  HeaderTooLargeError,
  InvalidInputError,
} from '../../../../shared/errors';
import { LocalHmacAnchor } from '../../../../shared/seal/local-hmac-anchor';
import { TEST_KEY_BYTES, TEST_KEY_ID, testAnchor } from '../../../helpers/seal-factories';

const message = new TextEncoder().encode('{"hello":"world"}');

describe('LocalHmacAnchor', () => {
  it('produces HMAC-SHA-256 as standard base64, named with its key id and KMS algorithm name', async () => {
    const signature = await testAnchor().generateMac(message);
    const expected = createHmac('sha256', Buffer.from(TEST_KEY_BYTES)).update(message).digest('base64');
    expect(signature).toEqual({ keyId: TEST_KEY_ID, algorithm: 'HMAC_SHA_256', mac: expected });
  });

  it('verifies its own MAC and rejects a MAC of another message or another key', async () => {
    const anchor = testAnchor();
    const signature = await anchor.generateMac(message);
    expect(await anchor.verifyMac(message, signature)).toBe(true);
    expect(await anchor.verifyMac(new TextEncoder().encode('{"hello":"World"}'), signature)).toBe(false);
    const otherKey = testAnchor({ key: new Uint8Array(32).fill(7) });
    expect(await otherKey.verifyMac(message, signature)).toBe(false);
  });

  it('answers false for a malformed or non-canonical MAC and for another algorithm', async () => {
    const anchor = testAnchor();
    const signature = await anchor.generateMac(message);
    expect(await anchor.verifyMac(message, { ...signature, mac: 'not base64' })).toBe(false);
    expect(await anchor.verifyMac(message, { ...signature, mac: Buffer.alloc(16).toString('base64') })).toBe(false);
    // Same bytes, different padding bits in the last character: not the canonical spelling.
    const last = signature.mac.at(-2) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1] as string;
    const twin = `${signature.mac.slice(0, -2)}${sibling}=`;
    expect(Buffer.from(twin, 'base64').equals(Buffer.from(signature.mac, 'base64'))).toBe(true);
    expect(await anchor.verifyMac(message, { ...signature, mac: twin })).toBe(false);
    // A character whose low byte is the right one (U+0100 + code): not narrowed into a match.
    const widened = `${String.fromCharCode(0x100 + signature.mac.charCodeAt(0))}${signature.mac.slice(1)}`;
    expect(widened).toHaveLength(signature.mac.length);
    expect(Buffer.from(widened, 'latin1').toString('latin1')).toBe(signature.mac);
    expect(await anchor.verifyMac(message, { ...signature, mac: widened })).toBe(false);
    expect(await anchor.verifyMac(message, signature)).toBe(true);
    const other = { ...signature, algorithm: 'HMAC_SHA_512' } as unknown as typeof signature;
    expect(await anchor.verifyMac(message, other)).toBe(false);
  });

  it('docs/sealing.md "Sealing" (a key that cannot be used seals nothing): a disabled key makes generateMac and verifyMac reject (like KMS DisabledException)', async () => {
    const anchor = testAnchor();
    const signature = await anchor.generateMac(message);
    anchor.disable();
    expect(anchor.disabled).toBe(true);
    await expect(anchor.verifyMac(message, signature)).rejects.toBeInstanceOf(AnchorUnavailableError);
    await expect(anchor.generateMac(message)).rejects.toBeInstanceOf(AnchorUnavailableError);
    anchor.enable();
    expect(await anchor.verifyMac(message, signature)).toBe(true);
    await expect(testAnchor({ disabled: true }).generateMac(message)).rejects.toThrow(/disabled/);
  });

  it('rejects a check under a key it does not hold instead of answering false', async () => {
    const signature = await testAnchor().generateMac(message);
    await expect(testAnchor({ keyId: 'other-key' }).verifyMac(message, signature)).rejects.toBeInstanceOf(
      AnchorKeyMismatchError,
    );
  });

  it('KMS MAC limit: refuses messages above 4096 bytes and empty ones, like KMS', async () => {
    const anchor = testAnchor();
    await expect(anchor.generateMac(new Uint8Array(4096))).resolves.toBeDefined();
    await expect(anchor.generateMac(new Uint8Array(4097))).rejects.toBeInstanceOf(HeaderTooLargeError);
    const signature = await anchor.generateMac(message);
    await expect(anchor.verifyMac(new Uint8Array(4097), signature)).rejects.toBeInstanceOf(HeaderTooLargeError);
    await expect(anchor.generateMac(new Uint8Array(0))).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('refuses a key shorter than 32 bytes or a malformed key id, and copies the key', async () => {
    expect(() => new LocalHmacAnchor({ keyId: TEST_KEY_ID, key: new Uint8Array(31) })).toThrow(InvalidInputError);
    expect(() => new LocalHmacAnchor({ keyId: '', key: TEST_KEY_BYTES })).toThrow(InvalidInputError);
    expect(() => new LocalHmacAnchor({ keyId: 'a\nb', key: TEST_KEY_BYTES })).toThrow(InvalidInputError);
    const key = Uint8Array.from(TEST_KEY_BYTES);
    const anchor = new LocalHmacAnchor({ keyId: TEST_KEY_ID, key });
    const before = await anchor.generateMac(message);
    key.fill(0);
    expect(await anchor.generateMac(message)).toEqual(before);
  });
});
