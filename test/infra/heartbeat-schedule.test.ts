import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResealStack } from '../../infra/reseal-stack';
import { HEARTBEAT_EVENT } from '../../shared/integrator/heartbeat-event';
import { formatVerifierKey, noteVerifierKey } from '../../shared/log/note-key';
import { synthWithNag } from '../helpers/cdk-nag-synth';
import { TEST_LOG_KEY } from '../helpers/pipeline-keys';

// The integrator's heartbeat schedule (docs/deployment-log.md, "Freshness window and interval";
// docs/infrastructure.md, "The heartbeat"). Bundling is skipped: the template is what is tested.
const synthContext = { 'aws:cdk:bundling-stacks': [] };
// The policy names the stack's log (`reseal/ResealStack`): the remote MCP function takes it too.
const stackLog = formatVerifierKey(noteVerifierKey('reseal/ResealStack', TEST_LOG_KEY.publicKey));
const witness = { url: 'https://witness.example/', policy: `log ${stackLog}\nquorum none\n` };

type Resource = { Type: string; Properties?: Record<string, unknown> };

function resourcesOf(
  props: ConstructorParameters<typeof ResealStack>[2] = {},
  app = new App({ context: synthContext }),
) {
  const stack = new ResealStack(app, 'ResealStack', props);
  return { stack, resources: Template.fromStack(stack).toJSON().Resources as Record<string, Resource> };
}

/** A resource's properties (empty when it has none). */
const props = (resource: Resource | undefined): Record<string, unknown> => resource?.Properties ?? {};
/** A function's environment variables. */
const envOf = (resource: Resource | undefined): Record<string, unknown> =>
  (props(resource).Environment as { Variables: Record<string, unknown> } | undefined)?.Variables ?? {};

const ofType = (resources: Record<string, Resource>, type: string) =>
  Object.entries(resources).filter(([, r]) => r.Type === type);

function integratorOf(resources: Record<string, Resource>): [string, Resource] {
  const found = ofType(resources, 'AWS::Lambda::Function').find(
    ([, r]) => envOf(r).POWERTOOLS_SERVICE_NAME === 'reseal-integrator',
  );
  if (!found) throw new Error('no integrator');
  return found;
}

describe('the heartbeat schedule (docs/infrastructure.md, "The heartbeat")', () => {
  it('without a witness there is no schedule; the integrator still gets its threshold, a third of the maximum age', () => {
    const { resources } = resourcesOf();
    expect(ofType(resources, 'AWS::Scheduler::Schedule')).toEqual([]);
    const [, integrator] = integratorOf(resources);
    expect(envOf(integrator).HEARTBEAT_THRESHOLD_SECONDS).toBe('60');
  });

  it('with a witness: one schedule each minute invokes the integrator with the heartbeat input, no retry', () => {
    const { resources } = resourcesOf({ witness });
    const schedules = ofType(resources, 'AWS::Scheduler::Schedule');
    expect(schedules).toHaveLength(1);
    const [integratorId] = integratorOf(resources);
    const props = schedules[0]?.[1].Properties ?? {};
    expect(props.ScheduleExpression).toBe('rate(1 minute)');
    expect(props.State).toBe('ENABLED');
    expect(props.FlexibleTimeWindow).toEqual({ Mode: 'OFF' });
    const target = props.Target as Record<string, unknown>;
    expect(target.Arn).toEqual({ 'Fn::GetAtt': [integratorId, 'Arn'] });
    expect(JSON.parse(String(target.Input))).toEqual(HEARTBEAT_EVENT);
    expect(target.RetryPolicy).toEqual({ MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 });
  });

  it("the schedule's role: assumed by scheduler.amazonaws.com for this account only, and may only invoke the integrator", () => {
    const { resources } = resourcesOf({ witness });
    const [integratorId] = integratorOf(resources);
    const schedule = ofType(resources, 'AWS::Scheduler::Schedule')[0]?.[1];
    const target = props(schedule).Target as { RoleArn: { 'Fn::GetAtt': string[] } };
    const roleId = target.RoleArn['Fn::GetAtt'][0] as string;
    const role = resources[roleId];
    expect(role?.Type).toBe('AWS::IAM::Role');
    const trust = (props(role).AssumeRolePolicyDocument as { Statement: Record<string, unknown>[] }).Statement;
    expect(trust).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      },
    ]);
    expect(role?.Properties?.ManagedPolicyArns).toBeUndefined();
    const statements = ofType(resources, 'AWS::IAM::Policy')
      .filter(([, p]) => ((props(p).Roles ?? []) as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap(([, p]) => (props(p).PolicyDocument as { Statement: Record<string, unknown>[] }).Statement);
    expect(statements.map((s) => [s.Effect, s.Action])).toEqual([['Allow', 'lambda:InvokeFunction']]);
    const targets = JSON.stringify(statements[0]?.Resource);
    expect(targets).toContain(`"${integratorId}"`);
    // No other function of the stack is named.
    for (const [id] of ofType(resources, 'AWS::Lambda::Function')) {
      if (id !== integratorId) expect(targets).not.toContain(`"${id}"`);
    }
  });

  it('heartbeatRate: whole minutes, and the period plus the threshold must stay below the maximum age', () => {
    expect(() => resourcesOf({ witness, heartbeatRate: Duration.seconds(90) })).toThrow(/whole minutes/);
    expect(() => resourcesOf({ witness, heartbeatRate: Duration.minutes(2) })).toThrow(/below the maximum age 180/);
    const { resources } = resourcesOf({
      witness: { ...witness, maxAgeSeconds: 600 },
      heartbeatRate: Duration.minutes(5),
    });
    const schedule = ofType(resources, 'AWS::Scheduler::Schedule')[0]?.[1];
    expect(schedule?.Properties?.ScheduleExpression).toBe('rate(5 minutes)');
    const [, integrator] = integratorOf(resources);
    expect(envOf(integrator).HEARTBEAT_THRESHOLD_SECONDS).toBe('200');
  });
});

describe('cdk-nag AwsSolutions checks on a witnessed stack (with the heartbeat)', () => {
  let outdir: string;
  beforeAll(() => {
    outdir = mkdtempSync(join(tmpdir(), 'reseal-nag-heartbeat-'));
  });
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('report no unacknowledged finding', () => {
    const { failure, violations } = synthWithNag(synthContext, outdir, (app) => {
      resourcesOf({ witness }, app);
    });
    expect(violations).toEqual([]);
    expect(failure).toBeUndefined();
  });
});
