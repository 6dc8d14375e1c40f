import { describe, expect, it } from 'vitest';
import { remoteFreshnessPolicy } from '../../../../functions/mcp/remote-freshness-policy';
import { InvalidInputError } from '../../../../shared/errors';
import { formatVerifierKey, noteVerifierKey } from '../../../../shared/log/note-key';
import { witnessedTestPolicy } from '../../../helpers/integrated-stack';
import { TEST_LOG_KEY, TEST_LOG_NAME } from '../../../helpers/pipeline-keys';

// The remote MCP function's policy, read at cold start from FRESHNESS_POLICY,
// FRESHNESS_MAX_AGE_SECONDS and INTEGRATION_INTERVAL_SECONDS (docs/mcp.md, "Freshness").
describe('remoteFreshnessPolicy (docs/mcp.md, "Freshness")', () => {
  it('reads the policy as every client does, with its maximum age and the interval', async () => {
    const text = (await witnessedTestPolicy()).text;
    const policy = remoteFreshnessPolicy({ policy: text, maxAgeSeconds: '90', intervalSeconds: '4' }, TEST_LOG_NAME);
    expect(policy).toMatchObject({
      text,
      maxAgeSeconds: 90,
      intervalSeconds: 4,
      witnessing: 'WITNESSED',
      windowSeconds: 94,
    });
    expect(remoteFreshnessPolicy({ policy: text }, TEST_LOG_NAME)).toMatchObject({
      maxAgeSeconds: 180,
      windowSeconds: 182,
    });
  });

  it("no policy (unset or empty): null, the stack's default", () => {
    expect(remoteFreshnessPolicy({}, TEST_LOG_NAME)).toBeNull();
    expect(remoteFreshnessPolicy({ policy: '', maxAgeSeconds: '180', intervalSeconds: '2' }, TEST_LOG_NAME)).toBeNull();
  });

  it('refuses, naming the variable: a malformed policy, one of another log, a maximum age or interval that is not whole seconds', async () => {
    const text = (await witnessedTestPolicy()).text;
    const other = `log ${formatVerifierKey(noteVerifierKey('reseal/OtherStack', TEST_LOG_KEY.publicKey))}\nquorum none\n`;
    const cases: [Parameters<typeof remoteFreshnessPolicy>[0], RegExp][] = [
      [{ policy: 'quorum w9\n' }, /FRESHNESS_POLICY: not a valid tlog-policy/],
      [{ policy: 'log x\r\nquorum none\n' }, /FRESHNESS_POLICY: not a valid tlog-policy/],
      [{ policy: other }, /FRESHNESS_POLICY: names no log of origin reseal\/test-stack/],
      [{ policy: text, maxAgeSeconds: '0' }, /FRESHNESS_MAX_AGE_SECONDS: expected a positive whole number/],
      [{ policy: text, maxAgeSeconds: '1e3' }, /FRESHNESS_MAX_AGE_SECONDS/],
      [{ policy: text, intervalSeconds: '-2' }, /INTEGRATION_INTERVAL_SECONDS/],
      [{ maxAgeSeconds: 'soon' }, /FRESHNESS_MAX_AGE_SECONDS/],
    ];
    for (const [settings, message] of cases) {
      expect(() => remoteFreshnessPolicy(settings, TEST_LOG_NAME), JSON.stringify(settings)).toThrow(InvalidInputError);
      expect(() => remoteFreshnessPolicy(settings, TEST_LOG_NAME), JSON.stringify(settings)).toThrow(message);
    }
  });
});
