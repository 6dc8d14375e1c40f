import { describe, expect, it } from 'vitest';
import { ResealClient } from '../../../client/reseal-client';
import { UnavailableMacAnchor } from '../../../client/unavailable-mac-anchor';
import { LineageNotFoundError } from '../../../shared/errors';
import type { MacAnchor } from '../../../shared/ports/mac-anchor';
import type { LineageHead } from '../../../shared/seal/lineage-head';
import type { SealedRecord } from '../../../shared/seal/sealed-record';
import { verifyLineagePages } from '../../../shared/seal/verify-lineage-pages';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { appendSealed, TEST_CLIENT_KEYS } from '../../helpers/pipeline-keys';
import { buildChain, TEST_LINEAGE_ID, testAnchor } from '../../helpers/seal-factories';

const OUTPUTS = TEST_CLIENT_OUTPUTS;

/** A stored lineage of `length` records appended through the store (head at `length - 1`). */
async function stored(length: number): Promise<{ store: InMemoryLineageStore; records: SealedRecord[] }> {
  const store = new InMemoryLineageStore();
  const { records } = await buildChain(length);
  await appendSealed(store, records);
  return { store, records };
}

function headOf(store: InMemoryLineageStore): LineageHead {
  const head = store.heads.get(TEST_LINEAGE_ID);
  if (!head) throw new Error('no head');
  return head;
}

const client = (store: InMemoryLineageStore, anchor: MacAnchor = testAnchor()) =>
  new ResealClient(OUTPUTS, { ...TEST_CLIENT_KEYS, store, anchor });
const PAGE_SIZES = [1, 2, 3, 500];

