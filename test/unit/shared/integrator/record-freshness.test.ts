import { describe, expect, it } from 'vitest';
import { decideAbsence } from '../../../../shared/integrator/decide-absence';
import {
  decideRecordFreshness,
  type RecordFreshnessInput,
} from '../../../../shared/integrator/decide-record-freshness';
import type { DeploymentChainFinding } from '../../../../shared/integrator/deployment-chain';
import { FreshnessState } from '../../../../shared/integrator/record-freshness';
import { proveConsistency } from '../../../../shared/log/consistency-proof';
import { VerificationVerdict as V } from '../../../../shared/seal/verification-verdict';
import { hexOf, residualValue } from '../../../helpers/index-factories';
import { TEST_LOG_ORIGIN, testTree } from '../../../helpers/log-factories';

const tree = testTree(8);
const checkpoint = (size: number) => ({ origin: TEST_LOG_ORIGIN, size, rootHash: tree.root(size) });
const lineage = (size: number) => ({
  treeSize: size,
  rootHash: hexOf(tree.root(size)),
  headRecordHash: 'aa'.repeat(32),
  generationEpoch: 1,
  writerPolicyDigest: null,
});
const deployment = { origin: 'reseal/test-stack', size: 9, rootHash: new Uint8Array(32) };
const proven = (size: number, residual: ReturnType<typeof residualValue> | null = null): DeploymentChainFinding => ({
  kind: 'PROVEN',
  checkpoint: deployment,
  witnessed: false,
  quorumTime: null,
  freshUntil: null,
  lineage: lineage(size),
  residual,
});
const consistency = async (from: number, to: number) => ({
  fromSize: from,
  toSize: to,
  proof: (await proveConsistency(from, to, tree.nodes)).map(hexOf),
});

async function input(answered: number, indexed: number, seq: number, over: Partial<RecordFreshnessInput> = {}) {
  const [a, b] = answered < indexed ? [answered, indexed] : [indexed, answered];
  return {
    chain: proven(indexed),
    answered: checkpoint(answered),
    record: { seq, recordHash: residualValue(seq).recordHash, residualId: `r-${seq}` },
    latest: false,
    residualAsked: false,
    consistency: a === b ? null : await consistency(a, b),
    ...over,
  };
}

describe('decideRecordFreshness (docs/deployment-log.md, "Clients")', () => {
  it('PROVEN when the indexed head covers the record and is consistent with its lineage checkpoint (equal, older or newer)', async () => {
    expect(decideRecordFreshness(await input(5, 5, 4)).state).toBe(FreshnessState.PROVEN);
    expect(decideRecordFreshness(await input(3, 6, 2)).state).toBe(FreshnessState.PROVEN);
    expect(decideRecordFreshness(await input(7, 5, 3)).state).toBe(FreshnessState.PROVEN);
  });

  it('SEALED_AWAITING_INTEGRATION past the indexed head, for an unindexed lineage and before any publication', async () => {
    expect(decideRecordFreshness(await input(7, 5, 6)).state).toBe(FreshnessState.SEALED_AWAITING_INTEGRATION);
    const absent = {
      kind: 'ABSENT' as const,
      absent: 'lineage' as const,
      lineage: null,
      checkpoint: deployment,
      witnessed: false,
      quorumTime: null,
      freshUntil: null,
    };
    expect(decideRecordFreshness(await input(5, 5, 4, { chain: absent })).state).toBe(
      FreshnessState.SEALED_AWAITING_INTEGRATION,
    );
    const unpublished = { kind: 'UNPUBLISHED' as const, reason: 'none' };
    expect(decideRecordFreshness(await input(5, 5, 4, { chain: unpublished }))).toMatchObject({
      state: FreshnessState.SEALED_AWAITING_INTEGRATION,
      finding: null,
    });
  });

  it('NOT_NEWEST: a latest answer older than the indexed head is a replay, whatever its proof', async () => {
    expect(decideRecordFreshness(await input(4, 6, 3, { latest: true }))).toMatchObject({
      state: FreshnessState.NOT_NEWEST,
      finding: { verdict: V.UNVERIFIED_TAMPER_RISK },
    });
  });

  it('INCONSISTENT: a fork of the same size, a missing or wrong consistency proof, a residual id the index maps elsewhere', async () => {
    const fork = {
      ...(await input(5, 5, 4)),
      chain: { ...proven(5), lineage: { ...lineage(5), rootHash: 'bb'.repeat(32) } },
    };
    expect(decideRecordFreshness(fork)).toMatchObject({
      state: FreshnessState.INCONSISTENT,
      finding: { verdict: V.LINEAGE_BROKEN },
    });
    expect(decideRecordFreshness(await input(7, 5, 3, { consistency: null })).state).toBe(FreshnessState.INCONSISTENT);
    expect(decideRecordFreshness(await input(7, 5, 3, { consistency: await consistency(4, 7) })).state).toBe(
      FreshnessState.INCONSISTENT,
    );
    const elsewhere = await input(5, 5, 4, { residualAsked: true, chain: proven(5, residualValue(2)) });
    expect(decideRecordFreshness(elsewhere).state).toBe(FreshnessState.INCONSISTENT);
    const unmapped = await input(5, 5, 4, { residualAsked: true, chain: proven(5, null) });
    expect(decideRecordFreshness(unmapped).state).toBe(FreshnessState.INCONSISTENT);
    const mapped = await input(5, 5, 4, { residualAsked: true, chain: proven(5, residualValue(4)) });
    expect(decideRecordFreshness(mapped).state).toBe(FreshnessState.PROVEN);
  });

  it('REFUSED: a chain that does not verify fails closed', async () => {
    const chain = { kind: 'REFUSED' as const, refusal: 'COSIGNATURES_TOO_OLD' as const, reason: 'old' };
    expect(decideRecordFreshness(await input(5, 5, 4, { chain }))).toMatchObject({
      state: FreshnessState.REFUSED,
      finding: { verdict: V.UNVERIFIED_TAMPER_RISK },
    });
  });
});

describe('decideAbsence', () => {
  it('ABSENT when the index proves the residual id absent; tamper when it maps it or covers the seq', () => {
    const absent = {
      kind: 'ABSENT' as const,
      absent: 'residual' as const,
      lineage: lineage(5),
      checkpoint: deployment,
      witnessed: false,
      quorumTime: null,
      freshUntil: null,
    };
    expect(decideAbsence(absent, { residualId: 'r-9' })).toMatchObject({
      state: FreshnessState.ABSENT,
      checkpointSize: 9,
    });
    expect(decideAbsence(proven(5, residualValue(1)), { residualId: 'r-1' })).toMatchObject({
      state: FreshnessState.INCONSISTENT,
      finding: { verdict: V.UNVERIFIED_TAMPER_RISK },
    });
    expect(decideAbsence(proven(5), { seq: 4 })?.state).toBe(FreshnessState.INCONSISTENT);
    expect(decideAbsence(proven(5), { seq: 5 })).toBeNull();
    expect(decideAbsence({ kind: 'UNPUBLISHED', reason: 'none' }, { residualId: 'r-1' })).toBeNull();
  });

  it('REFUSED fails closed: a broken chain never lets a hidden marker read as "no such record"', () => {
    const chain = { kind: 'REFUSED' as const, refusal: 'LEAF_NOT_LAST' as const, reason: 'leaf hidden' };
    expect(decideAbsence(chain, { residualId: 'r-1' })).toMatchObject({
      state: FreshnessState.REFUSED,
      finding: { verdict: V.UNVERIFIED_TAMPER_RISK },
    });
  });
});
