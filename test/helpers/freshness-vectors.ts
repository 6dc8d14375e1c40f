import { applyIndexUpdates } from '../../shared/index/apply-index-updates';
import { type IndexEntry, parseIndexEntry } from '../../shared/index/index-entry';
import { emptyIndexHash } from '../../shared/index/index-hash';
import { encodeIndexProof, type IndexProof } from '../../shared/index/index-proof';
import { MemoryIndexNodeStore } from '../../shared/index/memory-index-node-store';
import { proveIndexKey } from '../../shared/index/prove-index-key';
import { decideAbsence } from '../../shared/integrator/decide-absence';
import { decideRecordFreshness } from '../../shared/integrator/decide-record-freshness';
import {
  type DeploymentChainFinding,
  type DeploymentChainInput,
  type IndexClaim,
  verifyDeploymentChain,
} from '../../shared/integrator/deployment-chain';
import { deploymentLeafHash } from '../../shared/integrator/deployment-leaf';
import type { ReadDeploymentChain, RecordFreshness } from '../../shared/integrator/record-freshness';
import { proveConsistency } from '../../shared/log/consistency-proof';
import { formatVerifierKey } from '../../shared/log/note-key';
import { signCheckpoint } from '../../shared/log/sign-checkpoint';
import { cosign } from '../../shared/witness/cosign';
import { parsePolicy } from '../../shared/witness/tlog-policy';
import { cosignedResponse } from '../../shared/witness/witness-response';
import vectors from '../vectors/deployment-log.json';
import { hexOf, lineageEntry, lineageValue, residualEntry, residualValue, updatesFor } from './index-factories';
import { TEST_LOG_ORIGIN, testNoteSigner, testNoteVerifierKey, testTree } from './log-factories';
import { TEST_DEPLOYMENT_ORIGIN, testPolicyText, testWitnessSigner } from './witness-factories';

const NOW = 1_800_000_000;
const MAX_AGE = 180;
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));

/** A claim in the vectors' form: the entry (presence) and the binary proof, hex. */
const claimJson = (claim: IndexClaim) => ({
  kind: claim.kind,
  ...(claim.kind === 'presence' ? { entry: claim.entry } : {}),
  proofHex: hexOf(claim.proof instanceof Uint8Array ? claim.proof : encodeIndexProof(claim.proof as IndexProof)),
});

/** A finding in the vectors' form (the checkpoint as its size). */
const findingJson = (finding: ReadDeploymentChain) =>
  finding.kind === 'REFUSED' || finding.kind === 'UNPUBLISHED'
    ? finding.kind === 'REFUSED'
      ? { kind: finding.kind, refusal: finding.refusal }
      : { kind: finding.kind }
    : {
        kind: finding.kind,
        checkpointSize: finding.checkpoint.size,
        witnessed: finding.witnessed,
        quorumTime: finding.quorumTime,
        freshUntil: finding.freshUntil,
        lineage: finding.lineage,
        ...(finding.kind === 'PROVEN' ? { residual: finding.residual } : { absent: finding.absent }),
      };

const freshnessJson = (decided: RecordFreshness | null) =>
  decided && {
    state: decided.state,
    checkpointSize: decided.checkpointSize,
    verdict: decided.finding?.verdict ?? null,
  };

/**
 * The freshness vectors (test/vectors/freshness.json): deployment chains with what
 * `verifyDeploymentChain` finds (each refusal among them), and proven records and "no such record"
 * answers placed against chains by `decideRecordFreshness` and `decideAbsence`
 * (docs/deployment-log.md, "Clients"), so a second client (the Python package) must decide alike.
 */
