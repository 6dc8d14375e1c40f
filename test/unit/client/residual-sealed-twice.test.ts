import { describe, expect, it } from 'vitest';
import { DeploymentChainReader } from '../../../client/deployment-chain-reader';
import { LogReader } from '../../../client/log-reader';
import { provenRecordFreshness } from '../../../client/proven-record-freshness';
import { SealedRecordSchema } from '../../../shared/seal/sealed-record';
import { integratedStack, unwitnessedTestPolicy } from '../../helpers/integrated-stack';
import { TEST_LOG_KEY } from '../../helpers/pipeline-keys';

// A residual id sealed twice (a table writer deleted its marker before it was integrated): the
// integrator keeps the first sealing in the index (RESIDUAL_CHANGED), so a reader that proves the
// second through the deployment chain must refuse it, even when it asked for the lineage's latest
// record rather than the residual id (docs/deployment-log.md, "Clients", item 3).
describe('provenRecordFreshness: a record whose residual id the index maps to another record', () => {
  async function twiceSealed() {
    const s = integratedStack();
    const lineageId = s.request({}).lineageId;
    await s.send({ residualId: 'r-0', payload: { said: 'first' } });
    s.store.markers.clear();
    // Only a sealer without the index floor seals it again (docs/sealing.md, "The index floor").
    await s.sendUnfloored({ residualId: 'r-0', payload: { said: 'second' } });
    const report = await s.integrate();
    expect(report.evidence.map((e) => e.kind)).toEqual(['RESIDUAL_CHANGED']);
    const log = new LogReader(s.store, async () => TEST_LOG_KEY, null);
    const chains = new DeploymentChainReader({
      log: s.deployment,
      index: s.index,
      policy: async () => unwitnessedTestPolicy(),
      nowMs: () => s.clock.now,
    });
    const latest = await log.latest(lineageId);
    if (!latest) throw new Error('no signed checkpoint');
    const second = SealedRecordSchema.parse(await s.store.readRecord(lineageId, 1));
    expect(second.header.residualId).toBe('r-0');
    const { chain, withResidual } = await chains.open({ lineageId });
    const decide = (residualChain: typeof withResidual | null) =>
      provenRecordFreshness(
        log,
        lineageId,
        chain,
        latest.checkpoint,
        second,
        { latest: true, residualAsked: false },
        residualChain,
      );
    return { decide, withResidual };
  }

  it('a latest recall of the second sealing is INCONSISTENT (LINEAGE_BROKEN), naming RESIDUAL_CHANGED', async () => {
    const { decide, withResidual } = await twiceSealed();
    const decided = await decide(withResidual);
    expect(decided.state).toBe('INCONSISTENT');
    expect(decided.finding?.verdict).toBe('LINEAGE_BROKEN');
    expect(decided.reason).toMatch(/maps residual r-0 to seq 0 .*RESIDUAL_CHANGED/);
  });

  it('without the residual check the same answer reads PROVEN (what the check adds)', async () => {
    const { decide } = await twiceSealed();
    expect((await decide(null)).state).toBe('PROVEN');
  });
});
