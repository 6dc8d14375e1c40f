import { describe, expect, it } from 'vitest';
import { CallTimer, callTimeTable, timesSince } from '../../../bench/stack/call-timer';
import {
  deliveredBatches,
  eventSourceBatches,
  sealerInvocations,
  sealerThroughput,
} from '../../../bench/stack/event-source-batches';

const handled = (endIso: string, durationMs: number, records: number) =>
  JSON.stringify({
    level: 'INFO',
    message: 'batch handled',
    timestamp: endIso,
    service: 'reseal-sealer',
    records,
    lineages: records,
    failed: 0,
    durationMs,
  });

const LOG = [
  '2026-12-06 01:02:51 INFO [lambda] ESM: Lambda Stack-SealRequestsConsumerFunction-1 processed 10 SQS messages from Stack-seal-requests.fifo',
  '2026-12-06 01:02:51 INFO [lambda] ESM: Lambda Stack-SealRequestsConsumerFunction-1 output:',
  '{"level":"INFO","message":"record sealed","timestamp":"2026-12-06T01:02:51.906Z","function_request_id":"a"}',
  handled('2026-12-06T01:02:51.950Z', 2000, 10),
  '2026-12-06 01:02:53 INFO [lambda] ESM: Lambda Stack-IntegrationConsumerFunction-2 processed 4 SQS messages from Stack-IntegrationQueue (1 partial failures)',
  handled('2026-12-06T01:02:54.450Z', 2000, 6),
  'not json {',
].join('\n');

describe('event source batches and sealer invocations from the MiniStack log (bench:freshness)', () => {
  it('reads each delivered batch: function, queue, records and partial failures', () => {
    expect(eventSourceBatches(LOG)).toEqual([
      {
        atMs: Date.parse('2026-12-06T01:02:51Z'),
        functionName: 'Stack-SealRequestsConsumerFunction-1',
        queueName: 'Stack-seal-requests.fifo',
        records: 10,
        failed: 0,
      },
      {
        atMs: Date.parse('2026-12-06T01:02:53Z'),
        functionName: 'Stack-IntegrationConsumerFunction-2',
        queueName: 'Stack-IntegrationQueue',
        records: 4,
        failed: 1,
      },
    ]);
  });

  it('docs/infrastructure.md "The guard\'s batching window": tells how full one function\'s batches were in a span, failed records included', () => {
    const guard = 'Stack-ResidualWritesConsumerFunction-3';
    const log = [
      `2026-12-06 01:02:49 INFO [lambda] ESM: Lambda ${guard} processed 1 SQS messages from Stack-ResidualWritesQueue`,
      `2026-12-06 01:02:50 INFO [lambda] ESM: Lambda ${guard} processed 10 SQS messages from Stack-ResidualWritesQueue`,
      '2026-12-06 01:02:50 INFO [lambda] ESM: Lambda Stack-SealRequestsConsumerFunction-1 processed 10 SQS messages from Stack-seal-requests.fifo',
      `2026-12-06 01:02:51 INFO [lambda] ESM: Lambda ${guard} processed 7 SQS messages from Stack-ResidualWritesQueue (1 partial failures)`,
      `2026-12-06 01:02:53 INFO [lambda] ESM: Lambda ${guard} processed 3 SQS messages from Stack-ResidualWritesQueue`,
    ].join('\n');
    // From 01:02:50.400 (the whole second 01:02:50 counts) to 01:02:52: the sealer's batch and the ones outside are left out.
    expect(
      deliveredBatches(
        eventSourceBatches(log),
        guard,
        Date.parse('2026-12-06T01:02:50.400Z'),
        Date.parse('2026-12-06T01:02:52Z'),
      ),
    ).toEqual({ batches: 2, records: 18, perInvocation: 9, sizes: [10, 8] });
    expect(deliveredBatches([], guard, 0, Date.now())).toEqual({ batches: 0, records: 0, perInvocation: 0, sizes: [] });
  });

  it("separates the sealer's own time from the queue's wait between invocations", () => {
    const invocations = sealerInvocations(LOG);
    expect(invocations.map((i) => [i.records, i.durationMs])).toEqual([
      [10, 2000],
      [6, 2000],
    ]);
    const t = sealerThroughput(invocations, Date.parse('2026-12-06T01:02:49Z'), Date.parse('2026-12-06T01:03:00Z'));
    // Spans 01:02:49.950 → 01:02:54.450 (4.5 s), 4 s of it in invocations, 0.5 s waiting between them.
    expect(t).toMatchObject({ invocations: 2, records: 16, recordsPerInvocation: 8, gapsMs: [500] });
    expect(t.busy).toBeCloseTo(4 / 4.5, 9);
    expect(t.recordsPerSecond).toBeCloseTo(16 / 4.5, 9);
    // An invocation that started before the window is left out.
    expect(sealerThroughput(invocations, Date.parse('2026-12-06T01:02:50Z'), Date.now()).invocations).toBe(1);
  });

  it('times calls by operation and tells the ones since a snapshot', () => {
    const timer = new CallTimer();
    timer.record('KMS', 'GenerateMac', 40);
    const before = timer.snapshot();
    timer.record('KMS', 'GenerateMac', 60);
    timer.record('DynamoDB', 'GetItem', 500);
    const since = timesSince(timer.snapshot(), before);
    expect([...since]).toEqual([
      ['KMS.GenerateMac', [60]],
      ['DynamoDB.GetItem', [500]],
    ]);
    const table = callTimeTable(since);
    expect(table[2]).toBe('| DynamoDB.GetItem | 1 | 0.5 | 500 | 500 |');
    expect(table[3]).toBe('| KMS.GenerateMac | 1 | 0.1 | 60 | 60 |');
  });
});
