import { describe, expect, it } from 'vitest';
import {
  LogVerificationError,
  PublishError,
  StackOutputsError,
  TimeoutError,
  UnverifiedOutcomeError,
} from '../../../client/errors';
import { isRetryable } from '../../../shared/is-retryable';

describe('client errors say whether a retry can help', () => {
  it('a wait that ran out can be waited again; a missing output, a failed verification cannot', () => {
    expect(new TimeoutError('report', 10).retryable).toBe(true);
    expect(new StackOutputsError('s', 'no output').retryable).toBe(false);
    expect(new LogVerificationError('lin-1', 'HASH_MISMATCH', 'edited').retryable).toBe(false);
    expect(new UnverifiedOutcomeError('lin-1', 'r-1', 3, 'HASH_MISMATCH', 'edited').retryable).toBe(false);
  });

  it('PublishError: retryable for no code or a transient EventBridge code, not for other codes', () => {
    expect(isRetryable(new PublishError('no id', null))).toBe(true);
    expect(isRetryable(new PublishError('busy', 'ThrottlingException'))).toBe(true);
    expect(isRetryable(new PublishError('oops', 'InternalFailure'))).toBe(true);
    expect(isRetryable(new PublishError('denied', 'AccessDeniedException'))).toBe(false);
    expect(isRetryable(new PublishError('bad', 'MalformedDetail'))).toBe(false);
  });
});