export async function freshnessVectors() {
  const { chain } = vectors;
  const vectorEntry = parseIndexEntry(chain.entry);
  const cosigned = async (time: number, note = chain.signedCheckpoint) => {
    const body = note.slice(0, note.indexOf('\n\n') + 1);
    return `${note}${cosignedResponse([await cosign(body, time, testWitnessSigner())]).body}`;
  };
  const witnessed = await testPolicyText();
  const unwitnessed = `log ${formatVerifierKey(await testNoteVerifierKey())}\nquorum none\n`;
  // A one-leaf log of our own: lineage L (3 records) and its residual id r-0.
  const store = new MemoryIndexNodeStore();
  const { root } = await applyIndexUpdates(
    store,
    emptyIndexHash(),
    updatesFor([lineageEntry('L', lineageValue(3)), residualEntry('L', 'r-0', residualValue(0))]),
  );
  const own = await signCheckpoint(
    { origin: TEST_DEPLOYMENT_ORIGIN, size: 1, rootHash: deploymentLeafHash(root) },
    testNoteSigner(),
  );
  const prove = async (key: Parameters<typeof proveIndexKey>[2]): Promise<IndexClaim> => {
    const proven = await proveIndexKey(store, root, key);
    return proven.kind === 'presence'
      ? { kind: 'presence', entry: proven.entry, proof: encodeIndexProof(proven.proof) }
      : { kind: 'absence', proof: encodeIndexProof(proven.proof) };
  };
  const vectorPolicy = { policyText: witnessed, maxAgeSeconds: MAX_AGE, nowSeconds: NOW };
  const base = {
    note: await cosigned(NOW - 10),
    ...vectorPolicy,
    indexRoot: bytes(chain.indexRootHex),
    inclusion: chain.inclusionProofHex.map(bytes),
    lineageId: 'lineage-3',
    lineage: { kind: 'presence', entry: vectorEntry, proof: bytes(chain.indexProofHex) } as IndexClaim,
  };
  const ownBase = {
    note: own,
    policyText: unwitnessed,
    maxAgeSeconds: MAX_AGE,
    nowSeconds: NOW,
    indexRoot: root,
    inclusion: [] as Uint8Array[],
    lineageId: 'L',
    lineage: await prove({ kind: 'lineage', lineageId: 'L' }),
  };
  interface Case {
    readonly note: string;
    readonly policyText: string;
    readonly maxAgeSeconds: number;
    readonly nowSeconds: number;
    readonly indexRoot: Uint8Array;
    readonly inclusion: readonly Uint8Array[];
    readonly lineageId: string;
    readonly lineage: IndexClaim;
    readonly residual?: { readonly residualId: string; readonly claim: IndexClaim };
  }
  const edited: IndexEntry = { ...vectorEntry, value: { ...vectorEntry.value, treeSize: 5 } } as IndexEntry;
  const chainCases: [string, Case][] = [
    ['the vector chain, cosigned 10 s ago', base],
    ['the vector chain under the log alone (quorum none)', { ...base, policyText: unwitnessed }],
    ['a cosignature older than the maximum age', { ...base, note: await cosigned(NOW - MAX_AGE - 1) }],
    ['no cosignature under a witnessed policy', { ...base, note: chain.signedCheckpoint }],
    ['a garbled note', { ...base, note: 'not a note\n' }],
    ['the index root of another leaf', { ...base, indexRoot: bytes(vectors.integrations[1]?.indexRootHex ?? '') }],
    ['no inclusion proof', { ...base, inclusion: [] }],
    ['an edited entry', { ...base, lineage: { ...base.lineage, entry: edited } as IndexClaim }],
    [
      'absence claimed for a present lineage',
      { ...base, lineage: { kind: 'absence', proof: bytes(chain.indexProofHex) } },
    ],
    [
      'a residual id present',
      {
        ...ownBase,
        residual: { residualId: 'r-0', claim: await prove({ kind: 'residual', lineageId: 'L', residualId: 'r-0' }) },
      },
    ],
    [
      'a residual id absent',
      {
        ...ownBase,
        residual: { residualId: 'r-9', claim: await prove({ kind: 'residual', lineageId: 'L', residualId: 'r-9' }) },
      },
    ],
    ['a lineage absent', { ...ownBase, lineageId: 'M', lineage: await prove({ kind: 'lineage', lineageId: 'M' }) }],
    [
      "a residual id claimed with another key's entry",
      {
        ...ownBase,
        residual: { residualId: 'r-1', claim: await prove({ kind: 'residual', lineageId: 'L', residualId: 'r-0' }) },
      },
    ],
  ];
  const chains = chainCases.map(([name, c]) => {
    const input: DeploymentChainInput = {
      note: c.note,
      policy: parsePolicy(c.policyText),
      maxAgeSeconds: c.maxAgeSeconds,
      nowSeconds: c.nowSeconds,
      indexRoot: c.indexRoot,
      inclusion: c.inclusion,
      lineageId: c.lineageId,
      lineage: c.lineage,
      ...(c.residual ? { residual: c.residual } : {}),
    };
    return {
      name,
      input: {
        note: c.note,
        policyText: c.policyText,
        maxAgeSeconds: c.maxAgeSeconds,
        nowSeconds: c.nowSeconds,
        indexRootHex: hexOf(c.indexRoot),
        inclusionHex: c.inclusion.map(hexOf),
        lineageId: c.lineageId,
        lineage: claimJson(c.lineage),
        ...(c.residual ? { residual: { residualId: c.residual.residualId, claim: claimJson(c.residual.claim) } } : {}),
      },
      finding: findingJson(verifyDeploymentChain(input)),
    };
  });

  // Records against chains: a lineage tree of 8 records; the index holds `indexed` of them.
  const tree = testTree(8);
  const deployment = { origin: 'reseal/test-stack', size: 9, rootHash: new Uint8Array(32) };
  const held = (size: number) => ({
    treeSize: size,
    rootHash: hexOf(tree.root(size)),
    headRecordHash: 'aa'.repeat(32),
    generationEpoch: 1,
    writerPolicyDigest: null,
  });
  const proven = (
    size: number,
    residual: { seq: number; recordHash: string } | null = null,
  ): DeploymentChainFinding => ({
    kind: 'PROVEN',
    checkpoint: deployment,
    witnessed: false,
    quorumTime: null,
    freshUntil: null,
    lineage: held(size),
    residual,
  });
  const absentResidual = (size: number): DeploymentChainFinding => ({
    kind: 'ABSENT',
    absent: 'residual',
    checkpoint: deployment,
    witnessed: false,
    quorumTime: null,
    freshUntil: null,
    lineage: held(size),
  });
  const absentLineage: DeploymentChainFinding = {
    kind: 'ABSENT',
    absent: 'lineage',
    checkpoint: deployment,
    witnessed: false,
    quorumTime: null,
    freshUntil: null,
    lineage: null,
  };
  const refused: ReadDeploymentChain = { kind: 'REFUSED', refusal: 'LEAF_NOT_LAST', reason: 'hidden leaf' };
  const unpublished: ReadDeploymentChain = { kind: 'UNPUBLISHED', reason: 'nothing published' };
  const chainJson = (c: ReadDeploymentChain) =>
    c.kind === 'REFUSED' || c.kind === 'UNPUBLISHED'
      ? c
      : { ...findingJson(c), ...(c.kind === 'PROVEN' ? { residual: c.residual } : { absent: c.absent }) };
  const answer = async (
    name: string,
    c: ReadDeploymentChain,
    answered: number,
    seq: number,
    options: { latest?: boolean; residualAsked?: boolean; recordHash?: string; badProof?: boolean } = {},
  ) => {
    const indexed = 'lineage' in c && c.lineage ? c.lineage.treeSize : answered;
    const [a, b] = answered < indexed ? [answered, indexed] : [indexed, answered];
    const proof =
      a === b ? null : options.badProof ? ['00'.repeat(32)] : (await proveConsistency(a, b, tree.nodes)).map(hexOf);
    const record = { seq, recordHash: options.recordHash ?? residualValue(seq).recordHash, residualId: `r-${seq}` };
    const decided = decideRecordFreshness({
      chain: c,
      answered: { origin: TEST_LOG_ORIGIN, size: answered, rootHash: tree.root(answered) },
      record,
      latest: options.latest ?? false,
      residualAsked: options.residualAsked ?? false,
      consistency: proof && { fromSize: a, toSize: b, proof },
    });
    return {
      name,
      chain: chainJson(c),
      answered: { size: answered, rootHex: hexOf(tree.root(answered)) },
      record,
      latest: options.latest ?? false,
      residualAsked: options.residualAsked ?? false,
      consistency: proof,
      freshness: freshnessJson(decided),
    };
  };
  const records = [
    await answer('in the indexed head, same size', proven(5), 5, 4, { latest: true }),
    await answer('in the indexed head, an older checkpoint', proven(6), 3, 2),
    await answer('past the indexed head', proven(5), 7, 6, { latest: true }),
    await answer('covered by a newer answer', proven(5), 7, 3),
    await answer('a latest answer older than the indexed head', proven(6), 4, 3, { latest: true }),
    await answer('two histories', proven(6), 4, 3, { badProof: true }),
    await answer('the residual id mapped to another record', proven(5, residualValue(1)), 5, 3, {
      residualAsked: true,
    }),
    await answer('the residual id mapped to this record', proven(5, residualValue(3)), 5, 3, { residualAsked: true }),
    await answer('the residual id missing under the head', absentResidual(5), 5, 3, { residualAsked: true }),
    await answer('the residual id absent, the record past the head', absentResidual(5), 7, 6, { residualAsked: true }),
    await answer('the lineage not indexed', absentLineage, 5, 4, { latest: true }),
    await answer('a refused chain', refused, 5, 4, { latest: true }),
    await answer('nothing published', unpublished, 5, 4, { latest: true }),
  ];
  const absence = (name: string, c: ReadDeploymentChain, asked: { residualId: string } | { seq: number }) => ({
    name,
    chain: chainJson(c),
    asked,
    freshness: freshnessJson(decideAbsence(c, asked)),
  });
  const absences = [
    absence('a residual id the index proves absent', absentResidual(5), { residualId: 'r-9' }),
    absence('a residual id of a lineage the index proves absent', absentLineage, { residualId: 'r-9' }),
    absence('a residual id the index maps', proven(5, residualValue(2)), { residualId: 'r-2' }),
    absence('a seq the indexed head covers', proven(5), { seq: 4 }),
    absence('a seq past the indexed head', proven(5), { seq: 5 }),
    absence('any seq of a lineage the index proves absent', absentLineage, { seq: 0 }),
    absence('a refused chain', refused, { residualId: 'r-9' }),
    absence('nothing published', unpublished, { seq: 0 }),
  ];
  return {
    description:
      'Freshness from the deployment log (docs/deployment-log.md, "Clients"): `chains` are inputs of verifyDeploymentChain (the policy as text, the index claims with their binary proofs in hex) with what it finds; `records` and `absences` place a proven record, or a "no such record" answer, against a chain (decideRecordFreshness, decideAbsence; a lineage tree of 8 test leaves, consistency proofs in hex). Regenerate with test/unit/shared/integrator/freshness-vectors.generate.ts.',
    chains,
    records,
    absences,
  };
}