describe('online verification checks the stored HEAD against the records (a claim, not a checkpoint)', () => {
  it('the last record deleted, HEAD left at seq 3 → TRUNCATION_DETECTED naming the head (was VERIFIED_INTACT)', async () => {
    const { store } = await stored(4);
    store.deleteRecord(TEST_LINEAGE_ID, 3);
    for (const pageSize of PAGE_SIZES) {
      const result = await client(store).verifyLineage(TEST_LINEAGE_ID, { pageSize });
      expect(result.verdict, `pageSize ${pageSize}`).toBe('TRUNCATION_DETECTED');
      expect(result.firstFailure).toMatchObject({ seq: 3, verdict: 'TRUNCATION_DETECTED' });
      expect(result.firstFailure?.reason).toBe('truncated: the stored HEAD claims seq 3 but the records end at seq 2');
      expect(result.records).toHaveLength(3);
    }
  });

  it('the HEAD item deleted (records 0–2 present) → LINEAGE_BROKEN "no HEAD", not 0 records and VERIFIED_INTACT', async () => {
    const { store } = await stored(3);
    store.deleteHead(TEST_LINEAGE_ID);
    for (const pageSize of PAGE_SIZES) {
      const result = await client(store).verifyLineage(TEST_LINEAGE_ID, { pageSize });
      expect(result.verdict, `pageSize ${pageSize}`).toBe('LINEAGE_BROKEN');
      expect(result.records).toHaveLength(3);
      expect(result.firstFailure?.reason).toMatch(/^no HEAD: records are stored up to seq 2/);
    }
  });

  it('HEAD rewound to seq 1 (4 records) → records 2 and 3 are read and LINEAGE_BROKEN "records past the HEAD"', async () => {
    const { store, records } = await stored(4);
    store.setHead({ ...headOf(store), seq: 1, recordHash: (records[1] as SealedRecord).recordHash });
    for (const pageSize of PAGE_SIZES) {
      const progress: number[] = [];
      const result = await client(store).verifyLineage(TEST_LINEAGE_ID, {
        pageSize,
        onProgress: (p) => progress.push(p.total),
      });
      expect(result.verdict, `pageSize ${pageSize}`).toBe('LINEAGE_BROKEN');
      expect(result.records).toHaveLength(4);
      expect(result.firstFailure).toMatchObject({ seq: 2, verdict: 'LINEAGE_BROKEN' });
      expect(result.firstFailure?.reason).toContain('the stored head claims seq 1 but records go on to seq 3');
      expect(new Set(progress)).toEqual(new Set([4]));
    }
  });

  it('a HEAD whose recordHash is not the record at its seq → LINEAGE_BROKEN "HEAD mismatch"', async () => {
    const { store } = await stored(4);
    store.setHead({ ...headOf(store), recordHash: 'f'.repeat(64) });
    const result = await client(store).verifyLineage(TEST_LINEAGE_ID, { pageSize: 2 });
    expect(result.verdict).toBe('LINEAGE_BROKEN');
    expect(result.firstFailure).toMatchObject({ seq: 3 });
    expect(result.firstFailure?.reason).toMatch(/^HEAD mismatch/);
  });

  it('a HEAD past every record (all records deleted) → TRUNCATION_DETECTED', async () => {
    const { store } = await stored(2);
    store.records.delete(TEST_LINEAGE_ID);
    const result = await client(store).verifyLineage(TEST_LINEAGE_ID);
    expect(result.verdict).toBe('TRUNCATION_DETECTED');
    expect(result.firstFailure?.reason).toBe('truncated: the stored HEAD claims seq 1 but no record is stored');
  });

  it('a lineage with neither records nor head is not found (never VERIFIED_INTACT); with a checkpoint it is truncated', async () => {
    const store = new InMemoryLineageStore();
    await expect(client(store).verifyLineage('never-existed')).rejects.toBeInstanceOf(LineageNotFoundError);
    await expect(client(store).exportLineage('never-existed')).rejects.toThrow(
      'lineage never-existed not found: no records and no head',
    );
    const result = await client(store).verifyLineage('never-existed', {
      checkpoint: { seq: 0, recordHash: 'a'.repeat(64) },
    });
    expect(result.verdict).toBe('TRUNCATION_DETECTED');
  });

  it('a definite break in the records wins over the head finding; the head finding wins over an unverifiable MAC', async () => {
    const { store, records } = await stored(4);
    store.setHead({ ...headOf(store), seq: 1, recordHash: (records[1] as SealedRecord).recordHash });
    store.tamperRecord(TEST_LINEAGE_ID, 0, (r) => {
      r.payload = { edited: true };
    });
    expect((await client(store).verifyLineage(TEST_LINEAGE_ID)).verdict).toBe('HASH_MISMATCH');
    const rewound = await stored(4);
    rewound.store.setHead({
      ...headOf(rewound.store),
      seq: 1,
      recordHash: (rewound.records[1] as SealedRecord).recordHash,
    });
    const unavailable = new UnavailableMacAnchor('test-key-1', 'KMS unreachable');
    expect((await client(rewound.store, unavailable).verifyLineage(TEST_LINEAGE_ID)).verdict).toBe('LINEAGE_BROKEN');
  });

  it('a consistent lineage stays VERIFIED_INTACT (the head agrees with the records)', async () => {
    const { store } = await stored(5);
    for (const pageSize of PAGE_SIZES) {
      expect(
        (await verifyLineagePages(store, { lineageId: TEST_LINEAGE_ID, anchor: testAnchor(), pageSize })).verdict,
      ).toBe('VERIFIED_INTACT');
    }
  });

  it('export reads past a rewound head and verifyExport (as inspect --lineage) reports LINEAGE_BROKEN', async () => {
    const { store, records } = await stored(4);
    store.setHead({ ...headOf(store), seq: 1, recordHash: (records[1] as SealedRecord).recordHash });
    const exported = await client(store).exportLineage(TEST_LINEAGE_ID, { pageSize: 1 });
    expect(exported.records).toHaveLength(4);
    expect(exported.head?.seq).toBe(1);
    expect((await client(store).verifyExport(exported)).verdict).toBe('LINEAGE_BROKEN');
    store.deleteHead(TEST_LINEAGE_ID);
    const headless = await client(store).exportLineage(TEST_LINEAGE_ID);
    expect(headless.records).toHaveLength(4);
    expect((await client(store).verifyExport(headless)).verdict).toBe('LINEAGE_BROKEN');
  });
});
