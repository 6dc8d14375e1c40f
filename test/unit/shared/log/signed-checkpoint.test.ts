import { describe, expect, it } from 'vitest';
import {
  CheckpointFormatError,
  CheckpointOriginMismatchError,
  InvalidInputError,
  NoteVerificationError,
} from '../../../../shared/errors';
import { checkpointBody } from '../../../../shared/log/checkpoint';
import { lineageOrigin } from '../../../../shared/log/checkpoint-origin';
import { logKeyName } from '../../../../shared/log/log-names';
import { signCheckpoint } from '../../../../shared/log/sign-checkpoint';
import { signNote } from '../../../../shared/log/signed-note';
import { verifyCheckpoint } from '../../../../shared/log/verified-checkpoint';
import {
  TEST_LOG_KEY_NAME,
  TEST_LOG_LINEAGE_ID,
  TEST_LOG_ORIGIN,
  TEST_STACK_NAME,
  testNoteSigner,
  testNoteVerifierKey,
  testTree,
} from '../../../helpers/log-factories';

const checkpoint = { origin: TEST_LOG_ORIGIN, size: 4, rootHash: testTree(4).root() };

describe('signed checkpoints', () => {
  it('sign the checkpoint body and verify back to the checkpoint', async () => {
    const note = await signCheckpoint(checkpoint, testNoteSigner());
    expect(note.startsWith(`${checkpointBody(checkpoint)}\n\u2014 ${TEST_LOG_KEY_NAME} `)).toBe(true);
    expect(verifyCheckpoint(note, await testNoteVerifierKey(), TEST_LOG_ORIGIN)).toEqual(checkpoint);
  });

  it('refuse a valid checkpoint of another lineage', async () => {
    const origin = lineageOrigin(TEST_STACK_NAME, 'lineage-2');
    const note = await signCheckpoint({ ...checkpoint, origin }, testNoteSigner());
    const error = (() => {
      try {
        verifyCheckpoint(note, { name: 'x', keyHash: new Uint8Array(4), publicKey: new Uint8Array(32) }, origin);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    const key = await testNoteVerifierKey();
    expect(() => verifyCheckpoint(note, key, TEST_LOG_ORIGIN)).toThrow(CheckpointOriginMismatchError);
    expect(() => verifyCheckpoint(note, key, TEST_LOG_ORIGIN)).toThrow(
      'checkpoint origin is "reseal/test-stack/lineage-2", expected "reseal/test-stack/lineage-1"',
    );
  });

  it('refuse a signed text that is not a checkpoint body, and a note by another key', async () => {
    const key = await testNoteVerifierKey();
    const notCheckpoint = await signNote('hello\n', testNoteSigner());
    expect(() => verifyCheckpoint(notCheckpoint, key, TEST_LOG_ORIGIN)).toThrow(CheckpointFormatError);
    const other = await signCheckpoint(checkpoint, testNoteSigner(TEST_LOG_KEY_NAME, new Uint8Array(32).fill(3)));
    expect(() => verifyCheckpoint(other, key, TEST_LOG_ORIGIN)).toThrow(NoteVerificationError);
    await expect(signCheckpoint({ ...checkpoint, size: -1 }, testNoteSigner())).rejects.toThrow(CheckpointFormatError);
  });
});

describe('log names', () => {
  it('key name reseal/<stackName>, origin reseal/<stackName>/<lineageId>', () => {
    expect(logKeyName(TEST_STACK_NAME)).toBe(TEST_LOG_KEY_NAME);
    expect(lineageOrigin(TEST_STACK_NAME, TEST_LOG_LINEAGE_ID)).toBe(TEST_LOG_ORIGIN);
    expect(lineageOrigin('ResealStack', 'team:a/b+c=d')).toBe('reseal/ResealStack/team:a/b+c=d');
  });

  it.each(['', '1stack', 'my stack', 'a/b', 'x'.repeat(129)])('refuses the stack name %j', (stackName) => {
    expect(() => logKeyName(stackName)).toThrow(InvalidInputError);
    expect(() => lineageOrigin(stackName, TEST_LOG_LINEAGE_ID)).toThrow(InvalidInputError);
  });

  it('refuses a lineage id that is not an Identifier', () => {
    expect(() => lineageOrigin(TEST_STACK_NAME, 'two\nlines')).toThrow(InvalidInputError);
    expect(() => lineageOrigin(TEST_STACK_NAME, '')).toThrow(InvalidInputError);
  });
});
