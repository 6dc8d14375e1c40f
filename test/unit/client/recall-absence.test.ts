import { describe, expect, it } from 'vitest';
import { DeploymentChainReader } from '../../../client/deployment-chain-reader';
import { LogReader } from '../../../client/log-reader';
import { recallAbsence } from '../../../client/recall-absence';
import { decideAbsence } from '../../../shared/integrator/decide-absence';
import { markerKey } from '../../helpers/in-memory-lineage-store';
import { integratedStack, unwitnessedTestPolicy } from '../../helpers/integrated-stack';
import { TEST_LOG_KEY } from '../../helpers/pipeline-keys';

// Absence in the index is absence only as of the last integration (docs/deployment-log.md,
// "Clients", item 3): a NOT_FOUND recall by residual id searches the records past the indexed head.
describe('recallAbsence: a NOT_FOUND by residual id against the records not yet integrated', () => {
  async function lineage() {
    const s = integratedStack();
    const lineageId = s.request({}).lineageId;
    await s.send({ residualId: 'r-0' });
    await s.integrate();
    await s.send({ residualId: 'r-1' });
    await s.send({ residualId: 'r-2' });
    const log = new LogReader(s.store, async () => TEST_LOG_KEY, null);
    const chains = new DeploymentChainReader({
      log: s.deployment,
      index: s.index,
      policy: async () => unwitnessedTestPolicy(),
      nowMs: () => s.clock.now,
    });
    const asked = async (residualId: string) => {
      const chain = await chains.read({ lineageId, residualId });
      const absence = decideAbsence(chain, { residualId });
      const latest = await log.latest(lineageId);
      return { absence, decided: await recallAbsence(log, { lineageId, residualId }, latest, chain, absence) };
    };
    return { s, lineageId, asked };
  }

  it('a residual id sealed past the indexed head, its marker deleted: SEALED_AWAITING_INTEGRATION and tamper, never ABSENT', async () => {
    const { s, lineageId, asked } = await lineage();
    s.store.markers.delete(markerKey(lineageId, 'r-1'));
    const { absence, decided } = await asked('r-1');
    // What the index alone says (the claim this search corrects).
    expect(absence?.state).toBe('ABSENT');
    expect(decided.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
    expect(decided.finding?.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    expect(decided.finding?.reason).toMatch(/sealed at seq 1, proven in the lineage's signed checkpoint of 3 records/);
  });

  it('a residual id never written: ABSENT as of the integration, naming the records past it that were searched', async () => {
    const { asked } = await lineage();
    const { decided } = await asked('r-9');
    expect(decided.finding).toBeNull();
    expect(decided.freshness?.state).toBe('ABSENT');
    expect(decided.freshness?.reason).toMatch(
      /^absent as of deployment checkpoint 1 \(1 records of the lineage integrated\); the 2 records sealed since \(not yet integrated\) do not hold it$/,
    );
  });

  it('with no deployment chain, the signed log is searched all the same', async () => {
    const { s, lineageId } = await lineage();
    s.store.markers.delete(markerKey(lineageId, 'r-0'));
    const log = new LogReader(s.store, async () => TEST_LOG_KEY, null);
    const decided = await recallAbsence(log, { lineageId, residualId: 'r-0' }, await log.latest(lineageId), null, null);
    expect(decided.freshness).toBeNull();
    expect(decided.finding?.verdict).toBe('UNVERIFIED_TAMPER_RISK');
  });
});
