import type { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { deduplicationIdOf, SQSSealQueue, type SQSSend } from '../../../adapters/sqs-seal-queue';
import type { SealRequest } from '../../../shared/pipeline/messages';
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
