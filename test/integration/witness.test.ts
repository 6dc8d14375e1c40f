import { describe, expect, it } from 'vitest';
import { DynamoDBWitnessStore } from '../../adapters/dynamodb-witness-store';
import { fetchPublicKey } from '../../adapters/fetch-public-key';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { KMSNoteVerifierKey } from '../../adapters/kms-note-verifier-key';
import { deployWitnessStack, emulatorFunctionUrl } from '../../scripts/emulator/deploy';
import { proveConsistency } from '../../shared/log/consistency-proof';
import { MemoryMerkleTree } from '../../shared/log/memory-tree';
import { formatVerifierKey } from '../../shared/log/note-key';
import { signCheckpoint } from '../../shared/log/sign-checkpoint';
import { parseSignedNote } from '../../shared/log/signed-note';
import { formatAddCheckpointRequest } from '../../shared/witness/add-checkpoint-request';
import { attachCosignatures } from '../../shared/witness/attach-cosignatures';
import { verifyCosignature } from '../../shared/witness/cosignature';
import { cosignerKey, formatCosignerKey, parseCosignerKey } from '../../shared/witness/cosigner-key';
import { checkPolicy, PolicyRefusal } from '../../shared/witness/policy-check';
import { parsePolicy } from '../../shared/witness/tlog-policy';
import { TLOG_SIZE_CONTENT_TYPE } from '../../shared/witness/witness-response';
import { deployedStack } from '../helpers/deployed-stack';
import { expectGuarantee, type Guarantee } from '../helpers/guarantees';
import { testLeaf, testNoteSigner } from '../helpers/log-factories';

// The witness stack on the emulator (docs/witness.md), deployed in the second phase with the log
// key of the ResealStack the global setup deployed, and driven over HTTP as a log would.
const { stack, endpoint, kms, dynamodb } = deployedStack();
const MAX_AGE_SECONDS = 600;

const logKey = await new KMSNoteVerifierKey(kms, stack.LogKeyArn, stack.LogName).get();
const witness = await deployWitnessStack(endpoint, formatVerifierKey(logKey));
const addCheckpointUrl = emulatorFunctionUrl(endpoint, witness.WitnessUrl, '/add-checkpoint');
const logSigner = new KMSNoteSigner(kms, stack.LogKeyArn, stack.LogName);
const origin = stack.LogName; // the deployment log's origin is its key name
const state = new DynamoDBWitnessStore(dynamodb, witness.WitnessTableName);
const witnessKey = parseCosignerKey(witness.WitnessVkey);
const policy = parsePolicy(
  `log ${formatVerifierKey(logKey)}\nwitness w1 ${witness.WitnessVkey} ${witness.WitnessUrl}\nquorum w1\n`,
);

/** The deployment log the test plays: leaves testLeaf(i), or a fork of them from `forkAt`. */
function treeOf(size: number, forkAt = size): MemoryMerkleTree {
  const tree = new MemoryMerkleTree();
  for (let i = 0; i < size; i += 1) tree.append(i < forkAt ? testLeaf(i) : testLeaf(i + 1000));
  return tree;
}

async function checkpointNote(size: number, tree = treeOf(size), signer = logSigner): Promise<string> {
  return signCheckpoint({ origin, size, rootHash: tree.root(size) }, signer);
}

async function addCheckpoint(oldSize: number, note: string, proof: Uint8Array[] = []) {
  const response = await fetch(addCheckpointUrl, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: formatAddCheckpointRequest({ oldSize, proof, note }),
  });
  return { status: response.status, contentType: response.headers.get('content-type'), body: await response.text() };
}

const proof = (size1: number, size2: number) => proveConsistency(size1, size2, treeOf(size2).nodes);
const row = (attack: string, expected: string): Guarantee => ({
  section: 'tampering',
  target: 'deployment checkpoint',
  attack,
  reader: 'witness add-checkpoint',
  expected,
});
const storedSize = async () => (await state.read(origin))?.size ?? 0;

