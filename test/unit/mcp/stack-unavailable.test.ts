import { describe, expect, it } from 'vitest';
import { StackOutputsError, TimeoutError } from '../../../client/errors';
import { MissingPart } from '../../../mcp/missing-part';
import { type StackPlace, stackUnavailableFrom } from '../../../mcp/stack-unavailable';

const PLACE: StackPlace = { stackName: 'ResealStack', outputsFile: null, region: null, endpoint: null };
const named = (name: string, message: string, extra: object = {}) => Object.assign(new Error(message), { name }, extra);

describe('stackUnavailableFrom: what an AWS SDK error shows missing', () => {
  it.each([
    ['no region', new Error('Region is missing'), MissingPart.REGION],
    [
      'an empty region',
      new Error('Region not accepted: region="" is not a valid hostname component.'),
      MissingPart.REGION,
    ],
    [
      'no credentials',
      named('CredentialsProviderError', 'Could not load credentials from any providers'),
      MissingPart.CREDENTIALS,
    ],
    [
      'refused credentials',
      named('UnrecognizedClientException', 'The security token included in the request is invalid'),
      MissingPart.CREDENTIALS,
    ],
    [
      'expired credentials',
      named('ExpiredTokenException', 'The security token included in the request is expired'),
      MissingPart.CREDENTIALS,
    ],
    [
      'an endpoint that does not answer',
      named('Error', 'connect ECONNREFUSED 127.0.0.1:4566', { code: 'ECONNREFUSED' }),
      MissingPart.ENDPOINT,
    ],
    ['an unknown host', named('Error', 'getaddrinfo ENOTFOUND nowhere', { code: 'ENOTFOUND' }), MissingPart.ENDPOINT],
    [
      'no such stack',
      new StackOutputsError(
        'ResealStack',
        'cannot describe the stack (ValidationError: Stack with id ResealStack does not exist)',
        {
          cause: named('ValidationError', 'Stack with id ResealStack does not exist'),
        },
      ),
      MissingPart.STACK,
    ],
    [
      'a stack without an output',
      new StackOutputsError('ResealStack', 'missing outputs LogKeyArn'),
      MissingPart.OUTPUTS,
    ],
    [
      'DescribeStacks without credentials',
      new StackOutputsError('ResealStack', 'cannot describe the stack (…)', {
        cause: named('CredentialsProviderError', 'Could not load credentials from any providers'),
      }),
      MissingPart.CREDENTIALS,
    ],
  ])('%s → %s', (_what, error, missing) => {
    const unavailable = stackUnavailableFrom(error, PLACE);
    expect(unavailable).toMatchObject({ missing, place: PLACE, retryable: true, cause: error });
    expect(unavailable?.message).toContain(`stack ResealStack cannot be reached: ${missing} missing`);
    expect(unavailable?.fix.length).toBeGreaterThan(0);
  });

  it('shows nothing missing for other errors: access denied, a wait that ran out, a bug', () => {
    expect(stackUnavailableFrom(named('AccessDeniedException', 'not authorized'), PLACE)).toBeNull();
    // As resolveStackOutputs wraps it: DescribeStacks denied or throttled is no missing stack.
    for (const name of ['AccessDenied', 'ThrottlingException']) {
      const wrapped = new StackOutputsError('ResealStack', `cannot describe the stack (${name})`, {
        cause: named(name, 'not now'),
      });
      expect(stackUnavailableFrom(wrapped, PLACE), name).toBeNull();
    }
    expect(stackUnavailableFrom(new TimeoutError('triage report', 1_000), PLACE)).toBeNull();
    expect(stackUnavailableFrom(new TypeError('x is undefined'), PLACE)).toBeNull();
    expect(stackUnavailableFrom('a string', PLACE)).toBeNull();
  });
});
