import { describe, expect, it } from 'vitest';
import { InvalidInputError, NoteFormatError, NoteVerificationError, ResealError } from '../../../../shared/errors';
import { noteVerifierKey } from '../../../../shared/log/note-key';
import {
  formatSignedNote,
  MAX_NOTE_BYTES,
  MAX_NOTE_SIGNATURES,
  type NoteSignature,
  parseSignedNote,
  signNote,
  verifyNote,
} from '../../../../shared/log/signed-note';
import type { NoteSigner } from '../../../../shared/ports/note-signer';
import { TEST_LOG_KEY_NAME, testNoteSigner, testNoteVerifierKey } from '../../../helpers/log-factories';

const TEXT = 'reseal/test-stack/lineage-1\n3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n';
const other = () => testNoteSigner('reseal/other-stack', new Uint8Array(32).fill(7));

function formatError(run: () => unknown): NoteFormatError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(NoteFormatError);
    return error as NoteFormatError;
  }
  throw new Error('expected a NoteFormatError');
}

/** Replaces the character at `at` by a different base64 character. */
function changeChar(text: string, at: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const index = alphabet.indexOf(text.charAt(at));
  return text.slice(0, at) + alphabet[(index + 1) % 64] + text.slice(at + 1);
}

describe('signed notes (C2SP signed-note)', () => {
  it('formats text, a blank line and one em-dash line per signature; parses it back', () => {
    const sigs: NoteSignature[] = [
      { name: 'a.example/x', keyHash: Uint8Array.of(1, 2, 3, 4), signature: new Uint8Array(64).fill(5) },
      { name: 'b', keyHash: Uint8Array.of(9, 9, 9, 9), signature: Uint8Array.of(1) },
    ];
    const note = formatSignedNote(TEXT, sigs);
    expect(note.startsWith(`${TEXT}\n\u2014 a.example/x AQIDBAUFBQ`)).toBe(true);
    expect(note.endsWith('\n\u2014 b CQkJCQE=\n')).toBe(true);
    expect(parseSignedNote(note)).toEqual({ text: TEXT, signatures: sigs });
  });

  it('keeps blank lines inside the text: the last blank line separates the signatures', () => {
    const text = 'line one\n\nline three\n\n';
    const note = formatSignedNote(text, [{ name: 'k', keyHash: new Uint8Array(4), signature: Uint8Array.of(1) }]);
    expect(parseSignedNote(note).text).toBe(text);
    // So a signature-like line before another blank line is text, signed like the rest of it.
    const lineAsText = `${TEXT}\n\u2014 k AAAAAAA=\n\n\u2014 k AAAAAAA=\n`;
    expect(parseSignedNote(lineAsText).text).toBe(`${TEXT}\n\u2014 k AAAAAAA=\n`);
    expect(parseSignedNote(lineAsText).signatures).toHaveLength(1);
  });

  it('a note signed by LocalEd25519Signer verifies with verifyNote and returns the text', async () => {
    const note = await signNote(TEXT, testNoteSigner());
    expect(verifyNote(note, await testNoteVerifierKey())).toBe(TEXT);
    const [line] = parseSignedNote(note).signatures;
    expect(line?.name).toBe(TEST_LOG_KEY_NAME);
    expect(line?.signature).toHaveLength(64);
  });

  it('fails for a changed byte of the text or of the signature', async () => {
    const key = await testNoteVerifierKey();
    const note = await signNote(TEXT, testNoteSigner());
    const changedText = note.replace('\n3\n', '\n4\n');
    expect(() => verifyNote(changedText, key)).toThrow(NoteVerificationError);
    const signatureStart = note.lastIndexOf(' ') + 1 + 8; // past the key-hash part of the base64
    for (const at of [signatureStart, signatureStart + 30, note.length - 4]) {
      expect(() => verifyNote(changeChar(note, at), key), `char ${at}`).toThrow(NoteVerificationError);
    }
  });

  it('fails for the wrong key name or key hash, and for another key of the same name', async () => {
    const key = await testNoteVerifierKey();
    const note = await signNote(TEXT, testNoteSigner());
    const renamed = note.replace(`\u2014 ${TEST_LOG_KEY_NAME} `, '\u2014 reseal/else ');
    expect(() => verifyNote(renamed, key)).toThrow(/no signature line by this key/);
    const rehashed = changeChar(note, note.lastIndexOf(' ') + 1);
    expect(() => verifyNote(rehashed, key)).toThrow(/no signature line by this key/);
    const sameNameOtherKey = noteVerifierKey(TEST_LOG_KEY_NAME, await other().publicKey());
    const error = (() => {
      try {
        verifyNote(note, sameNameOtherKey);
      } catch (e) {
        return e as NoteVerificationError;
      }
    })();
    expect(error).toBeInstanceOf(NoteVerificationError);
    expect(error).toBeInstanceOf(ResealError);
    expect(error?.name).toBe('NoteVerificationError');
    expect(error?.keyName).toBe(TEST_LOG_KEY_NAME);
  });

  it('ignores signatures by other keys, before or after ours (C2SP: unknown keys are ignored)', async () => {
    const key = await testNoteVerifierKey();
    const mine = parseSignedNote(await signNote(TEXT, testNoteSigner())).signatures;
    const theirs = parseSignedNote(await signNote(TEXT, other())).signatures;
    const foreign = { name: 'witness.example/w', keyHash: Uint8Array.of(1, 2, 3, 4), signature: new Uint8Array(72) };
    for (const order of [
      [...theirs, ...mine],
      [...mine, foreign],
      [foreign, ...theirs, ...mine],
    ]) {
      expect(verifyNote(formatSignedNote(TEXT, order), key)).toBe(TEXT);
    }
    expect(() => verifyNote(formatSignedNote(TEXT, [...theirs, foreign]), key)).toThrow(NoteVerificationError);
  });

  it('rejects the whole note when a second line by our key does not verify', async () => {
    const key = await testNoteVerifierKey();
    const [mine] = parseSignedNote(await signNote(TEXT, testNoteSigner())).signatures as [NoteSignature];
    const forged = { ...mine, signature: new Uint8Array(64).fill(1) };
    expect(() => verifyNote(formatSignedNote(TEXT, [mine, forged]), key)).toThrow(/does not verify/);
    expect(() => verifyNote(formatSignedNote(TEXT, [{ ...mine, signature: Uint8Array.of(1) }]), key)).toThrow(
      NoteVerificationError,
    );
  });

  it.each([
    ['no blank line', `${TEXT}\u2014 k AAAAAAA=\n`, ''],
    ['no signature lines', `${TEXT}\n`, 'signatures'],
    ['a missing final newline', `${TEXT}\n\u2014 k AAAAAAA=`, 'signatures'],
    ['a hyphen instead of an em dash', `${TEXT}\n- k AAAAAAA=\n`, 'signatures.0'],
    ['a name with a space', `${TEXT}\n\u2014 a b AAAAAAA=\n`, 'signatures.0'],
    ['a name with a plus', `${TEXT}\n\u2014 a+b AAAAAAA=\n`, 'signatures.0'],
    ['an empty name', `${TEXT}\n\u2014  AAAAAAA=\n`, 'signatures.0'],
    ['two spaces before the signature', `${TEXT}\n\u2014 k  AAAAAAA=\n`, 'signatures.0'],
    ['a signature of 4 bytes', `${TEXT}\n\u2014 k AAAAAA==\n`, 'signatures.0'],
    ['non-canonical base64', `${TEXT}\n\u2014 k AAAAAAB=\n`, 'signatures.0'],
    ['unpadded base64', `${TEXT}\n\u2014 k AAAAAAA\n`, 'signatures.0'],
    ['a tab', `a\tb\n\n\u2014 k AAAAAAA=\n`, ''],
    ['a carriage return', `${TEXT}\n\u2014 k AAAAAAA=\r\n`, ''],
    ['a lone surrogate', `\ud800\n\n\u2014 k AAAAAAA=\n`, ''],
    ['an unexpected trailing line', `${TEXT}\n\u2014 k AAAAAAA=\nUnexpected line.\n`, 'signatures.1'],
  ])('parseSignedNote refuses %s', (_name, note, path) => {
    const error = formatError(() => parseSignedNote(note));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.name).toBe('NoteFormatError');
    expect(error.issues[0]?.path).toBe(path);
    expect(error.message).toMatch(/^invalid signed note/);
  });

  it('bounds the note size and the signature count', () => {
    const line = '\u2014 k AAAAAAA=\n';
    expect(parseSignedNote(`${TEXT}\n${line.repeat(MAX_NOTE_SIGNATURES)}`).signatures).toHaveLength(
      MAX_NOTE_SIGNATURES,
    );
    expect(formatError(() => parseSignedNote(`${TEXT}\n${line.repeat(MAX_NOTE_SIGNATURES + 1)}`)).message).toMatch(
      /more than 100 signature lines/,
    );
    expect(formatError(() => parseSignedNote(`${'a'.repeat(MAX_NOTE_BYTES)}\n\n${line}`)).message).toMatch(
      /16384 bytes/,
    );
    // 6,000 three-byte characters: under the limit in UTF-16 units, over it in UTF-8 bytes.
    expect(formatError(() => parseSignedNote(`${'\u2014'.repeat(6000)}\n\n${line}`)).message).toMatch(/16384 bytes/);
    expect(formatError(() => parseSignedNote(7 as unknown as string)).message).toMatch(/expected a string/);
  });

  it('formatSignedNote refuses what parseSignedNote would refuse', () => {
    const ok: NoteSignature = { name: 'k', keyHash: new Uint8Array(4), signature: Uint8Array.of(1) };
    expect(formatError(() => formatSignedNote('no newline', [ok])).issues[0]?.path).toBe('text');
    expect(formatError(() => formatSignedNote('', [ok])).issues[0]?.path).toBe('text');
    expect(formatError(() => formatSignedNote('a\u0007\n', [ok])).message).toMatch(/U\+0007 at offset 1/);
    expect(formatError(() => formatSignedNote('\ud800\n', [ok])).message).toMatch(/lone surrogate/);
    expect(formatError(() => formatSignedNote(TEXT, [])).issues[0]?.path).toBe('signatures');
    expect(formatError(() => formatSignedNote(TEXT, Array(101).fill(ok))).issues[0]?.path).toBe('signatures');
    expect(formatError(() => formatSignedNote(TEXT, [{ ...ok, name: 'a b' }])).issues[0]?.path).toBe(
      'signatures.0.name',
    );
    expect(formatError(() => formatSignedNote(TEXT, [ok, { ...ok, keyHash: new Uint8Array(3) }])).issues[0]?.path).toBe(
      'signatures.1.keyHash',
    );
    expect(formatError(() => formatSignedNote(TEXT, [{ ...ok, signature: new Uint8Array() }])).issues[0]?.path).toBe(
      'signatures.0.signature',
    );
    const big = { ...ok, signature: new Uint8Array(MAX_NOTE_BYTES) };
    expect(formatError(() => formatSignedNote(TEXT, [big])).message).toMatch(/exceeds 16384 bytes/);
  });
});

