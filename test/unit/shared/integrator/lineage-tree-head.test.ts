import { describe, expect, it } from 'vitest';
import type { DeploymentChainFinding } from '../../../../shared/integrator/deployment-chain';
import {
  decideLineageTreeHead,
  isTreeHeadIntegrated,
  type LineageTreeHeadInput,
  TreeHeadVoucher,
} from '../../../../shared/integrator/lineage-tree-head';
import { proveConsistency } from '../../../../shared/log/consistency-proof';
import type { VerifiedCheckpoint } from '../../../../shared/log/verified-checkpoint';
import { VerificationVerdict as V } from '../../../../shared/seal/verification-verdict';
import { hexOf } from '../../../helpers/index-factories';
import { TEST_LOG_ORIGIN, testLeaf, testTree } from '../../../helpers/log-factories';

const tree = testTree(8);
const other = testTree(8, (i) => (i === 1 ? testLeaf(99) : testLeaf(i)));
const signed = (size: number, t = tree): VerifiedCheckpoint => ({
  origin: TEST_LOG_ORIGIN,
  size,
  rootHash: t.root(size),
  note: `signed note of ${size}`,
});
const deployment = { origin: 'reseal/test-stack', size: 9, rootHash: new Uint8Array(32) };
const indexedAt = (size: number, t = tree): DeploymentChainFinding => ({
  kind: 'PROVEN',
  checkpoint: deployment,
  witnessed: false,
  quorumTime: null,
  freshUntil: null,
  lineage: {
    treeSize: size,
    rootHash: hexOf(t.root(size)),
    headRecordHash: 'aa'.repeat(32),
    generationEpoch: 1,
    writerPolicyDigest: null,
  },
  residual: null,
});
const notIndexed: DeploymentChainFinding = {
  kind: 'ABSENT',
  absent: 'lineage',
  lineage: null,
  checkpoint: deployment,
  witnessed: false,
  quorumTime: null,
  freshUntil: null,
};
const consistency = async (from: number, to: number) => ({
  fromSize: from,
  toSize: to,
  proof: (await proveConsistency(from, to, tree.nodes)).map(hexOf),
});
const decide = (over: Partial<LineageTreeHeadInput>) =>
  decideLineageTreeHead({ origin: TEST_LOG_ORIGIN, chain: null, signed: null, consistency: null, ...over });

// docs/deployment-log.md, "Clients": a lineage's tree head comes from the index; a signed lineage
// checkpoint (heads stored before) vouches only where the index does not contradict it.
describe('decideLineageTreeHead', () => {
  it('takes the tree head from the index entry when the head item carries no signed checkpoint', () => {
    const found = decide({ chain: indexedAt(5) });
    expect(found.kind).toBe('VOUCHED');
    if (found.kind !== 'VOUCHED') return;
    expect(found.head).toMatchObject({
      origin: TEST_LOG_ORIGIN,
      size: 5,
      vouchedBy: TreeHeadVoucher.INDEX,
      note: null,
      integratedSize: 5,
      deploymentCheckpointSize: 9,
    });
    expect(hexOf(found.head.rootHash)).toBe(hexOf(tree.root(5)));
    expect(isTreeHeadIntegrated(found.head, 4)).toBe(true);
    expect(isTreeHeadIntegrated(found.head, 5)).toBe(false);
  });

  it('keeps the signed note of the very tree the index holds, the index vouching', () => {
    const found = decide({ chain: indexedAt(5), signed: signed(5) });
    expect(found).toMatchObject({ kind: 'VOUCHED', head: { vouchedBy: 'INDEX', size: 5, note: 'signed note of 5' } });
  });

  it('lets the index win over an older signed checkpoint that is a prefix of it', async () => {
    const found = decide({ chain: indexedAt(6), signed: signed(3), consistency: await consistency(3, 6) });
    expect(found).toMatchObject({ kind: 'VOUCHED', head: { vouchedBy: 'INDEX', size: 6, note: null } });
  });

  it('takes a signed checkpoint that extends the indexed head, its records past the index awaiting integration', async () => {
    const found = decide({ chain: indexedAt(4), signed: signed(7), consistency: await consistency(4, 7) });
    expect(found).toMatchObject({
      kind: 'VOUCHED',
      head: { vouchedBy: 'SIGNED_CHECKPOINT', size: 7, integratedSize: 4, note: 'signed note of 7' },
    });
    if (found.kind === 'VOUCHED') {
      expect(isTreeHeadIntegrated(found.head, 3)).toBe(true);
      expect(isTreeHeadIntegrated(found.head, 4)).toBe(false);
    }
  });

  it('refuses a signed checkpoint and an indexed head that are two histories (same size, another root)', () => {
    const found = decide({ chain: indexedAt(5), signed: signed(5, other) });
    expect(found).toMatchObject({ kind: 'REFUSED', verdict: V.LINEAGE_BROKEN });
  });

  it('refuses a larger signed checkpoint shown without a valid consistency proof', async () => {
    expect(
      decide({ chain: indexedAt(4), signed: signed(7, other), consistency: await consistency(4, 7) }),
    ).toMatchObject({ kind: 'REFUSED', verdict: V.LINEAGE_BROKEN });
    expect(decide({ chain: indexedAt(4), signed: signed(7), consistency: null })).toMatchObject({
      kind: 'REFUSED',
      verdict: V.LINEAGE_BROKEN,
    });
  });

  it('lets a signed checkpoint vouch alone for a lineage the index does not hold yet, or without a chain', () => {
    for (const chain of [notIndexed, null, { kind: 'UNPUBLISHED' as const, reason: 'none' }]) {
      expect(decide({ chain, signed: signed(3) })).toMatchObject({
        kind: 'VOUCHED',
        head: { vouchedBy: 'SIGNED_CHECKPOINT', size: 3, integratedSize: null },
      });
    }
  });

  it('finds nothing vouched, awaiting integration (not tampering), with neither an entry nor a signed checkpoint', () => {
    for (const chain of [notIndexed, null, { kind: 'UNPUBLISHED' as const, reason: 'none' }]) {
      const found = decide({ chain });
      expect(found.kind).toBe('UNVOUCHED');
      if (found.kind === 'UNVOUCHED') expect(found.reason).toMatch(/awaiting integration/);
    }
  });

  it('fails closed on a chain that does not verify, whatever the head item holds', () => {
    const chain = { kind: 'REFUSED' as const, refusal: 'POLICY_NOT_MET' as const, reason: 'no quorum' };
    expect(decide({ chain, signed: signed(5) })).toMatchObject({ kind: 'REFUSED', verdict: V.UNVERIFIED_TAMPER_RISK });
    expect(decide({ chain })).toMatchObject({ kind: 'REFUSED', verdict: V.UNVERIFIED_TAMPER_RISK });
  });
});
