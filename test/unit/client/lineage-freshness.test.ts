import { describe, expect, it } from 'vitest';
import { integratedStack, witnessedTestPolicy } from '../../helpers/integrated-stack';
import { rolledBackLineage } from '../../helpers/rolled-back-lineage';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-walk-fresh');

// A walked lineage's verified head placed against the deployment log (docs/deployment-log.md,
// "Clients"), as a recall of the latest record is: a lineage rolled back behind the index is not
// intact, whatever its own records and signed checkpoint say.
describe('ResealClient.verifyLineage / verifyStoredLineage / checkWalkAgainstLog: freshness of the head', () => {
  it('a lineage rolled back behind the index (older genuinely signed head) is NOT_NEWEST: UNVERIFIED_TAMPER_RISK, not VERIFIED_INTACT', async () => {
    const s = await rolledBackLineage(LINEAGE);
    const client = s.client();
    const walked = await client.verifyLineage(LINEAGE);
    expect(walked.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    expect(walked.freshness).toMatchObject({ state: 'NOT_NEWEST', checkpointSize: 1 });
    expect(walked.firstFailure?.reason).toMatch(/^freshness: not the newest: .* 1 records, but the index holds 2/);
    for (const authentication of ['signed-tree', 'macs'] as const) {
      const stored = await client.verifyStoredLineage(LINEAGE, { authentication });
      expect(stored.verification.verdict).toBe('UNVERIFIED_TAMPER_RISK');
      expect(stored.freshness?.state).toBe('NOT_NEWEST');
    }
    const exported = await client.exportLineage(LINEAGE);
    const checked = await client.checkWalkAgainstLog(LINEAGE, await client.verifyExport(exported));
    expect(checked.verification.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    expect(checked.freshness?.state).toBe('NOT_NEWEST');
  });

  it('an intact lineage the index covers is VERIFIED_INTACT and PROVEN', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.send({ lineageId: LINEAGE, residualId: 'r-1' });
    await s.integrate();
    const stored = await s.client().verifyStoredLineage(LINEAGE);
    expect(stored.verification.verdict).toBe('VERIFIED_INTACT');
    expect(stored.freshness).toMatchObject({ state: 'PROVEN', checkpointSize: 1, witnessing: 'UNWITNESSED' });
  });

  it('a head past the indexed one is intact, SEALED_AWAITING_INTEGRATION (said, not refused)', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.integrate();
    await s.send({ lineageId: LINEAGE, residualId: 'r-1' });
    const walked = await s.client().verifyLineage(LINEAGE);
    expect(walked.verdict).toBe('VERIFIED_INTACT');
    expect(walked.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
  });

  it('a deployment chain that does not meet the policy is REFUSED: fail closed, UNVERIFIED_TAMPER_RISK', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.integrate();
    const walked = await s.client({ deps: { policy: await witnessedTestPolicy() } }).verifyLineage(LINEAGE);
    expect(walked.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    expect(walked.freshness).toMatchObject({ state: 'REFUSED', witnessing: 'WITNESSED' });
  });
});
