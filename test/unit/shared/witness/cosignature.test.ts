import { describe, expect, it } from 'vitest';
import { InvalidInputError, NoteVerificationError } from '../../../../shared/errors';
import { formatVerifierKey, noteVerifierKey } from '../../../../shared/log/note-key';
import { cosign } from '../../../../shared/witness/cosign';
import { COSIGNATURE_V1_BYTES, verifyCosignature } from '../../../../shared/witness/cosignature';
import { cosignerKey, formatCosignerKey, parseCosignerKey } from '../../../../shared/witness/cosigner-key';
import {
  TEST_WITNESS_NAME,
  testCosignerKey,
  testDeploymentBody,
  testWitnessSigner,
} from '../../../helpers/witness-factories';

describe('cosigner keys: Ed25519 with signature type 0x04', () => {
  it('round-trips its vkey; a note (type 0x01) vkey of the same key is refused', async () => {
    const key = await testCosignerKey();
    expect(parseCosignerKey(formatCosignerKey(key))).toEqual(key);
    const noteVkey = formatVerifierKey(noteVerifierKey(TEST_WITNESS_NAME, key.publicKey));
    expect(() => parseCosignerKey(noteVkey)).toThrow(/signature type 1/);
  });

  it('refuses a key ID that is not the name and key, bad names and hex', async () => {
    const vkey = formatCosignerKey(await testCosignerKey());
    const [name, , key] = vkey.split('+');
    expect(() => parseCosignerKey(`${name}+00000000+${key}`)).toThrow(InvalidInputError);
    expect(() => parseCosignerKey(`${name}+ABCDEF01+${key}`)).toThrow(/lowercase/);
    expect(() => parseCosignerKey(`bad name+00000000+${key}`)).toThrow(/name/);
    expect(() => parseCosignerKey('no-separators')).toThrow(/expected/);
    expect(() => cosignerKey(TEST_WITNESS_NAME, new Uint8Array(31))).toThrow(/32/);
  });
});

describe('cosignature/v1: timestamp and Ed25519 signature over the cosigned message', () => {
  const body = testDeploymentBody(5);

  it('cosign writes 72 bytes that verify, giving back the timestamp', async () => {
    const sig = await cosign(body, 1_700_000_000, testWitnessSigner());
    expect(sig.signature.byteLength).toBe(COSIGNATURE_V1_BYTES);
    expect(sig.name).toBe(TEST_WITNESS_NAME);
    expect(verifyCosignature(body, sig, await testCosignerKey())).toBe(1_700_000_000);
  });

  it('is not valid for another body, another timestamp, another key, or another length', async () => {
    const key = await testCosignerKey();
    const sig = await cosign(body, 1_700_000_000, testWitnessSigner());
    expect(verifyCosignature(testDeploymentBody(6), sig, key)).toBeNull();
    const restamped = Uint8Array.from(sig.signature);
    restamped[7] = (restamped[7] as number) + 1;
    expect(verifyCosignature(body, { ...sig, signature: restamped }, key)).toBeNull();
    const other = await testCosignerKey(new Uint8Array(32).fill(9));
    expect(verifyCosignature(body, sig, other)).toBeNull();
    expect(verifyCosignature(body, { ...sig, signature: sig.signature.subarray(8) }, key)).toBeNull();
    const huge = Uint8Array.from(sig.signature);
    huge.fill(0xff, 0, 8);
    expect(verifyCosignature(body, { ...sig, signature: huge }, key)).toBeNull();
  });

  it('a plain note signature of the same key is no cosignature (domain separation)', async () => {
    const signer = testWitnessSigner();
    const plain = await signer.sign(new TextEncoder().encode(body));
    const key = await testCosignerKey();
    const stamp = new Uint8Array(8);
    const forged = new Uint8Array(72);
    forged.set(stamp);
    forged.set(plain, 8);
    expect(verifyCosignature(body, { name: key.name, keyHash: key.keyHash, signature: forged }, key)).toBeNull();
  });

  it('refuses a negative or fractional timestamp, and a signer whose signature does not verify', async () => {
    await expect(cosign(body, -1, testWitnessSigner())).rejects.toThrow(InvalidInputError);
    await expect(cosign(body, 1.5, testWitnessSigner())).rejects.toThrow(InvalidInputError);
    const liar = {
      keyName: TEST_WITNESS_NAME,
      publicKey: () => testWitnessSigner().publicKey(),
      sign: async () => new Uint8Array(64),
    };
    await expect(cosign(body, 1, liar)).rejects.toThrow(NoteVerificationError);
  });
});
