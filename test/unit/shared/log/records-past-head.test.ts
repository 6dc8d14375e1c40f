import { describe, expect, it } from 'vitest';
import { emptyLogState } from '../../../../shared/log/log-state';
import { checkRecordsPastHead } from '../../../../shared/log/records-past-head';
import { buildChain, cloneRecord, testAnchor } from '../../../helpers/seal-factories';

const LINEAGE = 'lin-past-head';
const OTHER = 'lin-other';

describe('records stored past a head item (docs/sealing.md, "The roll-forward")', () => {
  it("a record of another lineage copied past this lineage's head is refused, and its residual id never counts as sealed here", async () => {
    const anchor = testAnchor();
    // Intact records whose MAC verifies: the sealer made them, for another lineage.
    const { records } = await buildChain(2, { lineageId: OTHER, anchor });
    const checked = await checkRecordsPastHead(emptyLogState(LINEAGE), records.map(cloneRecord), anchor);
    expect('reason' in checked && checked.reason).toMatch(
      /is seq 0 of lin-other \(a gap or a record of another place\)/,
    );
    expect('reason' in checked && [...checked.sealedResidualIds]).toEqual([]);
  });

  it("on a refusal, the residual ids of this lineage's records whose MAC verifies still count, those of another lineage's records past them do not", async () => {
    const anchor = testAnchor();
    const own = await buildChain(1, { lineageId: LINEAGE, anchor });
    const foreign = await buildChain(2, { lineageId: OTHER, anchor, inputs: (i) => ({ residualId: `other-${i}` }) });
    const raws = [own.records[0], foreign.records[1]].map(cloneRecord);
    const checked = await checkRecordsPastHead(emptyLogState(LINEAGE), raws, anchor);
    expect('reason' in checked && checked.reason).toMatch(/a gap or a record of another place/);
    expect('reason' in checked && [...checked.sealedResidualIds]).toEqual(['residual-0']);
  });
});
