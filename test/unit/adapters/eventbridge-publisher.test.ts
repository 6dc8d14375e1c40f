import { describe, expect, it } from 'vitest';
import { EventBridgePublisher, type EventBridgeSend } from '../../../adapters/eventbridge-publisher';
import { EventNotAcceptedError, ResealError } from '../../../shared/errors';
import { isRetryable } from '../../../shared/is-retryable';
import type { ResidualRejectedDetail } from '../../../shared/pipeline/residual-rejected-detail';

const answering = (out: object): EventBridgeSend => ({ send: async () => out }) as unknown as EventBridgeSend;

describe('EventBridgePublisher', () => {
  it('an entry the bus refuses is a retryable EventNotAcceptedError of the ResealError hierarchy', async () => {
    const publisher = new EventBridgePublisher(
      answering({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' }] }),
      'bus',
    );
    const error = await publisher.residualRejected({} as ResidualRejectedDetail).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventNotAcceptedError);
    expect(error).toBeInstanceOf(ResealError);
    expect(isRetryable(error)).toBe(true);
    expect(error).toMatchObject({ detailType: 'ResidualRejected', code: 'ThrottlingException' });
  });

  it('an accepted entry resolves', async () => {
    const publisher = new EventBridgePublisher(
      answering({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] }),
      'bus',
    );
    await expect(publisher.residualRejected({} as ResidualRejectedDetail)).resolves.toBeUndefined();
  });
});
