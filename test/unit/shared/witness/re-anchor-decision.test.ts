import { describe, expect, it } from 'vitest';
import { WitnessRequestFormatError } from '../../../../shared/errors';
import { formatReAnchorStatement, type ReAnchorStatement } from '../../../../shared/integrator/re-anchor-statement';
import { addNoteSignature } from '../../../../shared/log/add-note-signature';
import { proveConsistency } from '../../../../shared/log/consistency-proof';
import { formatVerifierKey } from '../../../../shared/log/note-key';
import { signCheckpoint } from '../../../../shared/log/sign-checkpoint';
import { signNote } from '../../../../shared/log/signed-note';
import { decideReAnchor } from '../../../../shared/witness/decide-re-anchor';
import { formatReAnchorRequest, parseReAnchorRequest } from '../../../../shared/witness/re-anchor-request';
import { parseTrustedLogs } from '../../../../shared/witness/trusted-logs';
import type { WitnessState } from '../../../../shared/witness/witness-state';
import {
  TEST_LOG_KEY_NAME,
  testLeaf,
  testNoteSigner,
  testNoteVerifierKey,
  testTree,
} from '../../../helpers/log-factories';
import { testRecoveryKey, testRecoverySigner } from '../../../helpers/re-anchor-factories';

// The witness's re-anchor decision (docs/witness.md, "re-anchor"): it leaves the history it
// cosigned only for a statement signed by the log and a recovery key that names its own state.
const old = testTree(9);
const restoredSize = 5;
// The re-anchored tree: the restored 5 leaves of the old history, then another leaf (the re-anchor leaf).
const fresh = testTree(restoredSize + 1, (i) => (i < restoredSize ? testLeaf(i) : Buffer.alloc(32, 0xaa)));
const witnessState: WitnessState = { origin: TEST_LOG_KEY_NAME, size: 9, rootHash: old.root(9) };
const statement: ReAnchorStatement = {
  origin: TEST_LOG_KEY_NAME,
  restored: { size: restoredSize, rootHash: old.root(restoredSize) },
  lost: { size: 9, rootHash: old.root(9) },
  timeSeconds: 1_767_225_600,
  reason: 'restored from backup',
};

async function request(
  overrides: { statement?: ReAnchorStatement; recovery?: boolean; size?: number; proof?: Uint8Array[] } = {},
) {
  const text = formatReAnchorStatement(overrides.statement ?? statement);
  const operator =
    overrides.recovery === false ? await signNote(text, testNoteSigner()) : await signNote(text, testRecoverySigner());
  const note = overrides.recovery === false ? operator : await addNoteSignature(operator, testNoteSigner());
  const size = overrides.size ?? restoredSize + 1;
  const tree = size === restoredSize + 1 ? fresh : testTree(size);
  const checkpoint = await signCheckpoint(
    { origin: TEST_LOG_KEY_NAME, size, rootHash: tree.root(size) },
    testNoteSigner(),
  );
  const proof = overrides.proof ?? (await proveConsistency(restoredSize, size, tree.nodes));
  return parseReAnchorRequest(formatReAnchorRequest({ statement: note, checkpoint, proof }));
}

const trusted = parseTrustedLogs(formatVerifierKey(await testNoteVerifierKey()));
const recoveryKeys = [await testRecoveryKey()];

describe('decideReAnchor (docs/witness.md, "re-anchor")', () => {
  it('cosigns the re-anchored checkpoint and stores it when the statement names the witness state', async () => {
    const decision = decideReAnchor(witnessState, await request(), trusted, recoveryKeys);
    expect(decision).toMatchObject({ kind: 'COSIGN', next: { size: restoredSize + 1 } });
  });

  it('refuses without recovery keys (403), or without a recovery signature (403)', async () => {
    expect(decideReAnchor(witnessState, await request(), trusted, [])).toMatchObject({ status: 403 });
    expect(decideReAnchor(witnessState, await request({ recovery: false }), trusted, recoveryKeys)).toMatchObject({
      status: 403,
      reason: /recovery key/,
    });
  });

  it('refuses a statement whose lost checkpoint is not its state (409 with its size): another state, or a replay', async () => {
    const moved: WitnessState = { ...witnessState, size: restoredSize + 1, rootHash: fresh.root() };
    expect(decideReAnchor(moved, await request(), trusted, recoveryKeys)).toMatchObject({
      status: 409,
      currentSize: restoredSize + 1,
    });
    expect(decideReAnchor(null, await request(), trusted, recoveryKeys)).toMatchObject({ status: 409, currentSize: 0 });
  });

  it('refuses a checkpoint of another size (400) or a proof that does not start at the restored head (422)', async () => {
    expect(decideReAnchor(witnessState, await request({ size: 7 }), trusted, recoveryKeys)).toMatchObject({
      status: 400,
    });
    const wrong = await request({ proof: [Buffer.alloc(32, 1)] });
    expect(decideReAnchor(witnessState, wrong, trusted, recoveryKeys)).toMatchObject({ status: 422 });
  });

  it('reads a request strictly: unknown fields and non-canonical proof lines are 400', () => {
    expect(() => parseReAnchorRequest('{"statement":"a","checkpoint":"b","proof":[],"x":1}')).toThrow(
      WitnessRequestFormatError,
    );
    expect(() => parseReAnchorRequest('{"statement":"a","checkpoint":"b","proof":["AA=="]}')).toThrow(
      WitnessRequestFormatError,
    );
  });
});
