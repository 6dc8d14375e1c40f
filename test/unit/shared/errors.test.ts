import { describe, expect, it } from 'vitest';
import { StrictJsonError, StrictJsonFailure } from '../../../shared/canonical/strict-json-error';
import * as errors from '../../../shared/errors';
import { isRetryable } from '../../../shared/is-retryable';

const HEAD = { lineageId: 'lin-1', seq: 3, recordHash: 'a'.repeat(64), generationEpoch: 2, mac: 'm', keyId: 'k' };

/**
 * One instance of every error class of shared/errors.ts (and of StrictJsonError, beside the strict
 * JSON parser), with whether a retry can help.
 */
const CASES: readonly [errors.ResealError, boolean][] = [
  [new errors.InvalidInputError('request', [{ path: 'a', message: 'bad' }]), false],
  [new StrictJsonError('request', StrictJsonFailure.SYNTAX, [{ path: '', message: 'bad' }]), false],
  [new errors.CanonicalizationError('/a', 'NaN'), false],
  [new errors.StaleWriteError(['token'], [], 'd'), false],
  [new errors.ManifestSealMismatchError('a', 'b'), false],
  [new errors.HeaderTooLargeError(5000), false],
  [new errors.StaleEpochError('lin-1', 3, 2), false],
  [new errors.AnchorUnavailableError('k', 'disabled'), true],
  [new errors.AnchorKeyMismatchError('k', 'j'), false],
  [new errors.CheckpointFormatError('size', 'bad'), false],
  [new errors.NoteFormatError('text', 'bad'), false],
  [new errors.NoteVerificationError('k', 'bad'), false],
  [new errors.CheckpointOriginMismatchError('a', 'b'), false],
  [new errors.WitnessRequestFormatError('old', 'bad'), false],
  [new errors.PolicyFormatError('line 1', 'bad'), false],
  [new errors.MerkleNodeMissingError(0, 1), false],
  [new errors.IndexProofFormatError('depth', 'bad'), false],
  [new errors.IndexNodeMissingError('ab', true), false],
  [new errors.ManifestReadBoundError('ab', 1), false],
  [new errors.IntegrationLeaseHeldError('held by another integration until 1700000000000'), true],
  [new errors.SignerUnavailableError('k', 'throttled'), true],
  [new errors.EventNotAcceptedError('ResidualSealed', 'ThrottlingException', 'slow down'), true],
  [new errors.LogStateError('lin-1', 'forged'), false],
  [new errors.OutcomeVerificationError('bad'), false],
  [new errors.StaleHeadError('lin-1', 2, HEAD), true],
  [new errors.LineageInconsistentError('lin-1', 4, HEAD), false],
  [new errors.LineageNotFoundError('lin-1'), false],
  [new errors.SessionHistoryError(3, 'unknown op'), false],
  [new errors.DuplicateResidualError('r-1', { lineageId: 'lin-1', seq: 1 }), true],
  [new errors.DeploymentLogConflictError('the head moved'), true],
  [new errors.WitnessUnavailableError('unreachable'), true],
  [new errors.IntegrationBacklogError('lin-1', 300, 256), true],
  [new errors.RecordSeqTakenError('lin-1', 4, 0), true],
  [new errors.HeadNotMovedError('lin-1', ['r-1'], 'the head moved on every try'), true],
  [new errors.TenantMismatchError('beta/agent-7', 'acme'), false],
  [new errors.TenantRequiredError(['acme', 'beta'], null), false],
  [new errors.ReAnchorFormatError('lost', 'bad'), false],
  [new errors.ReAnchorRefusedError('not signed by a recovery key'), false],
];

describe('shared/errors: one module, each error saying whether a retry can help', () => {
  it('covers every error class the module exports', () => {
    const classes = Object.values(errors).filter(
      (value: unknown) => typeof value === 'function' && value.prototype instanceof errors.ResealError,
    );
    expect(new Set(CASES.map(([error]) => error.constructor))).toEqual(new Set([...classes, StrictJsonError]));
  });

  it.each(CASES.map(([error, retryable]) => [error.name, error, retryable] as const))(
    '%s: retryable is %s, and isRetryable agrees; its name survives minification',
    (name, error, retryable) => {
      expect(error.retryable).toBe(retryable);
      expect(isRetryable(error)).toBe(retryable);
      expect(error.constructor.name).toBe(name);
      expect(error).toBeInstanceOf(errors.ResealError);
    },
  );

  it('isRetryable is false for anything that is not a Reseal error', () => {
    expect(isRetryable(new Error('retry me'))).toBe(false);
    expect(isRetryable({ retryable: true })).toBe(false);
    expect(isRetryable(undefined)).toBe(false);
  });

  it('InvalidInputError carries what was invalid as a field, not only in its message', () => {
    const error = new errors.InvalidInputError('file at /tmp/a b', [{ path: 'x', message: 'bad' }]);
    expect(error.what).toBe('file at /tmp/a b');
    expect(error.message).toBe('invalid file at /tmp/a b at x: bad');
  });
});
