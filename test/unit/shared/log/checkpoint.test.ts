import { describe, expect, it } from 'vitest';
import { CheckpointFormatError, InvalidInputError, ResealError } from '../../../../shared/errors';
import { type Checkpoint, checkpointBody, parseCheckpointBody } from '../../../../shared/log/checkpoint';
import { TEST_LOG_ORIGIN, testTree } from '../../../helpers/log-factories';

const checkpoint: Checkpoint = { origin: TEST_LOG_ORIGIN, size: 7, rootHash: testTree(7).root() };
const root64 = Buffer.from(checkpoint.rootHash).toString('base64');
const body = `${TEST_LOG_ORIGIN}\n7\n${root64}\n`;

function refusal(text: string): CheckpointFormatError {
  try {
    parseCheckpointBody(text);
  } catch (error) {
    return error as CheckpointFormatError;
  }
  throw new Error('expected a refusal');
}

describe('checkpoint bodies (C2SP tlog-checkpoint)', () => {
  it('writes origin, decimal size and base64 root on three lines, and reads them back', () => {
    expect(checkpointBody(checkpoint)).toBe(body);
    expect(parseCheckpointBody(body)).toEqual(checkpoint);
    const empty = { origin: 'o', size: 0, rootHash: new Uint8Array(32) };
    expect(parseCheckpointBody(checkpointBody(empty))).toEqual(empty);
    const largest = { ...checkpoint, size: Number.MAX_SAFE_INTEGER };
    expect(parseCheckpointBody(checkpointBody(largest)).size).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('accepts origins with spaces, plus signs and non-ASCII text, as C2SP allows', () => {
    for (const origin of ['example.com/log 42', 'reseal/stack/a+b=c', 'журнал']) {
      expect(parseCheckpointBody(checkpointBody({ ...checkpoint, origin })).origin).toBe(origin);
    }
  });

  it.each([
    ['no trailing newline', body.slice(0, -1), ''],
    ['too few lines', `${TEST_LOG_ORIGIN}\n7\n`, ''],
    ['an extension line', `${body}extension\n`, ''],
    ['an empty origin', `\n7\n${root64}\n`, 'origin'],
    ['a control character in the origin', `a\rb\n7\n${root64}\n`, 'origin'],
    ['a lone surrogate in the origin', `a\ud800\n7\n${root64}\n`, 'origin'],
    ['a leading zero', `${TEST_LOG_ORIGIN}\n07\n${root64}\n`, 'size'],
    ['a sign', `${TEST_LOG_ORIGIN}\n+7\n${root64}\n`, 'size'],
    ['a size above 2^53 − 1', `${TEST_LOG_ORIGIN}\n9007199254740992\n${root64}\n`, 'size'],
    ['a 20-digit size', `${TEST_LOG_ORIGIN}\n18446744073709551615\n${root64}\n`, 'size'],
    ['an empty size', `${TEST_LOG_ORIGIN}\n\n${root64}\n`, 'size'],
    ['a 31-byte root', `${TEST_LOG_ORIGIN}\n7\n${Buffer.alloc(31).toString('base64')}\n`, 'rootHash'],
    ['unpadded base64', `${TEST_LOG_ORIGIN}\n7\n${root64.replace('=', '')}\n`, 'rootHash'],
    ['base64url', `${TEST_LOG_ORIGIN}\n7\n${Buffer.alloc(32, 0xfb).toString('base64url')}=\n`, 'rootHash'],
    ['a CRLF line end', `${TEST_LOG_ORIGIN}\r\n7\n${root64}\n`, 'origin'],
  ])('refuses %s', (_name, text, path) => {
    const error = refusal(text);
    expect(error).toBeInstanceOf(CheckpointFormatError);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toBeInstanceOf(ResealError);
    expect(error.name).toBe('CheckpointFormatError');
    expect(error.issues[0]?.path).toBe(path);
    expect(error.message).toMatch(/^invalid checkpoint/);
  });

  it('refuses a root whose last character carries non-zero padding bits (one spelling per root)', () => {
    const last = root64.at(-2) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const twin = `${root64.slice(0, -2)}${alphabet[alphabet.indexOf(last) ^ 1]}=`;
    expect(Buffer.from(twin, 'base64')).toEqual(Buffer.from(root64, 'base64'));
    expect(refusal(`${TEST_LOG_ORIGIN}\n7\n${twin}\n`).issues[0]?.path).toBe('rootHash');
    expect(refusal(42 as unknown as string).issues[0]?.message).toBe('expected a string');
  });

  it.each([
    ['origin', { ...checkpoint, origin: 'two\nlines' }],
    ['origin', { ...checkpoint, origin: '' }],
    ['size', { ...checkpoint, size: -1 }],
    ['size', { ...checkpoint, size: 1.5 }],
    ['size', { ...checkpoint, size: 2 ** 53 }],
    ['rootHash', { ...checkpoint, rootHash: new Uint8Array(33) }],
  ])('checkpointBody refuses a bad %s', (path, bad) => {
    expect(() => checkpointBody(bad)).toThrow(CheckpointFormatError);
    try {
      checkpointBody(bad);
    } catch (error) {
      expect((error as CheckpointFormatError).issues[0]?.path).toBe(path);
    }
  });
});
