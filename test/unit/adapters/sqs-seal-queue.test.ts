import type { SendMessageBatchCommand, SendMessageBatchCommandOutput, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { deduplicationIdOf } from '../../../adapters/deduplication-id';
import { MAX_SEND_BATCH_ENTRIES, SQSSealQueue, type SQSSend } from '../../../adapters/sqs-seal-queue';
import type { SealRequest } from '../../../shared/pipeline/seal-request';
import { sealRequestBody } from '../../helpers/factories';
import { validWriteRequest } from '../../helpers/guard-factories';

describe('seal-requests MessageDeduplicationId: lineage, residual id and content', () => {
  const base = validWriteRequest({ residualId: 'r-1', lineageId: 'lin-A' });

  it('is 64 lowercase hex chars (≤ 128, the SQS limit), stable for the same write', () => {
    const id = deduplicationIdOf(base);
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(id.length).toBeLessThanOrEqual(128);
    expect(deduplicationIdOf(validWriteRequest({ residualId: 'r-1', lineageId: 'lin-A' }))).toBe(id);
  });

  it('differs for the same residual id in another lineage, or with another payload (SQS must not drop them)', () => {
    const id = deduplicationIdOf(base);
    expect(deduplicationIdOf({ ...base, lineageId: 'lin-Z' })).not.toBe(id);
    expect(deduplicationIdOf({ ...base, payload: { other: true } })).not.toBe(id);
    expect(deduplicationIdOf({ ...base, residualId: 'r-2' })).not.toBe(id);
  });

  it('SQSSealQueue sends with group = lineage id and that dedup id', async () => {
    const sent: SendMessageCommand[] = [];
    const client = { send: async (c: SendMessageCommand) => sent.push(c) } as unknown as SQSSend;
    const request = JSON.parse(sealRequestBody({ residualId: 'r-1', lineageId: 'lin-A' })) as SealRequest;
    await new SQSSealQueue(client, 'https://queue').enqueue(request);
    expect(sent[0]?.input).toMatchObject({
      MessageGroupId: 'lin-A',
      MessageDeduplicationId: deduplicationIdOf(request.request),
    });
  });
});

describe('SQSSealQueue.enqueueBatch: SendMessageBatch, per-entry results mapped back', () => {
  const requests = Array.from(
    { length: 23 },
    (_, i) => JSON.parse(sealRequestBody({ residualId: `r-${i}`, lineageId: `lin-${i % 3}` })) as SealRequest,
  );

  /** A client that answers each batch with `answer` and keeps the batches it was sent. */
  function batchClient(answer: (command: SendMessageBatchCommand) => Partial<SendMessageBatchCommandOutput>) {
    const sent: SendMessageBatchCommand[] = [];
    const client = {
      send: async (command: SendMessageBatchCommand) => {
        sent.push(command);
        return answer(command);
      },
    } as unknown as SQSSend;
    return { client, sent };
  }
  const allTaken = (command: SendMessageBatchCommand) => ({
    Successful: (command.input.Entries ?? []).map((e) => ({ Id: e.Id, MessageId: 'm', MD5OfMessageBody: '' })),
    Failed: [],
  });

  it('sends at most 10 entries per call, in order, each with group = lineage id and its dedup id', async () => {
    const { client, sent } = batchClient(allTaken);
    const results = await new SQSSealQueue(client, 'https://queue').enqueueBatch(requests);
    expect(sent.map((c) => c.input.Entries?.length)).toEqual([MAX_SEND_BATCH_ENTRIES, MAX_SEND_BATCH_ENTRIES, 3]);
    const entries = sent.flatMap((c) => c.input.Entries ?? []);
    expect(entries.map((e) => (JSON.parse(e.MessageBody ?? '') as SealRequest).request.residualId)).toEqual(
      requests.map((r) => r.request.residualId),
    );
    for (const [i, entry] of entries.entries()) {
      expect(entry.MessageGroupId).toBe(requests[i]?.request.lineageId);
      expect(entry.MessageDeduplicationId).toBe(deduplicationIdOf((requests[i] as SealRequest).request));
    }
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
  });

  it('an entry SQS lists as Failed, and every entry of a call that throws, is rejected; the others are fulfilled', async () => {
    let call = 0;
    const { client } = batchClient((command) => {
      call++;
      if (call === 2) throw new Error('SQS throttled');
      const taken = allTaken(command);
      return {
        Successful: taken.Successful.filter((e) => e.Id !== '4'),
        Failed: [{ Id: '4', Code: 'InternalError', SenderFault: false, Message: 'try again' }],
      };
    });
    const results = await new SQSSealQueue(client, 'https://queue').enqueueBatch(requests);
    const rejected = results.flatMap((r, i) => (r.status === 'rejected' ? [i] : []));
    expect(rejected).toEqual([4, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    expect(String((results[4] as PromiseRejectedResult).reason)).toContain('InternalError');
  });

  it('an entry SQS names neither taken nor failed is rejected (retried), never assumed sent', async () => {
    const { client } = batchClient(() => ({ Successful: [], Failed: [] }));
    const results = await new SQSSealQueue(client, 'https://queue').enqueueBatch(requests.slice(0, 2));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
