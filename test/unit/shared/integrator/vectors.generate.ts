/**
 * Writes test/vectors/deployment-log.json: run once with
 * `npx tsx test/unit/shared/integrator/vectors.generate.ts > /tmp/d.json && mv /tmp/d.json test/vectors/deployment-log.json`,
 * then review the diff by hand. `vectors.test.ts` recomputes every value with plain node:crypto
 * and checks the code against the file, so a change of the deployment-log format shows up as a
 * failing test, never as a silently regenerated file.
 */
import { HashDomain } from '../../../../shared/canonical/hash-domain';
import { encodeIndexProof } from '../../../../shared/index/index-proof';
import { MemoryIndexNodeStore } from '../../../../shared/index/memory-index-node-store';
import { proveIndexKey } from '../../../../shared/index/prove-index-key';
import { deploymentLeaf, deploymentLeafHash } from '../../../../shared/integrator/deployment-leaf';
import { emptyDeploymentLogState } from '../../../../shared/integrator/deployment-log-state';
import { integrate } from '../../../../shared/integrator/integrate';
import { readHeldLineages } from '../../../../shared/integrator/read-held-lineages';
import { checkpointBody } from '../../../../shared/log/checkpoint';
import { proveConsistency } from '../../../../shared/log/consistency-proof';
import { proveInclusion } from '../../../../shared/log/inclusion-proof';
import { MemoryMerkleTree } from '../../../../shared/log/memory-tree';
import { signCheckpoint } from '../../../../shared/log/sign-checkpoint';
import { hexOf } from '../../../helpers/index-factories';
import { FakeLineage } from '../../../helpers/integrator-factories';
import { TEST_LOG_KEY_NAME, testNoteSigner } from '../../../helpers/log-factories';

const store = new MemoryIndexNodeStore();
const tree = new MemoryMerkleTree();
const signer = testNoteSigner();
let state = emptyDeploymentLogState();
const lineages = ['lineage-1', 'lineage-2', 'lineage-3'].map((id) => new FakeLineage(id));
const [l1, l2, l3] = lineages as [FakeLineage, FakeLineage, FakeLineage];

/** Integrations, each sealing the residual ids given per lineage before it runs. */
const steps: { note: string; seal: [FakeLineage, string[]][] }[] = [
  {
    note: 'three new lineages',
    seal: [
      [l1, ['r-0', 'r-1']],
      [l2, ['r-0']],
      [l3, ['a', 'b', 'c']],
    ],
  },
  { note: 'lineage-1 grows by one record', seal: [[l1, ['r-2']]] },
  {
    note: 'lineage-2 and lineage-3 grow',
    seal: [
      [l2, ['r-1']],
      [l3, ['d']],
    ],
  },
];

const integrations = [];
for (const step of steps) {
  for (const [lineage, ids] of step.seal) lineage.seal(...ids);
  const ids = step.seal.map(([l]) => l.lineageId);
  const held = await readHeldLineages(store, state.indexRoot, ids);
  const candidates = await Promise.all(step.seal.map(([l]) => l.candidate(held.get(l.lineageId) ?? null)));
  const result = await integrate({ store, previous: state, origin: TEST_LOG_KEY_NAME, candidates, notices: [], held });
  if (!result.next || !result.checkpoint) throw new Error('every step changes the index');
  state = result.next.state;
  tree.appendLeafHash(deploymentLeafHash(state.indexRoot));
  integrations.push({
    note: step.note,
    indexRootHex: hexOf(state.indexRoot),
    leafHex: hexOf(deploymentLeaf(state.indexRoot)),
    leafHashHex: hexOf(deploymentLeafHash(state.indexRoot)),
    treeSize: state.size,
    rootHex: hexOf(state.rootHash),
    checkpointBody: checkpointBody(result.checkpoint),
    signedCheckpoint: await signCheckpoint(result.checkpoint, signer),
  });
}

// One whole chain at the last integration: lineage-3's entry → index root → leaf 2 → checkpoint of 3.
const proven = await proveIndexKey(store, state.indexRoot, { kind: 'lineage', lineageId: 'lineage-3' });
if (proven.kind !== 'presence') throw new Error('lineage-3 is indexed');

console.log(
  JSON.stringify(
    {
      source:
        'test/unit/shared/integrator/vectors.generate.ts; recomputed by test/unit/shared/integrator/vectors.test.ts with plain node:crypto (docs/deployment-log.md, "Vectors")',
      tag: HashDomain.DEPLOYMENT_LEAF,
      logKeyName: TEST_LOG_KEY_NAME,
      publicKeyHex: hexOf(await signer.publicKey()),
      integrations,
      consistency: {
        note: 'RFC 9162 consistency proof from the checkpoint of 1 leaf to the checkpoint of 3',
        fromSize: 1,
        toSize: 3,
        proofHex: (await proveConsistency(1, 3, tree.nodes)).map(hexOf),
      },
      chain: {
        note: "lineage-3's entry is present in the index root of leaf 2, which the checkpoint of 3 leaves includes",
        entry: proven.entry,
        indexProofHex: hexOf(encodeIndexProof(proven.proof)),
        indexRootHex: hexOf(state.indexRoot),
        leafIndex: 2,
        treeSize: 3,
        inclusionProofHex: (await proveInclusion(2, 3, tree.nodes)).map(hexOf),
        signedCheckpoint: integrations.at(-1)?.signedCheckpoint,
      },
      notice: l3.notice(3),
    },
    null,
    2,
  ),
);