describe('signNote', () => {
  const signer = testNoteSigner();
  const wrap = (overrides: Partial<NoteSigner>): NoteSigner => ({
    keyName: signer.keyName,
    publicKey: () => signer.publicKey(),
    sign: (message) => signer.sign(message),
    ...overrides,
  });

  it('refuses an invalid text or key name before asking the signer', async () => {
    let asked = false;
    const watching = wrap({
      sign: async () => {
        asked = true;
        return new Uint8Array(64);
      },
    });
    await expect(signNote('no newline', watching)).rejects.toThrow(NoteFormatError);
    await expect(signNote(TEXT, { ...watching, keyName: 'a b' })).rejects.toThrow(NoteFormatError);
    expect(asked).toBe(false);
  });

  it('refuses a public key or signature of the wrong length', async () => {
    await expect(signNote(TEXT, wrap({ publicKey: async () => new Uint8Array(33) }))).rejects.toThrow(/publicKey/);
    await expect(signNote(TEXT, wrap({ sign: async () => new Uint8Array(65) }))).rejects.toThrow(/signature/);
  });

  it('refuses a signature that does not verify under the signer key (e.g. a misconfigured KMS algorithm)', async () => {
    const wrongKey = wrap({ publicKey: () => other().publicKey() });
    await expect(signNote(TEXT, wrongKey)).rejects.toThrow(NoteVerificationError);
    await expect(signNote(TEXT, wrap({ sign: async () => new Uint8Array(64) }))).rejects.toThrow(/does not verify/);
  });

  it('passes on the signer rejection', async () => {
    const down = new Error('KMS unavailable');
    await expect(signNote(TEXT, wrap({ sign: async () => Promise.reject(down) }))).rejects.toBe(down);
  });
});
