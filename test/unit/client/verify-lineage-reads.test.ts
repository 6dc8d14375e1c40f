import { describe, expect, it } from 'vitest';
import { integratedStack } from '../../helpers/integrated-stack';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-verify-reads');

/** Counts the head-item reads (`logHead`, `head`) and record reads the client makes through the table fake. */
function counting(s: ReturnType<typeof integratedStack>) {
  const counts = { logHead: 0, head: 0, readRecord: 0 };
  const store = s.store;
  const [logHead, head, readRecord] = [store.logHead.bind(store), store.head.bind(store), store.readRecord.bind(store)];
  store.logHead = async (id) => {
    counts.logHead += 1;
    return logHead(id);
  };
  store.head = async (id) => {
    counts.head += 1;
    return head(id);
  };
  store.readRecord = async (id, seq) => {
    counts.readRecord += 1;
    return readRecord(id, seq);
  };
  return counts;
}

// docs/verifiable-log.md, "Verifying a whole lineage": the walk reads the head item once and
// threads it through (its plan, the stored head claim, the log state the sealer authenticates).
describe('reseal verify --lineage reads the head item once (ResealClient.verifyStoredLineage)', () => {
  for (const signLineageCheckpoints of [true, false]) {
    for (const authentication of ['signed-tree', 'macs'] as const) {
      it(`${signLineageCheckpoints ? 'a signed head' : "a head the sealer MAC'd"}, ${authentication}`, async () => {
        const s = integratedStack({ signLineageCheckpoints });
        for (const id of ['r-0', 'r-1', 'r-2']) await s.send({ lineageId: LINEAGE, residualId: id });
        await s.integrate();
        const client = s.client();
        const counts = counting(s);
        const walked = await client.verifyStoredLineage(LINEAGE, { authentication });
        expect(walked.verification.verdict, walked.verification.firstFailure?.reason).toBe('VERIFIED_INTACT');
        expect({ logHead: counts.logHead, head: counts.head }).toEqual({ logHead: 1, head: 0 });
        // The last record is read by seq at most once (proven as the tree's last leaf, and its freshness).
        expect(counts.readRecord).toBeLessThanOrEqual(1);
      });
    }
  }
});
