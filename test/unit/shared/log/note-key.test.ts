import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import {
  assertVerifierKey,
  ed25519KeyHash,
  formatVerifierKey,
  isValidKeyName,
  noteVerifierKey,
  parseVerifierKey,
} from '../../../../shared/log/note-key';
import { publicKeyFromSpki } from '../../../../shared/log/public-key-from-spki';
import { verifyEd25519 } from '../../../../shared/log/verify-ed25519';
import { TEST_LOG_KEY_NAME, testNoteSigner, testNoteVerifierKey, toHex } from '../../../helpers/log-factories';

const PETER = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';

describe('note keys (C2SP signed-note, Ed25519)', () => {
  it('key hash = first 4 bytes of SHA-256(name || 0x0A || 0x01 || key)', async () => {
    const key = await testNoteSigner().publicKey();
    const expected = createHash('sha256')
      .update(`${TEST_LOG_KEY_NAME}\n\u0001`, 'latin1')
      .update(key)
      .digest()
      .subarray(0, 4);
    expect(toHex(ed25519KeyHash(TEST_LOG_KEY_NAME, key))).toBe(expected.toString('hex'));
  });

  it('formats and parses the vkey string, round trip', async () => {
    const key = await testNoteVerifierKey();
    const text = formatVerifierKey(key);
    expect(text).toMatch(/^reseal\/test-stack\+[0-9a-f]{8}\+AQ[A-Za-z0-9+/]{42}$/);
    expect(parseVerifierKey(text)).toEqual(key);
    expect(formatVerifierKey(parseVerifierKey(PETER))).toBe(PETER);
  });

  it('refuses every proper substring and every one-character change of a vkey (like Go TestNewVerifier)', () => {
    const refuses = (text: string) => {
      expect(() => parseVerifierKey(text), text).toThrow(InvalidInputError);
    };
    for (let i = 0; i <= PETER.length; i += 1) {
      for (let j = i + 1; j <= PETER.length; j += 1) if (i !== 0 || j !== PETER.length) refuses(PETER.slice(i, j));
    }
    for (let i = 0; i < PETER.length; i += 1) {
      refuses(PETER.slice(0, i) + String.fromCharCode(PETER.charCodeAt(i) + 1) + PETER.slice(i + 1));
    }
  });

  it('names the part of a vkey that is wrong', () => {
    const path = (text: unknown) => {
      try {
        parseVerifierKey(text as string);
      } catch (error) {
        return (error as InvalidInputError).issues[0]?.path;
      }
      return 'accepted';
    };
    expect(path('PeterNeumann+C74F20A3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW')).toBe('keyHash');
    expect(path('PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW')).toBe('keyHash');
    expect(path('Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW')).toBe('name');
    expect(path('+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW')).toBe('name');
    expect(path('PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10T')).toBe('key');
    expect(path('PeterNeumann+c74f20a3+AhpcAQ==')).toBe('key');
    expect(path('PeterNeumann+c74f20a3+ARpcAQ==')).toBe('key');
    expect(path('PeterNeumann')).toBe('');
    expect(path(`x+00000000+${'A'.repeat(2000)}`)).toBe('');
    expect(path(7)).toBe('');
  });

  it('key names: non-empty, no white space (Unicode, including NEL), no "+", no control characters', () => {
    for (const name of ['reseal/test-stack', 'PeterNeumann', 'example.com/foo', 'журнал']) {
      expect(isValidKeyName(name), name).toBe(true);
    }
    for (const name of [
      '',
      'a b',
      'a\tb',
      'a+b',
      'a\u00a0b',
      'a\u2028b',
      'a\u0085b',
      'a\u3000b',
      'a\u0000b',
      'a\ud800',
      7,
    ]) {
      expect(isValidKeyName(name), JSON.stringify(name)).toBe(false);
    }
    expect(() => noteVerifierKey('a b', new Uint8Array(32))).toThrow(InvalidInputError);
    expect(() => noteVerifierKey('a', new Uint8Array(31))).toThrow(InvalidInputError);
  });

  it('refuses a hand-built key whose hash does not match its name and key', async () => {
    const key = await testNoteVerifierKey();
    expect(() => assertVerifierKey({ ...key, keyHash: Uint8Array.of(0, 0, 0, 0) })).toThrow(/keyHash/);
    expect(() => formatVerifierKey({ ...key, name: 'reseal/other' })).toThrow(InvalidInputError);
    expect(() => assertVerifierKey(null as never)).toThrow(InvalidInputError);
  });

  it('reads the raw key out of an SPKI DER (what KMS GetPublicKey returns), and refuses other keys', async () => {
    const signer = testNoteSigner();
    const raw = await signer.publicKey();
    // SubjectPublicKeyInfo for Ed25519 (RFC 8410 §4): fixed 12-byte prefix, then the raw key.
    const der = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]);
    expect(publicKeyFromSpki(der)).toEqual(raw);
    const { publicKey } = generateKeyPairSync('ed25519');
    expect(publicKeyFromSpki(publicKey.export({ format: 'der', type: 'spki' }))).toHaveLength(32);
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'der', type: 'spki' });
    expect(() => publicKeyFromSpki(ec)).toThrow(/expected an Ed25519 key/);
    expect(() => publicKeyFromSpki(Uint8Array.of(1, 2, 3))).toThrow(/expected a DER SubjectPublicKeyInfo/);
  });

  it('verifyEd25519 never throws', async () => {
    const signer = testNoteSigner();
    const message = new TextEncoder().encode('hi\n');
    const signature = await signer.sign(message);
    const key = await signer.publicKey();
    expect(verifyEd25519(key, message, signature)).toBe(true);
    expect(verifyEd25519(key, message, signature.subarray(1))).toBe(false);
    expect(verifyEd25519(key.subarray(1), message, signature)).toBe(false);
    expect(verifyEd25519(new Uint8Array(32).fill(0xff), message, signature)).toBe(false);
    expect(verifyEd25519('x' as unknown as Uint8Array, message, signature)).toBe(false);
  });
});
