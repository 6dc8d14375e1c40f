import { describe, expect, it } from 'vitest';
import { noticeVouchedHeads } from '../../../../shared/integrator/notice-vouched-heads';
import { FakeLineage } from '../../../helpers/integrator-factories';

describe('noticeVouchedHeads (docs/deployment-log.md, "Integration", step 2)', () => {
  it("gives the heads the batch's notices of one lineage name, in order, and none of another lineage's", () => {
    const a = new FakeLineage('lin-a').seal('r-0');
    const first = a.notice(0);
    a.seal('r-1');
    const second = a.notice(1);
    const b = new FakeLineage('lin-b').seal('r-0');
    const notices = [first, b.notice(0), second];
    expect(noticeVouchedHeads('lin-a', notices)).toEqual([a.head(1), a.head(2)]);
    expect(noticeVouchedHeads('lin-b', notices)).toEqual([b.head(1)]);
    expect(noticeVouchedHeads('lin-c', notices)).toEqual([]);
  });
});
