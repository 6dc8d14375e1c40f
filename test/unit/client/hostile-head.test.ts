import { describe, expect, it } from 'vitest';
import { LogVerificationError } from '../../../client/errors';
import { readLineageExport } from '../../../client/read-export';
import { ResealClient } from '../../../client/reseal-client';
import type { LineageHead } from '../../../shared/seal/lineage-head';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { appendSealed, TEST_CLIENT_KEYS } from '../../helpers/pipeline-keys';
import { buildChain, TEST_LINEAGE_ID, testAnchor } from '../../helpers/seal-factories';

// The table writer stores a head whose seq is far past the records (a safe integer the walk
// could read towards page by page) or no sequence number at all (what the item codec makes of
// `1e100` or a seq stored as text: -1). Every walk is bounded by what is stored.

async function stored(length: number): Promise<InMemoryLineageStore> {
  const store = new InMemoryLineageStore();
  await appendSealed(store, (await buildChain(length)).records);
  return store;
}
const headOf = (store: InMemoryLineageStore): LineageHead => store.heads.get(TEST_LINEAGE_ID) as LineageHead;
const client = (store: InMemoryLineageStore) =>
  new ResealClient(TEST_CLIENT_OUTPUTS, { ...TEST_CLIENT_KEYS, store, anchor: testAnchor() });

describe('a hostile head seq never makes a reader walk past the stored records', () => {
  it('head seq 2^53 − 1 (5 records) → TRUNCATION_DETECTED after reading only the stored pages', async () => {
    const store = await stored(5);
    store.setHead({ ...headOf(store), seq: Number.MAX_SAFE_INTEGER });
    for (const pageSize of [1, 2, 500]) {
      const result = await client(store).verifyLineage(TEST_LINEAGE_ID, { pageSize });
      expect(result.verdict, `pageSize ${pageSize}`).toBe('TRUNCATION_DETECTED');
      expect(result.records).toHaveLength(5);
      const exported = await readLineageExport(store, TEST_LINEAGE_ID, 0, { pageSize });
      expect(exported.records).toHaveLength(5);
    }
  });

  it('head seq not a sequence number (-1, as the codec reads 1e100 or "3") → LINEAGE_BROKEN "malformed HEAD"', async () => {
    const store = await stored(3);
    store.setHead({ ...headOf(store), seq: -1 });
    const result = await client(store).verifyLineage(TEST_LINEAGE_ID);
    expect(result.verdict).toBe('LINEAGE_BROKEN');
    expect(result.firstFailure?.reason).toMatch(/^malformed HEAD/);
  });

  it('an export of a malformed head is refused (LINEAGE_BROKEN), never a file its verifier calls bad input', async () => {
    const store = await stored(3);
    store.setHead({ ...headOf(store), seq: -1 });
    const refused = client(store).exportLineage(TEST_LINEAGE_ID);
    await expect(refused).rejects.toBeInstanceOf(LogVerificationError);
    await expect(refused).rejects.toMatchObject({ verdict: 'LINEAGE_BROKEN' });
  });
});
