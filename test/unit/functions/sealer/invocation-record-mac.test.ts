import { describe, expect, it, vi } from 'vitest';
import { RecordSeqTakenError } from '../../../../shared/errors';
import { isIntact } from '../../../../shared/seal/is-intact';
import { checkRecordIntegrity } from '../../../../shared/seal/record-integrity';
import type { SealedRecord } from '../../../../shared/seal/sealed-record';
import { verifyRecordMac } from '../../../../shared/seal/verify-record-mac';
import { lambdaContext, sealRequestBody, sqsEvent, sqsRecord } from '../../../helpers/factories';
import { testAnchor } from '../../../helpers/seal-factories';
import { testSealerHandler } from '../../../helpers/service-factories';
import { testLineageId } from '../../../helpers/writer-factories';

const LINEAGES = Array.from({ length: 5 }, (_, i) => testLineageId(`lineage-records-${i}`));
const [A, B, C] = LINEAGES as [string, string, string];

/** The sealer handler on in-memory fakes, its KMS anchor's `generateMac` counted. */
function sealer() {
  const kms = testAnchor();
  const generateMac = vi.spyOn(kms, 'generateMac');
  const { store, handler } = testSealerHandler({ anchor: kms, sleep: async () => {} });
  const send = (records: ReturnType<typeof sqsRecord>[]) => handler(sqsEvent(records), lambdaContext());
  /** The records stored for `lineageId`, in seq order. */
  const stored = (lineageId: string) =>
    [...(store.records.get(lineageId)?.values() ?? [])].map((text) => JSON.parse(text) as SealedRecord);
  /** Whether a stored record verifies on its own: its own hashes, then its MAC (by its place, for a batch). */
  const verifies = async (record: SealedRecord) => {
    const intact = checkRecordIntegrity(record);
    return isIntact(intact) && (await verifyRecordMac(kms, intact.record, intact.message)) === true;
  };
  return { kms, generateMac, store, send, stored, verifies };
}

const write = (lineageId: string, residualId: string) =>
  sqsRecord(sealRequestBody({ residualId, lineageId }), lineageId);

describe('one record MAC per sealer invocation (docs/sealing.md, "The record and its seal")', () => {
  it('an invocation of 5 lineages, two writes each, makes one GenerateMac for its 10 records (none for their heads, MACed under the notice data key)', async () => {
    const s = sealer();
    const records = LINEAGES.flatMap((lineageId) => [write(lineageId, 'r-0'), write(lineageId, 'r-1')]);
    expect((await s.send(records)).batchItemFailures).toEqual([]);
    expect(s.generateMac).toHaveBeenCalledTimes(1);
    const all = LINEAGES.flatMap((lineageId) => s.stored(lineageId));
    expect(all).toHaveLength(10);
    expect(new Set(all.map((record) => record.anchor.mac)).size).toBe(1);
    expect(new Set(all.map((record) => record.macBatch?.index))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
    for (const record of all) {
      expect(record.macBatch?.size).toBe(10);
      expect(record.macBatch?.path.length).toBeLessThanOrEqual(4);
      expect(await s.verifies(record)).toBe(true);
    }
  });

  it('an invocation of one record gives it the single form (the MAC of its header bytes, no place)', async () => {
    const s = sealer();
    expect((await s.send([write(A, 'r-0')])).batchItemFailures).toEqual([]);
    const [record] = s.stored(A);
    expect(record).not.toHaveProperty('macBatch');
    expect(await s.verifies(record as SealedRecord)).toBe(true);
  });

  it('never deadlocks: a group refused outright and one that throws before its records leave the batch to the others at once', async () => {
    const s = sealer();
    const logHead = s.store.logHead.bind(s.store);
    s.store.logHead = async (lineageId: string) => {
      if (lineageId === C) throw new Error('DynamoDB unavailable');
      return logHead(lineageId);
    };
    const records = [sqsRecord('not json', LINEAGES[3] as string), write(A, 'r-0'), write(B, 'r-0'), write(C, 'r-0')];
    const started = Date.now();
    const response = await s.send(records);
    // Well under the batch's 1 s deadline: nobody waited for the groups that left.
    expect(Date.now() - started).toBeLessThan(900);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([records[3]?.messageId]);
    const sealed = [...s.stored(A), ...s.stored(B)];
    expect(sealed.map((record) => record.macBatch?.size)).toEqual([2, 2]);
    for (const record of sealed) expect(await s.verifies(record)).toBe(true);
    expect(s.stored(C)).toEqual([]);
  });

  it('a run whose batch MAC fails (KMS throttled) fails its group and every group waiting on the batch; nothing is stored', async () => {
    const s = sealer();
    s.generateMac.mockRejectedValueOnce(new Error('KMS throttled'));
    const records = [write(A, 'r-0'), write(B, 'r-0')];
    const response = await s.send(records);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(records.map((r) => r.messageId));
    expect([...s.stored(A), ...s.stored(B)]).toEqual([]);
  });

  it('a retry after a lost race gets a MAC of its own; the batch MAC made for the record that was not stored is not on it', async () => {
    const s = sealer();
    let raced = false;
    s.store.beforeAppend = (batch) => {
      if (batch.lineageId === A && !raced) {
        raced = true;
        throw new RecordSeqTakenError(A, 0, 0);
      }
    };
    expect((await s.send([write(A, 'r-0'), write(B, 'r-0')])).batchItemFailures).toEqual([]);
    const [a] = s.stored(A) as [SealedRecord];
    const [b] = s.stored(B) as [SealedRecord];
    expect(b.macBatch?.size).toBe(2);
    expect(a).not.toHaveProperty('macBatch');
    expect(a.anchor.mac).not.toBe(b.anchor.mac);
    expect(await s.verifies(a)).toBe(true);
    expect(await s.verifies(b)).toBe(true);
  });
});
