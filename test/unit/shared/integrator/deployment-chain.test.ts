import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import { applyIndexUpdates } from '../../../../shared/index/apply-index-updates';
import { parseIndexEntry } from '../../../../shared/index/index-entry';
import { emptyIndexHash } from '../../../../shared/index/index-hash';
import { MemoryIndexNodeStore } from '../../../../shared/index/memory-index-node-store';
import { proveIndexKey } from '../../../../shared/index/prove-index-key';
import {
  type DeploymentChainInput,
  DeploymentChainRefusal,
  verifyDeploymentChain,
} from '../../../../shared/integrator/deployment-chain';
import { deploymentLeafHash } from '../../../../shared/integrator/deployment-leaf';
import { checkpointBody } from '../../../../shared/log/checkpoint';
import { formatVerifierKey } from '../../../../shared/log/note-key';
import { signCheckpoint } from '../../../../shared/log/sign-checkpoint';
import { cosign } from '../../../../shared/witness/cosign';
import { parsePolicy } from '../../../../shared/witness/tlog-policy';
import { cosignedResponse } from '../../../../shared/witness/witness-response';
import { lineageEntry, lineageValue, residualEntry, residualValue, updatesFor } from '../../../helpers/index-factories';
import { testNoteSigner, testNoteVerifierKey } from '../../../helpers/log-factories';
import { TEST_DEPLOYMENT_ORIGIN, testPolicyText, testWitnessSigner } from '../../../helpers/witness-factories';
import vectors from '../../../vectors/deployment-log.json';

const NOW = 1_800_000_000;
const MAX_AGE = 180;
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const { chain } = vectors;
const entry = parseIndexEntry(chain.entry);

/** The vector's signed checkpoint with one cosignature by the test witness at `time`. */
async function cosignedNote(time = NOW - 10, note = chain.signedCheckpoint): Promise<string> {
  const body = note.slice(0, note.indexOf('\n\n') + 1);
  return `${note}${cosignedResponse([await cosign(body, time, testWitnessSigner())]).body}`;
}

const unwitnessed = async () => parsePolicy(`log ${formatVerifierKey(await testNoteVerifierKey())}\nquorum none\n`);

/** The vector's whole chain for lineage-3, cosigned at `NOW − 10` and checked with the test policy. */
async function vectorInput(): Promise<DeploymentChainInput> {
  return {
    note: await cosignedNote(),
    policy: parsePolicy(await testPolicyText()),
    maxAgeSeconds: MAX_AGE,
    nowSeconds: NOW,
    indexRoot: bytes(chain.indexRootHex),
    inclusion: chain.inclusionProofHex.map(bytes),
    lineageId: 'lineage-3',
    lineage: { kind: 'presence', entry, proof: bytes(chain.indexProofHex) },
  };
}

/** A one-leaf deployment log over an index of lineage `L` with residual `r-0`, signed by the test log key. */
async function ownLog() {
  const store = new MemoryIndexNodeStore();
  const { root } = await applyIndexUpdates(
    store,
    emptyIndexHash(),
    updatesFor([lineageEntry('L', lineageValue(3)), residualEntry('L', 'r-0', residualValue(0))]),
  );
  const note = await signCheckpoint(
    { origin: TEST_DEPLOYMENT_ORIGIN, size: 1, rootHash: deploymentLeafHash(root) },
    testNoteSigner(),
  );
  return { store, root, note };
}

