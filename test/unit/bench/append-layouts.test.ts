import { describe, expect, it } from 'vitest';
import { headItem } from '../../../adapters/head-item';
import { markerItem } from '../../../adapters/marker-item';
import { recordItem } from '../../../adapters/record-item';
import { appendPlans, todayItemsOf } from '../../../bench/append-layouts';
import { HeadLayout } from '../../../shared/ports/head-layout';
import { buildChain } from '../../helpers/seal-factories';

// docs/sealing.md, "The append's layout": the bench writes each candidate layout from the items
// today's encoders make, so its sizes are the encoders' and not guesses.
async function todayTransaction() {
  const { records } = await buildChain(2);
  const [first, last] = records as [(typeof records)[0], (typeof records)[0]];
  const lineageId = last.header.lineageId;
  const entry = { record: last, nodes: ['ab'.repeat(32)] };
  const batch = {
    lineageId,
    entries: [entry],
    expectedHead: null,
    headMac: { keyId: 'test-key-1', algorithm: 'HMAC_SHA_256' as const, mac: `${'A'.repeat(43)}=` },
    checkpoint: 'reseal/test-stack/lineage-1\n2\nroot=\n\n— reseal/test-stack sig\n',
    frontier: [first.recordHash],
  };
  const items = {
    record: recordItem(lineageId, entry),
    head: headItem(batch, last, HeadLayout.COMPATIBLE),
    marker: markerItem(lineageId, entry),
  };
  const input = {
    TransactItems: [{ Put: { Item: items.head } }, { Put: { Item: items.record } }, { Put: { Item: items.marker } }],
  };
  return { items, input };
}

describe('appendPlans: the candidate layouts from the items of one append', () => {
  it('finds the record, head and marker items in a transaction as the sealer puts them', async () => {
    const { items, input } = await todayTransaction();
    expect(todayItemsOf(input)).toEqual(items);
    expect(todayItemsOf({ TransactItems: [{ Put: { Item: items.record } }] })).toBeNull();
  });

  it('(b) puts today’s record item, then a head holding only what the head-state MAC covers, then the marker', async () => {
    const { items, input } = await todayTransaction();
    const plans = appendPlans(todayItemsOf(input) ?? items);
    const b = plans.find((plan) => plan.layout.startsWith('(b)'));
    expect(b?.steps.map((step) => step.kind)).toEqual(['put', 'put', 'put']);
    const [record, head, marker] = (b?.steps ?? []).map((step) => (step.kind === 'put' ? step.item : null));
    expect(record).toEqual(items.record);
    expect(marker).toEqual(items.marker);
    expect(Object.keys(head ?? {}).sort()).toEqual([
      'frontier',
      'generationEpoch',
      'headMac',
      'pk',
      'recordHash',
      'seq',
      'sk',
    ]);
    expect(head?.headMac).toEqual(items.head.headMac);
  });

  it('(a) carries the head state in the record item and (c) keeps record and small head in one transaction', async () => {
    const { items } = await todayTransaction();
    const plans = appendPlans(items);
    const a = plans.find((plan) => plan.layout.startsWith('(a)'));
    const last = a?.steps.at(-1);
    expect(last?.kind === 'put' && last.item).toEqual({
      ...items.record,
      headMac: items.head.headMac,
      frontier: items.head.frontier,
    });
    const c = plans.find((plan) => plan.layout.startsWith('(c)'));
    const transaction = c?.steps[0];
    expect(transaction?.kind === 'transact' && transaction.items.map((item) => item.sk?.S)).toEqual([
      items.record.sk?.S,
      'HEAD',
    ]);
    const today = plans.find((plan) => plan.layout.startsWith('today (signed'));
    expect(today?.steps).toEqual([{ kind: 'transact', items: [items.record, items.head, items.marker] }]);
  });
});
