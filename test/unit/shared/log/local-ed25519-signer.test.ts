import { verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import { LocalEd25519Signer } from '../../../../shared/log/local-ed25519-signer';
import { TEST_LOG_KEY_NAME, TEST_NOTE_SEED, testNoteSigner, toHex } from '../../../helpers/log-factories';

describe('LocalEd25519Signer', () => {
  it('derives the RFC 8032 public key of its seed', async () => {
    // RFC 8032 §7.1 TEST 1: secret key 9d61b19d…7f60 gives public key d75a9801…511a.
    const seed = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
    const signer = new LocalEd25519Signer('rfc8032', seed);
    expect(toHex(await signer.publicKey())).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
    const signature = await signer.sign(new Uint8Array());
    expect(toHex(signature)).toBe(
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
    );
  });

  it('signs deterministically with pure Ed25519 (64 bytes), checked by node:crypto', async () => {
    const signer = testNoteSigner();
    const message = new TextEncoder().encode('reseal\n');
    const one = await signer.sign(message);
    expect(one).toHaveLength(64);
    expect(await signer.sign(message)).toEqual(one);
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(await signer.publicKey()).toString('base64url') };
    expect(verify(null, message, { key: jwk, format: 'jwk' }, one)).toBe(true);
    expect(signer.keyName).toBe(TEST_LOG_KEY_NAME);
  });

  it('hands out a copy of its public key', async () => {
    const signer = testNoteSigner();
    (await signer.publicKey()).fill(0);
    expect((await signer.publicKey()).some((byte) => byte !== 0)).toBe(true);
  });

  it('refuses an invalid key name or a seed that is not 32 bytes', () => {
    expect(() => new LocalEd25519Signer('a b', TEST_NOTE_SEED)).toThrow(InvalidInputError);
    expect(() => new LocalEd25519Signer('a+b', TEST_NOTE_SEED)).toThrow(InvalidInputError);
    expect(() => new LocalEd25519Signer('ok', TEST_NOTE_SEED.subarray(1))).toThrow(InvalidInputError);
    expect(() => new LocalEd25519Signer('ok', 'seed' as unknown as Uint8Array)).toThrow(InvalidInputError);
  });
});