describe('the witness stack, over HTTP', () => {
  it('outputs the vkey of its KMS key, under its name', async () => {
    const publicKey = await fetchPublicKey(kms, witness.WitnessKeyArn);
    expect(witness.WitnessVkey).toBe(formatCosignerKey(cosignerKey(witness.WitnessName, publicKey)));
  });

  it('cosigns the first checkpoint; the cosignature verifies and meets the policy until it is older than the maximum age', async () => {
    const note = await checkpointNote(3);
    const answer = await addCheckpoint(0, note);
    expect(answer.status).toBe(200);
    const cosigned = attachCosignatures(note, answer.body);
    const { text, signatures } = parseSignedNote(cosigned);
    const timestamp = verifyCosignature(text, signatures.at(-1) as never, witnessKey);
    expect(timestamp).toEqual(expect.any(Number));
    const at = (nowSeconds: number) =>
      checkPolicy({ note: cosigned, policy, maxAgeSeconds: MAX_AGE_SECONDS, nowSeconds });
    expect(at(timestamp as number)).toMatchObject({ kind: 'ACCEPTED', quorumTime: timestamp });
    expect(at((timestamp as number) + MAX_AGE_SECONDS)).toMatchObject({ kind: 'ACCEPTED' });
    expect(at((timestamp as number) + MAX_AGE_SECONDS + 1)).toMatchObject({ refusal: PolicyRefusal.QUORUM_STALE });
    expect(await storedSize()).toBe(3);
  });

  it('cosigns a consistent larger checkpoint', async () => {
    const note = await checkpointNote(6);
    const answer = await addCheckpoint(3, note, await proof(3, 6));
    expect(answer.status).toBe(200);
    const check = checkPolicy({
      note: attachCosignatures(note, answer.body),
      policy,
      maxAgeSeconds: MAX_AGE_SECONDS,
      nowSeconds: Math.floor(Date.now() / 1000),
    });
    expect(check.kind).toBe('ACCEPTED');
    expect(await storedSize()).toBe(6);
  });

  it('a stale old size (a log rolled back behind the witness) gets 409 with the current size', async (context) => {
    const answer = await addCheckpoint(3, await checkpointNote(8), await proof(3, 8));
    expect(answer.contentType).toContain(TLOG_SIZE_CONTENT_TYPE);
    expectGuarantee(
      context,
      row('stale old size (rolled-back log)', '409 6'),
      `${answer.status} ${answer.body.trim()}`,
    );
  });

  it('another root at the cosigned size, or a proof from another history, is refused and the state stays', async (context) => {
    const before = await state.read(origin);
    const fork = await checkpointNote(6, treeOf(6, 4));
    const same = await addCheckpoint(6, fork);
    const forkBigger = treeOf(9, 4);
    const bad = await addCheckpoint(
      6,
      await checkpointNote(9, forkBigger),
      await proveConsistency(6, 9, forkBigger.nodes),
    );
    const after = await state.read(origin);
    const unchanged = JSON.stringify(after) === JSON.stringify(before) ? 'state unchanged' : 'state changed';
    expectGuarantee(
      context,
      row('fork: another root at the same size', '409 6, state unchanged'),
      `${same.status} ${same.body.trim()}, ${unchanged}`,
    );
    expectGuarantee(
      context,
      row('fork: a larger tree inconsistent with the cosigned one', '422, state unchanged'),
      `${bad.status}, ${unchanged}`,
    );
  });

  it('a checkpoint not signed by the log key gets 403; an unknown origin 404; a malformed body 400', async (context) => {
    const forger = testNoteSigner(stack.LogName, new Uint8Array(32).fill(0x5a));
    const forged = await signCheckpoint({ origin, size: 7, rootHash: treeOf(7).root() }, forger);
    const forbidden = await addCheckpoint(6, forged, await proof(6, 7));
    expectGuarantee(
      context,
      row('checkpoint signed by another key under the log name', '403'),
      String(forbidden.status),
    );
    const other = await signCheckpoint({ origin: `${origin}/other`, size: 1, rootHash: treeOf(1).root() }, logSigner);
    expect((await addCheckpoint(0, other)).status).toBe(404);
    const malformed = await fetch(addCheckpointUrl, { method: 'POST', body: 'old 01\n\nx\n' });
    expect(malformed.status).toBe(400);
    expect(await storedSize()).toBe(6);
  });

  it('two concurrent requests from the same old size: exactly one is cosigned', async (context) => {
    const [a, b] = await Promise.all([
      (async () => addCheckpoint(6, await checkpointNote(8), await proof(6, 8)))(),
      (async () => addCheckpoint(6, await checkpointNote(9), await proof(6, 9)))(),
    ]);
    const statuses = [a.status, b.status].sort();
    const winner = a.status === 200 ? 8 : 9;
    expectGuarantee(
      context,
      row('two concurrent requests from one old size', 'one cosigned, one 409'),
      statuses.join(',') === '200,409' ? 'one cosigned, one 409' : statuses.join(','),
    );
    expect(await storedSize()).toBe(winner);
  });
});
