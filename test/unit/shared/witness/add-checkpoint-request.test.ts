import { describe, expect, it } from 'vitest';
import { WitnessRequestFormatError } from '../../../../shared/errors';
import {
  formatAddCheckpointRequest,
  MAX_PROOF_LINES,
  MAX_REQUEST_BYTES,
  parseAddCheckpointRequest,
} from '../../../../shared/witness/add-checkpoint-request';
import { attachCosignatures } from '../../../../shared/witness/attach-cosignatures';
import { parseConflictSize } from '../../../../shared/witness/conflict-size';
import { cosign } from '../../../../shared/witness/cosign';
import {
  conflictResponse,
  cosignedResponse,
  refusalResponse,
  TLOG_SIZE_CONTENT_TYPE,
} from '../../../../shared/witness/witness-response';
import { testLeaf } from '../../../helpers/log-factories';
import { testDeploymentBody, testDeploymentCheckpoint, testWitnessSigner } from '../../../helpers/witness-factories';

const hashLine = (i: number) => `${Buffer.from(testLeaf(i)).toString('base64')}\n`;

describe('parseAddCheckpointRequest: the C2SP tlog-witness request body, strictly', () => {
  it('reads old size, proof and note, and formatAddCheckpointRequest writes it back', async () => {
    const note = await testDeploymentCheckpoint(7);
    const body = `old 4\n${hashLine(1)}${hashLine(2)}\n${note}`;
    const request = parseAddCheckpointRequest(body);
    expect(request.oldSize).toBe(4);
    expect(request.proof).toEqual([testLeaf(1), testLeaf(2)]);
    expect(request.note).toBe(note);
    expect(formatAddCheckpointRequest(request)).toBe(body);
    expect(parseAddCheckpointRequest(`old 0\n\n${note}`)).toMatchObject({ oldSize: 0, proof: [] });
  });

  it.each([
    ['no blank line', 'old 4\nreseal/x\n', ''],
    ['no old line', `${hashLine(1)}\nnote\n`, 'old'],
    ['"old" without a space', 'old4\n\nnote\n', 'old'],
    ['a leading zero', 'old 04\n\nnote\n', 'old'],
    ['a negative size', 'old -1\n\nnote\n', 'old'],
    ['a size above 2^53 − 1', 'old 9007199254740992\n\nnote\n', 'old'],
    ['a proof line of 31 bytes', `old 4\n${Buffer.alloc(31).toString('base64')}\n\nnote\n`, 'proof.0'],
    [
      'a proof line that is not canonical base64',
      'old 4\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB=\n\nnote\n',
      'proof.0',
    ],
    ['a proof with old size 0', `old 0\n${hashLine(1)}\nnote\n`, 'proof'],
    ['too many proof lines', `old 4\n${hashLine(1).repeat(MAX_PROOF_LINES + 1)}\nnote\n`, 'proof'],
    ['no checkpoint', 'old 4\n\n', 'checkpoint'],
    ['an oversized body', `old 4\n\n${'x'.repeat(MAX_REQUEST_BYTES)}`, ''],
  ])('refuses %s (400) naming %j', (_, body, path) => {
    const error = (() => {
      try {
        parseAddCheckpointRequest(body);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(WitnessRequestFormatError);
    expect((error as WitnessRequestFormatError).issues[0]?.path).toBe(path);
  });
});

describe('add-checkpoint answers', () => {
  it('409 carries the size as text/x.tlog.size and reads back; other bodies do not', () => {
    expect(conflictResponse(12)).toEqual({ status: 409, contentType: TLOG_SIZE_CONTENT_TYPE, body: '12\n' });
    expect(parseConflictSize('12\n')).toBe(12);
    for (const bad of ['12', '012\n', '-1\n', 'x\n', '1\n2\n']) expect(parseConflictSize(bad)).toBeNull();
  });

  it('a refusal is one line, control characters blanked', () => {
    expect(refusalResponse(422, 'bad\nproof').body).toBe('bad proof\n');
  });

  it('200 lines attach to the checkpoint; a body that would move the signed text is refused', async () => {
    const note = await testDeploymentCheckpoint(3);
    const sig = await cosign(testDeploymentBody(3), 100, testWitnessSigner());
    const { body } = cosignedResponse([sig]);
    expect(attachCosignatures(note, body)).toBe(`${note}${body}`);
    expect(() => attachCosignatures(note, `${body}\n${body}`)).toThrow(/signed text/);
    expect(() => attachCosignatures(note, '')).toThrow(/signature lines/);
  });
});
