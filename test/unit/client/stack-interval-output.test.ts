import { describe, expect, it } from 'vitest';
import { StackOutputsError } from '../../../client/errors';
import { defaultPolicyText, freshnessPolicy } from '../../../client/freshness-policy';
import { ResealClient } from '../../../client/reseal-client';
import { clientOutputsFrom } from '../../../client/stack-outputs';
import { StackPinSchema, stackPinOf } from '../../../client/stack-pin';
import { formatCosignerKey } from '../../../shared/witness/cosigner-key';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { TEST_CLIENT_KEYS, TEST_GUARD_KEY, TEST_LOG_KEY, TEST_SEALER_KEY } from '../../helpers/pipeline-keys';
import { testCosignerKey } from '../../helpers/witness-factories';

// docs/deployment-log.md, "Freshness window and interval": the window is maximum age + the stack's interval.
const CFN_OUTPUTS = {
  TableName: 't',
  ResidualWritesQueueUrl: 'http://q',
  EventBusName: 'b',
  MacKeyArn: 'mac',
  LogKeyArn: 'log',
  GuardKeyArn: 'guard',
  SealerKeyArn: 'sealer',
  LogName: 'reseal/ResealStack',
};

describe('the IntegrationIntervalSeconds output', () => {
  it('is read as whole seconds when present', () => {
    expect(clientOutputsFrom({ ...CFN_OUTPUTS, IntegrationIntervalSeconds: '10' }).integrationIntervalSeconds).toBe(10);
  });

  it('is absent from the client outputs of a stack deployed before it (the default 2 s applies)', () => {
    expect(clientOutputsFrom(CFN_OUTPUTS)).not.toHaveProperty('integrationIntervalSeconds');
  });

  it.each(['0', '301', '2.5', '', ' 10', 'ten', '-1'])(
    'refuses %j, naming the output, never reading it as 2',
    (bad) => {
      expect(() => clientOutputsFrom({ ...CFN_OUTPUTS, IntegrationIntervalSeconds: bad })).toThrow(StackOutputsError);
      expect(() => clientOutputsFrom({ ...CFN_OUTPUTS, IntegrationIntervalSeconds: bad })).toThrow(
        /IntegrationIntervalSeconds/,
      );
    },
  );
});

describe('the stack pin and the integration interval', () => {
  const keys = { logKey: TEST_LOG_KEY, guardKey: TEST_GUARD_KEY, sealerKey: TEST_SEALER_KEY };
  const pinOf = (outputs: Record<string, unknown>) => ({
    ...stackPinOf({ stackName: 'ResealStack', outputs: TEST_CLIENT_OUTPUTS, ...keys }),
    outputs: { ...TEST_CLIENT_OUTPUTS, ...outputs },
  });

  it('keeps the interval when the outputs name one, and reads a pin without it', () => {
    const pinned = stackPinOf({
      stackName: 'ResealStack',
      outputs: { ...TEST_CLIENT_OUTPUTS, integrationIntervalSeconds: 10 },
      ...keys,
    });
    expect(StackPinSchema.parse(JSON.parse(JSON.stringify(pinned))).outputs.integrationIntervalSeconds).toBe(10);
    expect(StackPinSchema.parse(pinOf({})).outputs).not.toHaveProperty('integrationIntervalSeconds');
  });

  it.each([0, 301, 2.5, '10'])('refuses an interval of %j, naming the field', (bad) => {
    const parsed = StackPinSchema.safeParse(pinOf({ integrationIntervalSeconds: bad }));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['outputs', 'integrationIntervalSeconds']);
  });
});

describe("ResealClient states the window with the stack's interval", () => {
  const witnessed = async () =>
    defaultPolicyText(TEST_LOG_KEY, { vkey: formatCosignerKey(await testCosignerKey()), url: 'http://127.0.0.1:9/' });

  it('a policy read with the default 2 s: maximum age + 10 s when the outputs say 10', async () => {
    const policy = freshnessPolicy(await witnessed(), 180);
    const client = new ResealClient(
      { ...TEST_CLIENT_OUTPUTS, integrationIntervalSeconds: 10 },
      {
        ...TEST_CLIENT_KEYS,
        policy,
      },
    );
    expect(await client.freshnessPolicy()).toMatchObject({
      maxAgeSeconds: 180,
      intervalSeconds: 10,
      windowSeconds: 190,
    });
  });

  it('the default policy carries the stack interval; outputs without one keep the given policy as is', async () => {
    const stack = new ResealClient({ ...TEST_CLIENT_OUTPUTS, integrationIntervalSeconds: 10 }, TEST_CLIENT_KEYS);
    expect(await stack.freshnessPolicy()).toMatchObject({ intervalSeconds: 10, windowSeconds: null });
    const policy = freshnessPolicy(await witnessed(), 60);
    const old = new ResealClient(TEST_CLIENT_OUTPUTS, { ...TEST_CLIENT_KEYS, policy });
    expect(await old.freshnessPolicy()).toBe(policy);
    expect(policy.windowSeconds).toBe(62);
  });
});