describe('verifyDeploymentChain (docs/deployment-log.md, "Clients")', () => {
  it("proves test/vectors/deployment-log.json's chain: the lineage entry under a fresh cosigned checkpoint", async () => {
    const found = verifyDeploymentChain(await vectorInput());
    expect(found).toMatchObject({
      kind: 'PROVEN',
      witnessed: true,
      quorumTime: NOW - 10,
      freshUntil: NOW - 10 + MAX_AGE,
      lineage: chain.entry.value,
      residual: null,
    });
    expect(found.kind === 'PROVEN' && found.checkpoint.size).toBe(chain.treeSize);
  });

  it('with the log alone (quorum none) the chain is proven but says it is unwitnessed', async () => {
    const found = verifyDeploymentChain({
      ...(await vectorInput()),
      note: chain.signedCheckpoint,
      policy: await unwitnessed(),
    });
    expect(found).toMatchObject({ kind: 'PROVEN', witnessed: false, quorumTime: null, freshUntil: null });
  });

  it('POLICY_NOT_MET: no cosignature, a note by another key, a malformed note', async () => {
    const base = await vectorInput();
    expect(verifyDeploymentChain({ ...base, note: chain.signedCheckpoint })).toMatchObject({
      kind: 'REFUSED',
      refusal: DeploymentChainRefusal.POLICY_NOT_MET,
    });
    const other = await signCheckpoint(
      {
        origin: TEST_DEPLOYMENT_ORIGIN,
        size: chain.treeSize,
        rootHash: bytes(vectors.integrations[2]?.rootHex ?? ''),
      },
      testNoteSigner(TEST_DEPLOYMENT_ORIGIN, new Uint8Array(32).fill(9)),
    );
    expect(verifyDeploymentChain({ ...base, note: await cosignedNote(NOW - 10, other) })).toMatchObject({
      refusal: DeploymentChainRefusal.POLICY_NOT_MET,
    });
    expect(verifyDeploymentChain({ ...base, note: 'not a note' })).toMatchObject({
      refusal: DeploymentChainRefusal.POLICY_NOT_MET,
    });
  });

  it('COSIGNATURES_TOO_OLD: the same note one second past the maximum age', async () => {
    const base = await vectorInput();
    expect(verifyDeploymentChain({ ...base, nowSeconds: NOW - 10 + MAX_AGE }).kind).toBe('PROVEN');
    expect(verifyDeploymentChain({ ...base, nowSeconds: NOW - 10 + MAX_AGE + 1 })).toMatchObject({
      kind: 'REFUSED',
      refusal: DeploymentChainRefusal.COSIGNATURES_TOO_OLD,
    });
  });

  it('LEAF_NOT_LAST: an older leaf of the same checkpoint, a mutated inclusion proof, a root of the wrong size', async () => {
    const base = await vectorInput();
    const older = vectors.integrations[1]?.indexRootHex ?? '';
    for (const changed of [
      { indexRoot: bytes(older) },
      { inclusion: [bytes(vectors.integrations[1]?.leafHashHex ?? '')] },
      { inclusion: [] },
      { indexRoot: new Uint8Array(31) },
    ]) {
      expect(verifyDeploymentChain({ ...base, ...changed })).toMatchObject({
        kind: 'REFUSED',
        refusal: DeploymentChainRefusal.LEAF_NOT_LAST,
      });
    }
  });

  it('INDEX_PROOF_INVALID: a flipped proof bit, an edited entry, an entry of another lineage, an absence claim', async () => {
    const base = await vectorInput();
    const flipped = bytes(chain.indexProofHex);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 1;
    const edited = parseIndexEntry({ ...chain.entry, value: { ...chain.entry.value, treeSize: 5 } });
    for (const changed of [
      { lineage: { kind: 'presence' as const, entry, proof: flipped } },
      { lineage: { kind: 'presence' as const, entry: edited, proof: bytes(chain.indexProofHex) } },
      { lineageId: 'lineage-1' },
      { lineage: { kind: 'absence' as const, proof: bytes(chain.indexProofHex) } },
    ]) {
      expect(verifyDeploymentChain({ ...base, ...changed })).toMatchObject({
        kind: 'REFUSED',
        refusal: DeploymentChainRefusal.INDEX_PROOF_INVALID,
      });
    }
  });

  it('PROVEN with the residual entry; ABSENT for a residual id or a lineage the index does not hold', async () => {
    const { store, root, note } = await ownLog();
    const claim = async (key: Parameters<typeof proveIndexKey>[2]) => {
      const proven = await proveIndexKey(store, root, key);
      return proven.kind === 'presence'
        ? ({ kind: 'presence', entry: proven.entry, proof: proven.proof } as const)
        : ({ kind: 'absence', proof: proven.proof } as const);
    };
    const input = async (lineageId: string, residualId: string) => ({
      note,
      policy: await unwitnessed(),
      maxAgeSeconds: MAX_AGE,
      nowSeconds: NOW,
      indexRoot: root,
      inclusion: [],
      lineageId,
      lineage: await claim({ kind: 'lineage', lineageId }),
      residual: { residualId, claim: await claim({ kind: 'residual', lineageId, residualId }) },
    });
    expect(verifyDeploymentChain(await input('L', 'r-0'))).toMatchObject({
      kind: 'PROVEN',
      lineage: lineageValue(3),
      residual: residualValue(0),
    });
    expect(verifyDeploymentChain(await input('L', 'r-9'))).toMatchObject({
      kind: 'ABSENT',
      absent: 'residual',
      lineage: lineageValue(3),
    });
    expect(verifyDeploymentChain(await input('M', 'r-0'))).toMatchObject({ kind: 'ABSENT', absent: 'lineage' });
    // A presence claim for a residual id the index does not hold does not verify.
    const forged = await input('L', 'r-9');
    const r0 = await claim({ kind: 'residual', lineageId: 'L', residualId: 'r-0' });
    expect(verifyDeploymentChain({ ...forged, residual: { residualId: 'r-9', claim: r0 } })).toMatchObject({
      refusal: DeploymentChainRefusal.INDEX_PROOF_INVALID,
    });
    expect(checkpointBody({ origin: TEST_DEPLOYMENT_ORIGIN, size: 1, rootHash: deploymentLeafHash(root) })).toBe(
      note.slice(0, note.indexOf('\n\n') + 1),
    );
  });

  it('a maximum age or clock that is not whole seconds is bad input, not a refusal', async () => {
    const base = await vectorInput();
    expect(() => verifyDeploymentChain({ ...base, maxAgeSeconds: 0 })).toThrow(InvalidInputError);
    expect(() => verifyDeploymentChain({ ...base, nowSeconds: 1.5 })).toThrow(InvalidInputError);
  });
});
