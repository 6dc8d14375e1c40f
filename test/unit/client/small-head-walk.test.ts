import { describe, expect, it } from 'vitest';
import { integratedStack } from '../../helpers/integrated-stack';
import { shrinkHead } from '../../helpers/small-head';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-small-head-walk');
const AUTHENTICATIONS = ['signed-tree', 'macs'] as const;

/**
 * `sealed` writes by the real sealer (heads MAC'd), the first `integrated` of them integrated, and
 * the head item put back as it was after write `headAt` and made small: the records after it are
 * past the head item, as between an append's two writes or after a crash between them (docs/sealing.md,
 * "The append's layout").
 */
async function pastHead(sealed: number, integrated: number, headAt: number) {
  const s = integratedStack({ signLineageCheckpoints: false });
  let head = null;
  for (let i = 0; i < sealed; i++) {
    await s.send({ lineageId: LINEAGE, residualId: `r-${i}` });
    if (i === integrated - 1) await s.integrate();
    if (i === headAt) head = s.store.headSnapshot(LINEAGE);
  }
  if (head === null) throw new Error('no head');
  s.store.restoreHead(LINEAGE, head);
  await shrinkHead(s.store, LINEAGE);
  return s;
}

describe('whole-lineage walks of records past the head item (docs/sealing.md, "The append\'s layout", "What each reader changes")', () => {
  it('records past a small head at the indexed head, chained from its head record: sealed, awaiting integration, not LINEAGE_BROKEN', async () => {
    const s = await pastHead(4, 2, 1);
    const client = s.client();
    for (const authentication of AUTHENTICATIONS) {
      const walked = await client.verifyStoredLineage(LINEAGE, { authentication });
      expect(walked.verification.verdict, walked.verification.firstFailure?.reason).toBe('UNVERIFIED_TAMPER_RISK');
      expect(walked.indexed).toMatchObject({ state: 'SEALED_AWAITING_INTEGRATION', awaitingFromSeq: 2 });
      expect(walked.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
      expect(walked.verification.firstFailure?.reason).toMatch(/^sealed, awaiting integration/);
    }
    const { walked } = await client.readVerifiedLineage(LINEAGE);
    expect(walked.indexed?.state).toBe('SEALED_AWAITING_INTEGRATION');
  });

  it('records past a small head ahead of the index are awaiting too; the head behind the index stays LINEAGE_BROKEN', async () => {
    const ahead = await pastHead(4, 1, 2);
    expect((await ahead.client().verifyStoredLineage(LINEAGE)).indexed).toMatchObject({
      state: 'SEALED_AWAITING_INTEGRATION',
      awaitingFromSeq: 1,
    });
    const behind = await pastHead(4, 3, 1);
    for (const authentication of AUTHENTICATIONS) {
      const walked = await behind.client().verifyStoredLineage(LINEAGE, { authentication });
      expect(walked.verification.verdict).toBe('LINEAGE_BROKEN');
      expect(walked.verification.firstFailure?.reason).toMatch(/records past the HEAD/);
    }
  });

  it('records past the head that do not chain from its head record keep their findings', async () => {
    const s = await pastHead(4, 2, 1);
    s.store.tamperRecord(LINEAGE, 2, (record) => {
      (record.header as { parentRecordHash: string }).parentRecordHash = 'ab'.repeat(32);
    });
    const walked = await s.client().verifyStoredLineage(LINEAGE);
    expect(['LINEAGE_BROKEN', 'HASH_MISMATCH']).toContain(walked.verification.verdict);
    expect(walked.verification.firstFailure?.seq).toBe(2);
    expect(walked.verification.firstFailure?.reason).not.toMatch(/records past the HEAD|awaiting/);
  });

  it('records with no head item: awaiting integration where the index does not hold the lineage, LINEAGE_BROKEN where it does', async () => {
    const fresh = integratedStack({ signLineageCheckpoints: false });
    await fresh.send({ lineageId: LINEAGE, residualId: 'r-0' });
    fresh.store.deleteHead(LINEAGE);
    const awaiting = await fresh.client().verifyStoredLineage(LINEAGE);
    expect(awaiting.indexed).toMatchObject({ state: 'SEALED_AWAITING_INTEGRATION', awaitingFromSeq: 0 });
    const indexed = await pastHead(2, 2, 1);
    indexed.store.deleteHead(LINEAGE);
    for (const authentication of AUTHENTICATIONS) {
      const walked = await indexed.client().verifyStoredLineage(LINEAGE, { authentication });
      expect(walked.verification.verdict).toBe('LINEAGE_BROKEN');
      expect(walked.verification.firstFailure?.reason).toMatch(/no HEAD/);
    }
  });
});
