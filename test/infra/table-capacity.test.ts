import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateDeploySettings } from '../../cli/template-deploy-settings';
import {
  DEFAULT_GUARD_BATCHING_WINDOW_SECONDS,
  DEFAULT_INTEGRATION_INTERVAL_SECONDS,
  ResealStack,
  type ResealStackProps,
} from '../../infra/reseal-stack';
import { DEFAULT_DEPLOY_SETTINGS } from '../../shared/cost/deploy-settings';
import { SPARSE_INTERVAL_SECONDS } from '../../shared/cost/index-usage';
import { CAPACITY_TARGET_UTILIZATION_PERCENT } from '../../shared/cost/table-capacity';
import { synthWithNag } from '../helpers/cdk-nag-synth';

// Bundling is skipped (`aws:cdk:bundling-stacks: []`): the template is what is tested here.
const synthContext = { 'aws:cdk:bundling-stacks': [] };

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

const synth = (id: string, props: ResealStackProps = {}) =>
  Template.fromStack(new ResealStack(new App({ context: synthContext }), id, props));

/** The logical id of the lineage table (the stack's one table). */
const tableId = (template: Template) => {
  const ids = Object.keys(template.findResources('AWS::DynamoDB::Table'));
  expect(ids).toHaveLength(1);
  return ids[0] ?? '';
};

describe('the lineage table\'s capacity (docs/infrastructure.md, "Provisioned capacity")', () => {
  let onDemand: Template;
  let provisioned: Template;
  beforeAll(() => {
    onDemand = synth('OnDemand');
    provisioned = synth('Provisioned', { tableCapacity: 'provisioned' });
  });

  it('is on demand by default: PAY_PER_REQUEST, no provisioned throughput, no scalable target or policy', () => {
    onDemand.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      ProvisionedThroughput: Match.absent(),
    });
    onDemand.resourceCountIs('AWS::ApplicationAutoScaling::ScalableTarget', 0);
    onDemand.resourceCountIs('AWS::ApplicationAutoScaling::ScalingPolicy', 0);
    expect(synth('OnDemandNamed', { tableCapacity: 'on-demand' }).toJSON().Resources).toEqual(
      synth('OnDemandNamed').toJSON().Resources,
    );
  });

  it('provisioned: the same table (logical id), its minimum as throughput, read and write auto scaled to 70 % between 5 and 40,000', () => {
    const id = tableId(provisioned);
    expect(id).toBe(tableId(onDemand));
    const table = (provisioned.toJSON().Resources as Resources)[id]?.Properties ?? {};
    expect(table.BillingMode).toBeUndefined(); // PROVISIONED, CloudFormation's default
    expect(table.ProvisionedThroughput).toEqual({ ReadCapacityUnits: 5, WriteCapacityUnits: 5 });
    provisioned.resourceCountIs('AWS::ApplicationAutoScaling::ScalableTarget', 2);
    for (const dimension of ['Read', 'Write']) {
      provisioned.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
        ScalableDimension: `dynamodb:table:${dimension}CapacityUnits`,
        ServiceNamespace: 'dynamodb',
        MinCapacity: 5,
        MaxCapacity: 40_000,
        ResourceId: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([{ Ref: id }])]) }),
      });
      provisioned.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
        PolicyType: 'TargetTrackingScaling',
        TargetTrackingScalingPolicyConfiguration: Match.objectLike({
          PredefinedMetricSpecification: { PredefinedMetricType: `DynamoDB${dimension}CapacityUtilization` },
          TargetValue: 70,
        }),
      });
    }
    provisioned.resourceCountIs('AWS::ApplicationAutoScaling::ScalingPolicy', 2);
    expect(CAPACITY_TARGET_UTILIZATION_PERCENT).toBe(70);
    // The witness stack's table is another stack's, and stays on demand.
  });

  it('takes its bounds from tableMinCapacity and tableMaxCapacity, and refuses bad ones at synth', () => {
    const bounded = synth('Bounded', { tableCapacity: 'provisioned', tableMinCapacity: 20, tableMaxCapacity: 500 });
    bounded.hasResourceProperties('AWS::DynamoDB::Table', {
      ProvisionedThroughput: { ReadCapacityUnits: 20, WriteCapacityUnits: 20 },
    });
    bounded.allResourcesProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      MinCapacity: 20,
      MaxCapacity: 500,
    });
    expect(() => synth('BadMode', { tableCapacity: 'burst' as 'provisioned' })).toThrow(
      /tableCapacity: expected on-demand or provisioned/,
    );
    expect(() => synth('BadMin', { tableCapacity: 'provisioned', tableMinCapacity: 0 })).toThrow(/tableMinCapacity/);
    expect(() => synth('BadMax', { tableCapacity: 'provisioned', tableMaxCapacity: 1.5 })).toThrow(/tableMaxCapacity/);
    expect(() =>
      synth('MinAboveMax', { tableCapacity: 'provisioned', tableMinCapacity: 9, tableMaxCapacity: 8 }),
    ).toThrow(/tableMinCapacity 9 is above tableMaxCapacity 8/);
    expect(() => synth('BoundsOnDemand', { tableMinCapacity: 5 })).toThrow(/need tableCapacity provisioned/);
  });

  it("the deploy estimate reads the settings back from the synthesized template (reseal deploy's)", () => {
    expect(templateDeploySettings(onDemand.toJSON())).toEqual(DEFAULT_DEPLOY_SETTINGS);
    // The estimate's defaults are the stack's.
    expect(DEFAULT_DEPLOY_SETTINGS.guardBatchingWindowSeconds).toBe(DEFAULT_GUARD_BATCHING_WINDOW_SECONDS);
    expect(DEFAULT_DEPLOY_SETTINGS.integrationIntervalSeconds).toBe(DEFAULT_INTEGRATION_INTERVAL_SECONDS);
    expect(SPARSE_INTERVAL_SECONDS).toBe(DEFAULT_INTEGRATION_INTERVAL_SECONDS);
    const all = synth('AllSettings', {
      tableCapacity: 'provisioned',
      tableMinCapacity: 10,
      tableMaxCapacity: 1000,
      guardBatchingWindowSeconds: 1,
      integrationIntervalSeconds: 10,
    });
    expect(templateDeploySettings(all.toJSON())).toEqual({
      guardBatchingWindowSeconds: 1,
      integrationIntervalSeconds: 10,
      tableCapacity: { mode: 'provisioned', minCapacity: 10, maxCapacity: 1000 },
    });
    expect(templateDeploySettings({})).toEqual(DEFAULT_DEPLOY_SETTINGS);
  });
});

describe('cdk-nag AwsSolutions checks, provisioned table', () => {
  let outdir: string;
  beforeAll(() => {
    outdir = mkdtempSync(join(tmpdir(), 'reseal-nag-capacity-'));
  });
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('report no unacknowledged finding', () => {
    const { failure, violations } = synthWithNag(
      synthContext,
      outdir,
      (app) => new ResealStack(app, 'ResealStack', { tableCapacity: 'provisioned' }),
    );
    expect(violations).toEqual([]);
    expect(failure).toBeUndefined();
  });
});
