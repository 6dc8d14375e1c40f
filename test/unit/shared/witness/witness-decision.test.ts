import { describe, expect, it } from 'vitest';
import { proveConsistency } from '../../../../shared/log/consistency-proof';
import { formatVerifierKey } from '../../../../shared/log/note-key';
import { signCheckpoint } from '../../../../shared/log/sign-checkpoint';
import { formatSignedNote, type NoteSignature, parseSignedNote } from '../../../../shared/log/signed-note';
import {
  type AddCheckpointRequest,
  parseAddCheckpointRequest,
} from '../../../../shared/witness/add-checkpoint-request';
import { admitCheckpoint } from '../../../../shared/witness/admit-checkpoint';
import { decideAddCheckpoint } from '../../../../shared/witness/decide-add-checkpoint';
import { parseTrustedLogs } from '../../../../shared/witness/trusted-logs';
import type { WitnessState } from '../../../../shared/witness/witness-state';
import { testLeaf, testNoteSigner, testNoteVerifierKey, testTree } from '../../../helpers/log-factories';
import { TEST_DEPLOYMENT_ORIGIN, testDeploymentCheckpoint } from '../../../helpers/witness-factories';

const trusted = async () => parseTrustedLogs(formatVerifierKey(await testNoteVerifierKey()));
const stateAt = (size: number): WitnessState => ({
  origin: TEST_DEPLOYMENT_ORIGIN,
  size,
  rootHash: testTree(size).root(size),
});

async function request(oldSize: number, size: number, note?: string): Promise<AddCheckpointRequest> {
  const proof = oldSize === 0 ? [] : await proveConsistency(oldSize, size, testTree(size).nodes);
  return { oldSize, proof, note: note ?? (await testDeploymentCheckpoint(size)) };
}

async function decide(stored: WitnessState | null, req: AddCheckpointRequest) {
  const admitted = admitCheckpoint(req, await trusted());
  return admitted.kind === 'ADMITTED' ? decideAddCheckpoint(stored, admitted) : admitted;
}

describe('admitCheckpoint: a checkpoint of a trusted log, signed by it', () => {
  it('admits a checkpoint signed by the origin key, with its body', async () => {
    const admitted = admitCheckpoint(await request(0, 3), await trusted());
    expect(admitted).toMatchObject({
      kind: 'ADMITTED',
      oldSize: 0,
      checkpoint: { origin: TEST_DEPLOYMENT_ORIGIN, size: 3 },
    });
  });

  it('404 for an origin it does not know, 403 for a signature by another key of the same name', async () => {
    const other = await signCheckpoint(
      { origin: 'reseal/other', size: 1, rootHash: testTree(1).root() },
      testNoteSigner('reseal/other'),
    );
    expect(admitCheckpoint(await request(0, 1, other), await trusted())).toMatchObject({ status: 404 });
    const forger = testNoteSigner(TEST_DEPLOYMENT_ORIGIN, new Uint8Array(32).fill(7));
    const forged = await testDeploymentCheckpoint(3, forger);
    expect(admitCheckpoint(await request(0, 3, forged), await trusted())).toMatchObject({ status: 403 });
  });

  it('403 when a genuine line sits next to a failing line by the same key', async () => {
    const { text, signatures } = parseSignedNote(await testDeploymentCheckpoint(3));
    const genuine = signatures[0] as NoteSignature;
    const flipped = Uint8Array.from(genuine.signature);
    flipped[0] = (flipped[0] as number) ^ 1;
    const note = formatSignedNote(text, [genuine, { ...genuine, signature: flipped }]);
    expect(admitCheckpoint(await request(0, 3, note), await trusted())).toMatchObject({ status: 403 });
  });

  it('400 for a note that is not a checkpoint, and for an old size above the checkpoint size', async () => {
    const notCheckpoint = `hello\n\n${(await testDeploymentCheckpoint(1)).split('\n\n')[1]}`;
    expect(admitCheckpoint(await request(0, 1, notCheckpoint), await trusted())).toMatchObject({ status: 400 });
    const req = { ...(await request(0, 3)), oldSize: 5, proof: [testLeaf(1)] };
    expect(admitCheckpoint(req, await trusted())).toMatchObject({ status: 400 });
  });
});

describe('decideAddCheckpoint: consistent with the last cosigned checkpoint, or refused', () => {
  it('cosigns the first checkpoint of an origin (old size 0) and stores it', async () => {
    expect(await decide(null, await request(0, 4))).toMatchObject({ kind: 'COSIGN', next: { size: 4 } });
  });

  it('cosigns a consistent larger checkpoint; the new state is its size and root', async () => {
    const decision = await decide(stateAt(4), await request(4, 7));
    expect(decision).toEqual(expect.objectContaining({ kind: 'COSIGN', next: stateAt(7) }));
  });

  it('409 with its current size for a stale old size (or old size 0 once it cosigned)', async () => {
    expect(await decide(stateAt(7), await request(4, 7))).toMatchObject({ status: 409, currentSize: 7 });
    expect(await decide(stateAt(7), await request(0, 9))).toMatchObject({ status: 409, currentSize: 7 });
    expect(await decide(null, await request(4, 7))).toMatchObject({ status: 409, currentSize: 0 });
  });

  it('409 for another root at the stored size; the same checkpoint again is cosigned (a heartbeat)', async () => {
    const fork = { origin: TEST_DEPLOYMENT_ORIGIN, size: 7, rootHash: testTree(7, (i) => testLeaf(i + 100)).root(7) };
    const forkNote = await signCheckpoint(fork, testNoteSigner());
    expect(await decide(stateAt(7), { oldSize: 7, proof: [], note: forkNote })).toMatchObject({
      status: 409,
      currentSize: 7,
    });
    expect(await decide(stateAt(7), await request(7, 7))).toMatchObject({ kind: 'COSIGN', next: { size: 7 } });
  });

  it('422 when the proof does not extend the stored root, even if it extends the root the log claims', async () => {
    // The witness stored a fork at 4; the log's honest proof 4 → 7 does not start from it.
    const forkAt4 = {
      origin: TEST_DEPLOYMENT_ORIGIN,
      size: 4,
      rootHash: testTree(4, (i) => testLeaf(i + 100)).root(4),
    };
    expect(await decide(forkAt4, await request(4, 7))).toMatchObject({ status: 422 });
    const truncated = { ...(await request(4, 7)), proof: [] };
    expect(await decide(stateAt(4), truncated)).toMatchObject({ status: 422 });
  });
});

describe('parseAddCheckpointRequest then decide: the wire form end to end', () => {
  it('a body with proof lines decides like its parts', async () => {
    const req = await request(4, 7);
    const body = `old 4\n${req.proof.map((p) => `${Buffer.from(p).toString('base64')}\n`).join('')}\n${req.note}`;
    expect(await decide(stateAt(4), parseAddCheckpointRequest(body))).toMatchObject({ kind: 'COSIGN' });
  });
});
