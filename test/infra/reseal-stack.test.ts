import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, RemovalPolicy } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STACK_OUTPUT_KEYS } from '../../client/stack-outputs';
import { SEAL_QUEUE_RETENTION_SECONDS } from '../../functions/sealer/seal-request-check';
import { VISIBILITY_TO_TIMEOUT_RATIO } from '../../infra/constructs/event-source-visibility-timeout';
import {
  DEFAULT_MAX_RECEIVE_COUNT,
  MAX_MESSAGE_SIZE_BYTES,
  QUEUE_RETENTION,
} from '../../infra/constructs/queue-consumer';
import { RESEAL_RUNTIME } from '../../infra/constructs/reseal-function';
import { eventBusNameOf } from '../../infra/event-bus-name';
import {
  guardBatchingWaitSeconds,
  LOW_TRAFFIC_BATCHING_WAIT_SECONDS,
  RECEIPT_AGE_PER_GUARD_WAIT_SECOND,
} from '../../infra/guard-batching-wait';
import {
  DEFAULT_GUARD_BATCHING_WINDOW_SECONDS,
  DEFAULT_INTEGRATION_INTERVAL_SECONDS,
  INTEGRATION_MAX_CONCURRENCY,
  ResealStack,
} from '../../infra/reseal-stack';
import { DEFAULT_MAX_RECEIPT_AGE_SECONDS } from '../../shared/guard/policy';
import { formatVerifierKey, noteVerifierKey } from '../../shared/log/note-key';
import { DetailType } from '../../shared/pipeline/detail-type';
import { NOTICE_KEY_PURPOSE } from '../../shared/ports/notice-key';
import { synthWithNag } from '../helpers/cdk-nag-synth';
import { expectGuarantee } from '../helpers/guarantees';
import { environmentReadBy, HANDLER_FILES, type ServiceName } from '../helpers/handler-environment';
import { codeSpans, docPage, section, tableRows } from '../helpers/markdown';
import { TEST_LOG_KEY } from '../helpers/pipeline-keys';

// Bundling is skipped (`aws:cdk:bundling-stacks: []`): the template is what is tested here.
const synthContext = { 'aws:cdk:bundling-stacks': [] };

type Resource = { Type: string; Properties?: Record<string, unknown> };
type Resources = Record<string, Resource>;
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

/** A resource's properties (empty when it has none). */
function props(resource: Resource | undefined): Record<string, unknown> {
  return resource?.Properties ?? {};
}

function actionsOf(statement: Statement): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

describe('ResealStack template', () => {
  let template: Template;
  let resources: Resources;

  /** The logical id of the function whose POWERTOOLS_SERVICE_NAME is `service`. */
  const functionId = (service: string): string => {
    const found = Object.entries(resources).find(
      ([, r]) =>
        r.Type === 'AWS::Lambda::Function' &&
        (r.Properties?.Environment as { Variables?: Record<string, unknown> })?.Variables?.POWERTOOLS_SERVICE_NAME ===
          service,
    );
    if (!found) throw new Error(`no function for ${service}`);
    return found[0];
  };
  /** Every IAM statement attached to the role of the function `service`. */
  const statementsOf = (service: string): Statement[] => {
    const role = (props(resources[functionId(service)]).Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    return Object.values(resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .filter((r) => ((props(r).Roles ?? []) as { Ref: string }[]).some((ref) => ref.Ref === role))
      .flatMap((r) => (props(r).PolicyDocument as { Statement: Statement[] }).Statement);
  };
  const queueNamed = (pattern: RegExp) =>
    Object.entries(resources).find(
      ([, r]) => r.Type === 'AWS::SQS::Queue' && pattern.test(String(r.Properties?.QueueName ?? '')),
    );

  /** Whether the role of `service` is granted sqs:SendMessage on the queue with logical id `queueId`. */
  const sendsTo = (service: string, queueId: string) =>
    statementsOf(service).some(
      (st) => actionsOf(st).includes('sqs:SendMessage') && JSON.stringify(st.Resource).includes(`"${queueId}"`),
    );
  /** The logical id of the integration queue (a standard queue: a generated name). */
  const integrationQueueId = () =>
    Object.keys(resources).find((id) => resources[id]?.Type === 'AWS::SQS::Queue' && /^IntegrationQueue/.test(id));

  beforeAll(() => {
    const stack = new ResealStack(new App({ context: synthContext }), 'ResealStack');
    template = Template.fromStack(stack);
    resources = template.toJSON().Resources as Resources;
  });

  it('seal-requests is FIFO with an explicit .fifo name built from the stack name, deduplicated by id', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      QueueName: 'ResealStack-seal-requests.fifo',
      ContentBasedDeduplication: false,
      RedrivePolicy: Match.objectLike({
        deadLetterTargetArn: Match.anyValue(),
        maxReceiveCount: DEFAULT_MAX_RECEIVE_COUNT,
      }),
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      QueueName: 'ResealStack-seal-requests-dlq.fifo',
    });
  });

  it('docs/infrastructure.md: seal-requests uses FIFO high-throughput mode (deduplication and throughput per message group)', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'ResealStack-seal-requests.fifo',
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
    });
  });

  it('every FIFO queue name ends in .fifo and every standard one is not FIFO', () => {
    for (const r of Object.values(resources).filter((q) => q.Type === 'AWS::SQS::Queue')) {
      const fifo = r.Properties?.FifoQueue === true;
      if (fifo) expect(r.Properties?.QueueName).toMatch(/\.fifo$/);
      else expect(r.Properties?.FifoQueue).toBeUndefined();
    }
  });

  it('every queue sets the maximum message size (MAX_MESSAGE_SIZE_BYTES) and server-side encryption', () => {
    const queues = Object.values(resources).filter((q) => q.Type === 'AWS::SQS::Queue');
    expect(queues).toHaveLength(7);
    for (const q of queues) {
      expect(q.Properties?.MaximumMessageSize).toBe(MAX_MESSAGE_SIZE_BYTES);
      expect(q.Properties?.SqsManagedSseEnabled).toBe(true);
    }
  });

  it('every work queue has a redrive policy to their dead-letter queue', () => {
    const withRedrive = Object.values(resources).filter(
      (q) => q.Type === 'AWS::SQS::Queue' && q.Properties?.RedrivePolicy !== undefined,
    );
    expect(withRedrive).toHaveLength(3);
  });

  it("each work queue's visibility timeout is VISIBILITY_TO_TIMEOUT_RATIO times its consumer's timeout plus its batching window (AWS's advice for SQS event sources)", () => {
    const mappings = Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(3);
    const windows: number[] = [];
    for (const m of mappings) {
      const queueId = (props(m).EventSourceArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const fnId = (props(m).FunctionName as { Ref: string }).Ref;
      const visibility = resources[queueId]?.Properties?.VisibilityTimeout as number;
      const timeout = resources[fnId]?.Properties?.Timeout as number;
      const window = (props(m).MaximumBatchingWindowInSeconds as number | undefined) ?? 0;
      windows.push(window);
      expect(timeout).toBeGreaterThan(0);
      expect(visibility).toBe(VISIBILITY_TO_TIMEOUT_RATIO * timeout + window);
    }
    // The guard's (none by default) and the integrator's (2 s) windows are counted; the sealer's FIFO queue has none.
    expect(windows.sort()).toEqual([0, DEFAULT_GUARD_BATCHING_WINDOW_SECONDS, DEFAULT_INTEGRATION_INTERVAL_SECONDS]);
    const wide = Template.fromStack(
      new ResealStack(new App({ context: synthContext }), 'WideWindows', {
        guardBatchingWindowSeconds: 300,
        maxReceiptAgeSeconds: 1200,
        integrationIntervalSeconds: 300,
      }),
    ).toJSON().Resources as Resources;
    const visibilities = Object.values(wide)
      .filter((r) => r.Type === 'AWS::SQS::Queue' && r.Properties?.RedrivePolicy !== undefined)
      .map((r) => r.Properties?.VisibilityTimeout);
    // guard 6 × 30 + 300, integrator 6 × 60 + 300, sealer (FIFO, no window) 6 × its timeout.
    expect(visibilities).toEqual(expect.arrayContaining([480, 660]));
  });

  it('SQS event sources report batch item failures', () => {
    template.resourcePropertiesCountIs(
      'AWS::Lambda::EventSourceMapping',
      { FunctionResponseTypes: ['ReportBatchItemFailures'] },
      3,
    );
    // The integration queue gathers notices for one interval (docs/deployment-log.md).
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId('reseal-integrator') },
      MaximumBatchingWindowInSeconds: 2,
    });
    const fifoQueue = queueNamed(/seal-requests\.fifo$/);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [fifoQueue?.[0], 'Arn'] },
      FunctionName: { Ref: functionId('reseal-sealer') },
    });
  });

  it("docs/infrastructure.md \"The guard's batching window\": the guard's event source takes batches of 10 and no window by default (AWS may hold a quiet queue's writes up to 20 s with one)", () => {
    expect(DEFAULT_GUARD_BATCHING_WINDOW_SECONDS).toBe(0);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId('reseal-guard') },
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: Match.absent(),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    // The sealer's FIFO event source takes no window (SQS allows none on FIFO queues).
    const sealer = Object.values(resources).find(
      (r) =>
        r.Type === 'AWS::Lambda::EventSourceMapping' &&
        (props(r).FunctionName as { Ref: string }).Ref === functionId('reseal-sealer'),
    );
    expect(props(sealer).MaximumBatchingWindowInSeconds).toBeUndefined();
  });

  it('guardBatchingWindowSeconds sets the window (0: none) and is refused at synth unless whole seconds, 0 to 300', () => {
    const guardMapping = (windowSeconds: number, id: string, maxReceiptAgeSeconds?: number) => {
      const synthesized = Template.fromStack(
        new ResealStack(new App({ context: synthContext }), id, {
          guardBatchingWindowSeconds: windowSeconds,
          maxReceiptAgeSeconds,
        }),
      ).toJSON().Resources as Resources;
      const guardFn = Object.entries(synthesized).find(
        ([, r]) =>
          r.Type === 'AWS::Lambda::Function' &&
          (r.Properties?.Environment as { Variables?: Record<string, unknown> })?.Variables?.POWERTOOLS_SERVICE_NAME ===
            'reseal-guard',
      )?.[0];
      return Object.values(synthesized).find(
        (r) =>
          r.Type === 'AWS::Lambda::EventSourceMapping' && (props(r).FunctionName as { Ref: string }).Ref === guardFn,
      );
    };
    expect(props(guardMapping(20, 'GuardWindow20')).MaximumBatchingWindowInSeconds).toBe(20);
    expect(props(guardMapping(300, 'GuardWindow300', 1200)).MaximumBatchingWindowInSeconds).toBe(300);
    expect(props(guardMapping(0, 'GuardWindow0')).MaximumBatchingWindowInSeconds).toBeUndefined();
    for (const bad of [-1, 301, 1.5, Number.NaN]) {
      expect(() => guardMapping(bad, `GuardWindowBad${String(bad).replace(/\W/g, '')}`, 1300)).toThrow(
        /guardBatchingWindowSeconds: expected whole seconds, 0 to 300/,
      );
    }
  });

  it('docs/infrastructure.md "The guard\'s batching window": a window that may hold a write longer than a quarter of the receipt age is refused at synth', () => {
    const synth = (guardBatchingWindowSeconds: number, maxReceiptAgeSeconds: number | undefined, id: string) =>
      new ResealStack(new App({ context: synthContext }), id, { guardBatchingWindowSeconds, maxReceiptAgeSeconds });
    expect(RECEIPT_AGE_PER_GUARD_WAIT_SECOND).toBe(4);
    expect(LOW_TRAFFIC_BATCHING_WAIT_SECONDS).toBe(20);
    expect([0, 1, 20, 225, 300].map(guardBatchingWaitSeconds)).toEqual([0, 20, 20, 225, 300]);
    const refused = /guardBatchingWindowSeconds: .* more than a quarter of maxReceiptAgeSeconds/;
    // The default receipt age (900 s) takes a window up to 225 s.
    expect(() => synth(225, undefined, 'Window225')).not.toThrow();
    expect(() => synth(226, undefined, 'Window226')).toThrow(refused);
    expect(() => synth(300, 1199, 'Window300Age1199')).toThrow(refused);
    // A 120 s window with 60 s receipts would refuse sparse writes RECEIPT_EXPIRED.
    expect(() => synth(120, 60, 'Window120Age60')).toThrow(refused);
    // Any window may hold a quiet queue's write 20 s: 80 s of receipt age at least, or no window.
    expect(() => synth(1, 79, 'Window1Age79')).toThrow(refused);
    expect(() => synth(1, 80, 'Window1Age80')).not.toThrow();
    expect(() => synth(0, 1, 'Window0Age1')).not.toThrow();
  });

  it('the integration queue runs two integrator invocations at most, and the integrator is not throttled by a reserved concurrency (docs/deployment-log.md, "One integration at a time")', () => {
    const integrator = Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::Lambda::EventSourceMapping' &&
        (props(r).FunctionName as { Ref: string }).Ref === functionId('reseal-integrator'),
    );
    expect(integrator).toHaveLength(1);
    expect(props(integrator[0] as Resource).ScalingConfig).toEqual({ MaximumConcurrency: INTEGRATION_MAX_CONCURRENCY });
    expect(INTEGRATION_MAX_CONCURRENCY).toBe(2);
    // Reserved concurrency would refuse SQS's (and the heartbeat's) invocations instead of
    // holding messages back; the lease serializes the two the event source runs.
    expect(resources[functionId('reseal-integrator')]?.Properties?.ReservedConcurrentExecutions).toBeUndefined();
    // Only the integrator's event source is capped: the guard and the sealer keep SQS's scaling.
    const capped = Object.values(resources).filter(
      (r) => r.Type === 'AWS::Lambda::EventSourceMapping' && props(r).ScalingConfig !== undefined,
    );
    expect(capped).toHaveLength(1);
  });

  it('the table is on demand with pk/sk string keys, point-in-time recovery and configurable protection', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayWith([{ AttributeName: 'pk', AttributeType: 'S' }]),
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: false,
    });
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });

    const real = new ResealStack(new App({ context: synthContext }), 'Prod', {
      removalPolicy: RemovalPolicy.RETAIN,
      deletionProtection: true,
    });
    const prod = Template.fromStack(real);
    prod.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
    prod.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain' });
    prod.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Retain' });
  });

  it('the MAC key is HMAC_256 for GENERATE_VERIFY_MAC and has an alias', () => {
    template.hasResourceProperties('AWS::KMS::Key', { KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC' });
    template.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/ResealStack-mac' });
  });

  it('docs/infrastructure.md "Resources": the bus is named after the stack, so two stacks of one construct id get distinct buses', () => {
    const busName = (stack: ResealStack): unknown => {
      const bus = Object.values(Template.fromStack(stack).toJSON().Resources as Resources).find(
        (r) => r.Type === 'AWS::Events::EventBus',
      );
      return props(bus).Name;
    };
    // Two apps, each with a stack of construct id ResealStack, deployed under two names.
    const first = busName(
      new ResealStack(new App({ context: synthContext }), 'ResealStack', { stackName: 'reseal-a' }),
    );
    const second = busName(
      new ResealStack(new App({ context: synthContext }), 'ResealStack', { stackName: 'reseal-b' }),
    );
    // Two stacks in one app (both built before the app is synthesized).
    const app = new App({ context: synthContext });
    const one = new ResealStack(app, 'One');
    const two = new ResealStack(app, 'Two');
    const third = busName(one);
    const fourth = busName(two);
    expect([first, second, third, fourth]).toEqual([
      eventBusNameOf('reseal-a'),
      eventBusNameOf('reseal-b'),
      eventBusNameOf('One'),
      eventBusNameOf('Two'),
    ]);
    expect(new Set([first, second, third, fourth]).size).toBe(4);
  });

  it('the rule routes RecallRequested from the custom bus to triage, with retries and a dead-letter queue', () => {
    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: Match.anyValue(),
      EventPattern: { source: ['reseal'], 'detail-type': ['RecallRequested'] },
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [functionId('reseal-triage'), 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 4, MaximumEventAgeInSeconds: 7200 },
          DeadLetterConfig: { Arn: Match.anyValue() },
        }),
      ],
    });
  });

  it('functions run on RESEAL_RUNTIME with exactly the environment their handler.ts reads (docs/pipeline.md, "Environment")', () => {
    template.resourcePropertiesCountIs(
      'AWS::Lambda::Function',
      { Runtime: RESEAL_RUNTIME.name },
      Object.keys(HANDLER_FILES).length,
    );
    const env = (service: string) =>
      (props(resources[functionId(service)]).Environment as { Variables: Record<string, unknown> }).Variables;
    // Read by Powertools and Node.js, not by the handler code.
    const runtime = ['NODE_OPTIONS', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_SERVICE_NAME'];
    for (const [service, file] of Object.entries(HANDLER_FILES) as [ServiceName, string][]) {
      const set = Object.keys(env(service)).filter((name) => !runtime.includes(name));
      expect(set.sort(), `the variables the stack sets for ${service} and ${file} reads`).toEqual(
        environmentReadBy(file),
      );
      expect(env(service).POWERTOOLS_SERVICE_NAME).toBe(service);
      expect(env(service).NODE_OPTIONS).toBe('--enable-source-maps');
      expect(env(service).AWS_ENDPOINT_URL).toBeUndefined();
    }
    expect(env('reseal-guard').MAX_RECEIPT_AGE_SECONDS).toBe(String(DEFAULT_MAX_RECEIPT_AGE_SECONDS));
    expect(env('reseal-guard').SEAL_QUEUE_URL).toEqual({ Ref: queueNamed(/seal-requests\.fifo$/)?.[0] });
  });

  it('docs/pipeline.md "Environment" lists exactly the variables the stack sets, for exactly the functions it sets them on', () => {
    const services = Object.keys(HANDLER_FILES) as ServiceName[];
    const env = (service: string) =>
      (props(resources[functionId(service)]).Environment as { Variables: Record<string, unknown> }).Variables;
    const documented = tableRows(section(docPage('pipeline.md'), 'Environment')).map(
      ([variable, ...marks]) =>
        `${codeSpans(variable ?? '')[0]}: ${services.filter((_, i) => marks[i] === 'yes').join(', ')}`,
    );
    const handlerRead = [...new Set(Object.values(HANDLER_FILES).flatMap(environmentReadBy))].sort();
    const synthesized = handlerRead.map(
      (variable) => `${variable}: ${services.filter((service) => env(service)[variable] !== undefined).join(', ')}`,
    );
    expect(documented.sort()).toEqual(synthesized);
  });

  it('docs/deployment-log.md "What changes for the sealer", step 3: the sealer signs no lineage checkpoint and holds no Sign on the log key unless signLineageCheckpoints is true', () => {
    const sealerEnv = (stack: ResealStack) =>
      Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function'))
        .map((fn) => (props(fn as Resource).Environment as { Variables: Record<string, unknown> }).Variables)
        .find((vars) => vars.POWERTOOLS_SERVICE_NAME === 'reseal-sealer');
    /** Who the log key's policy lets sign (statement Sids name the function). */
    const logKeySigners = (stack: ResealStack) => {
      const keys = Template.fromStack(stack).findResources('AWS::KMS::Key');
      const id = Object.keys(keys).find((k) => k.startsWith('LogKey'));
      const statements = (props(keys[id ?? ''] as Resource).KeyPolicy as { Statement: Statement[] }).Statement;
      return statements
        .filter((st) => actionsOf(st).includes('kms:Sign'))
        .map((st) => (st as Statement & { Sid?: string }).Sid)
        .sort();
    };
    const byDefault = new ResealStack(new App({ context: synthContext }), 'MacOnlyByDefault', {});
    expect(sealerEnv(byDefault)?.SIGN_LINEAGE_CHECKPOINTS).toBe('false');
    expect(logKeySigners(byDefault)).toEqual(['IntegratorSigns']);
    const signing = new ResealStack(new App({ context: synthContext }), 'Signs', { signLineageCheckpoints: true });
    expect(sealerEnv(signing)?.SIGN_LINEAGE_CHECKPOINTS).toBe('true');
    expect(logKeySigners(signing)).toEqual(['IntegratorSigns', 'SealerSigns']);
  });

  it('docs/sealing.md "Migration": the sealer writes the small head by default (HEAD_LAYOUT=small) and the compatible one when headLayout says so', () => {
    const sealerEnv = (stack: ResealStack) =>
      Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function'))
        .map((fn) => (props(fn as Resource).Environment as { Variables: Record<string, unknown> }).Variables)
        .find((vars) => vars.POWERTOOLS_SERVICE_NAME === 'reseal-sealer');
    const byDefault = new ResealStack(new App({ context: synthContext }), 'SmallHeadByDefault', {});
    expect(sealerEnv(byDefault)?.HEAD_LAYOUT).toBe('small');
    const compatible = new ResealStack(new App({ context: synthContext }), 'CompatibleHead', {
      headLayout: 'compatible',
    });
    expect(sealerEnv(compatible)?.HEAD_LAYOUT).toBe('compatible');
    // A small head carries no signed checkpoint: signing sealers write the compatible one.
    const signing = new ResealStack(new App({ context: synthContext }), 'SigningHead', {
      signLineageCheckpoints: true,
    });
    expect(sealerEnv(signing)?.HEAD_LAYOUT).toBe('compatible');
    expect(
      () =>
        new ResealStack(new App({ context: synthContext }), 'SigningSmallHead', {
          signLineageCheckpoints: true,
          headLayout: 'small',
        }),
    ).toThrow('signLineageCheckpoints needs headLayout "compatible"');
  });

  it('docs/guard.md "Default receipt age": the deployed guard defaults to DEFAULT_MAX_RECEIPT_AGE_SECONDS and honours maxReceiptAgeSeconds', () => {
    const guardEnv = (stack: ResealStack) =>
      Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function'))
        .map((fn) => (props(fn as Resource).Environment as { Variables: Record<string, unknown> }).Variables)
        .find((vars) => vars.POWERTOOLS_SERVICE_NAME === 'reseal-guard');
    const byDefault = new ResealStack(new App({ context: synthContext }), 'DefaultAge', {});
    expect(guardEnv(byDefault)?.MAX_RECEIPT_AGE_SECONDS).toBe(String(DEFAULT_MAX_RECEIPT_AGE_SECONDS));
    const configured = new ResealStack(new App({ context: synthContext }), 'ConfiguredAge', {
      maxReceiptAgeSeconds: 120,
    });
    expect(guardEnv(configured)?.MAX_RECEIPT_AGE_SECONDS).toBe('120');
  });

  it('an endpointOverride reaches the functions as AWS_ENDPOINT_URL (emulator deployments only)', () => {
    const stack = new ResealStack(new App({ context: synthContext }), 'Emu', {
      endpointOverride: 'http://127.0.0.1:4566',
    });
    Template.fromStack(stack).resourcePropertiesCountIs(
      'AWS::Lambda::Function',
      { Environment: { Variables: Match.objectLike({ AWS_ENDPOINT_URL: 'http://127.0.0.1:4566' }) } },
      Object.keys(HANDLER_FILES).length,
    );
  });

  it('endpointOverrides give a function, by service name, an endpoint of its own over endpointOverride (the bench counts each apart)', () => {
    const stack = new ResealStack(new App({ context: synthContext }), 'EmuByFunction', {
      endpointOverride: 'http://127.0.0.1:4566',
      endpointOverrides: { 'reseal-guard': 'http://127.0.0.1:4566/_party/guard' },
    });
    const endpoints = Object.fromEntries(
      Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function'))
        .map((fn) => fn.Properties?.Environment?.Variables ?? {})
        .filter((variables) => variables.POWERTOOLS_SERVICE_NAME !== undefined)
        .map((variables) => [variables.POWERTOOLS_SERVICE_NAME, variables.AWS_ENDPOINT_URL]),
    );
    expect(endpoints).toEqual(
      Object.fromEntries(
        Object.keys(HANDLER_FILES).map((service) => [
          service,
          service === 'reseal-guard' ? 'http://127.0.0.1:4566/_party/guard' : 'http://127.0.0.1:4566',
        ]),
      ),
    );
  });

  it('each KMS key has exactly one signer: the sealer MACs records and signs its refusals, the integrator signs the log, the guard signs its refusals, triage signs nothing', () => {
    /** `kms:<action>@<key construct>` for every KMS action of a role, resolved to the key it targets. */
    const keyActions = (service: string) =>
      statementsOf(service).flatMap((s) => {
        const kms = actionsOf(s).filter((a) => a.startsWith('kms:'));
        const target = JSON.stringify(s.Resource);
        const key =
          ['MacKey', 'LogKey', 'GuardKey', 'SealerKey', 'NoticeKey'].find((k) =>
            new RegExp(`${k}[0-9A-F]*`).test(target),
          ) ?? target;
        return kms.map((a) => `${a}@${key}`);
      });
    expect(keyActions('reseal-sealer').sort()).toEqual([
      'kms:Decrypt@NoticeKey',
      'kms:GenerateDataKey@NoticeKey',
      'kms:GenerateMac@MacKey',
      'kms:GetPublicKey@LogKey',
      'kms:GetPublicKey@SealerKey',
      'kms:Sign@SealerKey',
      'kms:VerifyMac@MacKey',
    ]);
    expect(keyActions('reseal-guard').sort()).toEqual(['kms:GetPublicKey@GuardKey', 'kms:Sign@GuardKey']);
    expect(keyActions('reseal-triage').sort()).toEqual(['kms:GetPublicKey@LogKey']);
    expect(keyActions('reseal-integrator').sort()).toEqual([
      'kms:Decrypt@NoticeKey',
      'kms:GetPublicKey@LogKey',
      'kms:Sign@LogKey',
      'kms:VerifyMac@MacKey',
    ]);
  });

  it('the log, guard and sealer keys are Ed25519 SIGN_VERIFY keys; the record key stays HMAC_256', () => {
    const specs = Object.values(resources)
      .filter((r) => r.Type === 'AWS::KMS::Key')
      .map((r) => `${r.Properties?.KeySpec}/${r.Properties?.KeyUsage}`)
      .sort();
    expect(specs).toEqual([
      'ECC_NIST_EDWARDS25519/SIGN_VERIFY',
      'ECC_NIST_EDWARDS25519/SIGN_VERIFY',
      'ECC_NIST_EDWARDS25519/SIGN_VERIFY',
      'HMAC_256/GENERATE_VERIFY_MAC',
      'SYMMETRIC_DEFAULT/ENCRYPT_DECRYPT',
    ]);
  });

  it('docs/deployment-log.md "Sealed-run notices": the notice key is rotated; the sealer alone generates its data keys and the sealer and the integrator alone decrypt them (docs/verifiable-log.md, "Appending": heads), all under the notice encryption context, and both know the key', () => {
    const id = Object.keys(resources).find((k) => resources[k]?.Type === 'AWS::KMS::Key' && k.startsWith('NoticeKey'));
    expect(props(resources[id ?? '']).EnableKeyRotation).toBe(true);
    const context = {
      StringEquals: {
        'kms:EncryptionContext:purpose': NOTICE_KEY_PURPOSE,
        'kms:EncryptionContext:log': 'reseal/ResealStack',
      },
    };
    const onNoticeKey = (service: string) =>
      statementsOf(service).filter((st) => /NoticeKey[0-9A-F]*/.test(JSON.stringify(st.Resource)));
    for (const [service, actions] of [
      ['reseal-sealer', ['kms:Decrypt', 'kms:GenerateDataKey']],
      ['reseal-integrator', ['kms:Decrypt']],
    ] as const) {
      const statements = onNoticeKey(service);
      expect(statements.flatMap((st) => actionsOf(st)).sort(), service).toEqual(actions);
      for (const statement of statements) {
        expect((statement as Statement & { Condition?: unknown }).Condition, service).toEqual(context);
      }
      const env = (props(resources[functionId(service)]).Environment as { Variables: Record<string, unknown> })
        .Variables;
      expect(env.NOTICE_KEY_ID, service).toEqual({ 'Fn::GetAtt': [id, 'Arn'] });
    }
    for (const service of ['reseal-guard', 'reseal-triage', 'reseal-mcp']) {
      expect(onNoticeKey(service), service).toEqual([]);
    }
    const policy = (props(resources[id ?? '']).KeyPolicy as { Statement: (Statement & { Principal: unknown })[] })
      .Statement;
    for (const st of policy.filter((st) => !JSON.stringify(st.Principal).includes(':root'))) {
      expect(st.Condition).toEqual(context);
    }
  });

  it('docs/deployment-log.md "Sealed-run notices": the notice key policy lets no one use the key but the sealer (GenerateDataKey, Decrypt) and the integrator (Decrypt): no Encrypt, ReEncrypt or data key without plaintext for anyone, the account administering only', () => {
    const id = Object.keys(resources).find((k) => resources[k]?.Type === 'AWS::KMS::Key' && k.startsWith('NoticeKey'));
    const policy = (props(resources[id ?? '']).KeyPolicy as { Statement: (Statement & { Principal: unknown })[] })
      .Statement;
    const roleOf = (service: string) =>
      (props(resources[functionId(service)]).Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
    const uses = policy
      .filter((st) => !JSON.stringify(st.Principal).includes(':root'))
      .map((st) => ({ effect: st.Effect, actions: actionsOf(st), principal: JSON.stringify(st.Principal) }));
    expect(uses).toEqual([
      {
        effect: 'Allow',
        actions: ['kms:GenerateDataKey'],
        principal: expect.stringContaining(String(roleOf('reseal-sealer'))),
      },
      {
        effect: 'Allow',
        actions: ['kms:Decrypt'],
        principal: expect.stringContaining(String(roleOf('reseal-sealer'))),
      },
      {
        effect: 'Allow',
        actions: ['kms:Decrypt'],
        principal: expect.stringContaining(String(roleOf('reseal-integrator'))),
      },
    ]);
    const administered = policy.filter((st) => JSON.stringify(st.Principal).includes(':root')).flatMap(actionsOf);
    for (const action of administered) {
      expect(action, 'a use of the key under the account').not.toMatch(
        /^kms:(\*|Encrypt|Decrypt|ReEncrypt|GenerateDataKey|Generate\*)/,
      );
    }
  });

  it('triage writes nothing but LeadingKeys-conditioned TRIAGE# reports', () => {
    const writeActions = new Set([
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:*',
    ]);
    const writes = statementsOf('reseal-triage').filter((s) => actionsOf(s).some((a) => writeActions.has(a)));
    expect(writes).toEqual([
      {
        Effect: 'Allow',
        Action: 'dynamodb:PutItem',
        Resource: expect.anything(),
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TRIAGE#*'] } },
      },
    ]);
    const reads = statementsOf('reseal-triage').flatMap(actionsOf);
    expect(reads).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
  });

  it('the guard writes only REJECTION# records and may send to seal-requests', () => {
    const statements = statementsOf('reseal-guard');
    const puts = statements.filter((s) => actionsOf(s).some((a) => /^dynamodb:(Put|Update|Delete|BatchWrite)/.test(a)));
    expect(puts).toEqual([
      expect.objectContaining({
        Action: 'dynamodb:PutItem',
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['REJECTION#*'] } },
      }),
    ]);
    expect(statements.flatMap(actionsOf)).toContain('sqs:SendMessage');
  });

  it('seal-requests has a resource policy denying sqs:SendMessage to every principal but the guard role', () => {
    const queueId = queueNamed(/seal-requests\.fifo$/)?.[0];
    const guardRole = (props(resources[functionId('reseal-guard')]).Role as { 'Fn::GetAtt': [string, string] })[
      'Fn::GetAtt'
    ][0];
    const policies = Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::SQS::QueuePolicy' &&
        ((props(r).Queues ?? []) as { Ref: string }[]).some((ref) => ref.Ref === queueId),
    );
    expect(policies).toHaveLength(1);
    const statements = (props(policies[0]).PolicyDocument as { Statement: (Statement & { Principal: unknown })[] })
      .Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': [queueId, 'Arn'] },
        Condition: { ArnNotEquals: { 'aws:PrincipalArn': { 'Fn::GetAtt': [guardRole, 'Arn'] } } },
      }),
    );
    // The policy only denies: no principal is granted anything through it.
    expect(statements.filter((st) => st.Effect !== 'Deny')).toEqual([]);
    // Neither the sealer, triage nor the integrator holds send rights on it through its role.
    for (const service of ['reseal-sealer', 'reseal-triage', 'reseal-integrator']) {
      expect(sendsTo(service, queueId ?? '')).toBe(false);
    }
  });

  it('docs/infrastructure.md "Permissions": the integration queue has a resource policy denying sqs:SendMessage to every principal but the sealer role, and no other role, the heartbeat schedule included, sends to it', () => {
    const queueId = integrationQueueId() ?? '';
    const roleOf = (service: string) =>
      (props(resources[functionId(service)]).Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const policies = Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::SQS::QueuePolicy' &&
        ((props(r).Queues ?? []) as { Ref: string }[]).some((ref) => ref.Ref === queueId),
    );
    expect(policies).toHaveLength(1);
    const statements = (
      props(policies[0]).PolicyDocument as { Statement: (Statement & { Sid?: string; Principal: unknown })[] }
    ).Statement;
    // The notices vouch for the heads they name (docs/deployment-log.md, "Integration", step 2): only the sealer sends them.
    expect(statements.find((st) => st.Sid === 'OnlyTheSealerMaySendNotices')).toEqual({
      Sid: 'OnlyTheSealerMaySendNotices',
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 'sqs:SendMessage',
      Resource: { 'Fn::GetAtt': [queueId, 'Arn'] },
      Condition: { ArnNotEquals: { 'aws:PrincipalArn': { 'Fn::GetAtt': [roleOf('reseal-sealer'), 'Arn'] } } },
    });
    // The policy only denies: no principal is granted anything through it.
    expect(statements.filter((st) => st.Effect !== 'Deny')).toEqual([]);
    // Nor can another queue of the account name it its dead-letter queue and have SQS move notices in.
    expect(props(resources[queueId]).RedriveAllowPolicy).toEqual({ redrivePermission: 'denyAll' });
    expect(sendsTo('reseal-sealer', queueId)).toBe(true);
    for (const service of ['reseal-guard', 'reseal-triage', 'reseal-integrator', 'reseal-mcp']) {
      expect(sendsTo(service, queueId)).toBe(false);
    }
    // No rule targets the queue; the heartbeat's schedule invokes the function itself, its role
    // holding only lambda:InvokeFunction (test/infra/heartbeat-schedule.test.ts), as the re-anchor does.
    const targets = Object.entries(resources).filter(
      ([, r]) => r.Type === 'AWS::Events::Rule' && JSON.stringify(props(r)).includes(`"${queueId}"`),
    );
    expect(targets).toEqual([]);
  });

  it('docs/infrastructure.md "Permissions": the bus policy denies each detail-type the functions publish to every principal but its publishers\' roles, and grants nothing', () => {
    const roleId = (service: string) =>
      (props(resources[functionId(service)]).Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const roleArn = (service: string) => ({ 'Fn::GetAtt': [roleId(service), 'Arn'] });
    const [bus] = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::Events::EventBus');
    const [busId, busResource] = bus ?? ['', undefined];
    const statements = (
      props(busResource).Policy as { Statement: (Statement & { Sid?: string; Principal: unknown })[] }
    ).Statement;
    const publishers = {
      ResidualSealed: ['reseal-sealer'],
      ResidualRejected: ['reseal-guard', 'reseal-sealer'],
      TriageCompleted: ['reseal-triage'],
    };
    for (const [detailType, services] of Object.entries(publishers)) {
      expect(statements.find((st) => st.Sid === `OnlyItsPublishersPut-${detailType}`)).toEqual({
        Sid: `OnlyItsPublishersPut-${detailType}`,
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'events:PutEvents',
        Resource: expect.anything(),
        // Under any source: a rule that matches the detail-type alone is not fooled either.
        Condition: {
          StringEquals: { 'events:detail-type': detailType },
          ArnNotEquals: { 'aws:PrincipalArn': services.map(roleArn) },
        },
      });
    }
    // Every detail-type but RecallRequested (which callers put) is some function's, and guarded.
    const guarded = statements.map((st) => (st.Condition as { StringEquals?: Record<string, string> }).StringEquals);
    for (const detailType of Object.values(DetailType).filter((t) => t !== DetailType.RecallRequested)) {
      expect(guarded).toContainEqual({ 'events:detail-type': detailType });
    }
    // The remote MCP role and the integrator put none of them, though the MCP role holds events:PutEvents.
    expect(JSON.stringify(statements)).not.toContain(roleId('reseal-mcp'));
    expect(JSON.stringify(statements)).not.toContain(roleId('reseal-integrator'));
    // The policy names the bus by its name (no reference to its own attributes) and only denies.
    for (const st of statements) expect(JSON.stringify(st.Resource)).toContain(':event-bus/ResealStack-events');
    expect(JSON.stringify(statements)).not.toContain(`"${busId}"`);
    expect(statements.filter((st) => st.Effect !== 'Deny')).toEqual([]);
  });

  it("the sealer re-runs the guard with the guard's receipt age and the seal-requests retention", () => {
    const env = (stack: ResealStack, service: string) => {
      const json = Template.fromStack(stack).toJSON().Resources as Resources;
      const fn = Object.values(json).find(
        (r) =>
          r.Type === 'AWS::Lambda::Function' &&
          (props(r).Environment as { Variables: Record<string, unknown> }).Variables.POWERTOOLS_SERVICE_NAME ===
            service,
      );
      return (props(fn).Environment as { Variables: Record<string, unknown> }).Variables;
    };
    const stack = new ResealStack(new App({ context: synthContext }), 'Default');
    expect(env(stack, 'reseal-sealer').MAX_RECEIPT_AGE_SECONDS).toBe(
      env(stack, 'reseal-guard').MAX_RECEIPT_AGE_SECONDS,
    );
    const tuned = new ResealStack(new App({ context: synthContext }), 'Tuned', { maxReceiptAgeSeconds: 120 });
    expect(env(tuned, 'reseal-sealer').MAX_RECEIPT_AGE_SECONDS).toBe('120');
    expect(env(tuned, 'reseal-guard').MAX_RECEIPT_AGE_SECONDS).toBe('120');
    const retention = props(resources[queueNamed(/seal-requests\.fifo$/)?.[0] ?? '']).MessageRetentionPeriod;
    expect(retention).toBe(QUEUE_RETENTION.toSeconds());
    expect(env(stack, 'reseal-sealer').SEAL_QUEUE_RETENTION_SECONDS).toBe(String(retention));
    // The sealer's default when the variable is absent (unit tests) is the same retention.
    expect(SEAL_QUEUE_RETENTION_SECONDS).toBe(retention);
  });

  it('guard, sealer and triage may put events on the bus', () => {
    for (const service of ['reseal-guard', 'reseal-sealer', 'reseal-triage']) {
      expect(statementsOf(service).flatMap(actionsOf)).toContain('events:PutEvents');
    }
  });

  describe('the remote MCP server (docs/mcp.md, "Remote MCP")', () => {
    const routes = () => Object.values(resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Route');

    it('the HTTP API has exactly POST, GET and DELETE /mcp, each AWS_IAM, into the MCP function with payload format 2.0', () => {
      expect(
        routes()
          .map((r) => props(r).RouteKey)
          .sort(),
      ).toEqual(['DELETE /mcp', 'GET /mcp', 'POST /mcp']);
      for (const route of routes()) expect(props(route).AuthorizationType).toBe('AWS_IAM');
      template.resourceCountIs('AWS::ApiGatewayV2::Integration', 1);
      template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
        IntegrationUri: { 'Fn::GetAtt': [functionId('reseal-mcp'), 'Arn'] },
      });
      template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        StageName: '$default',
        AutoDeploy: true,
        AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
      });
      // Under API Gateway's 30 s integration limit.
      expect(props(resources[functionId('reseal-mcp')]).Timeout).toBe(29);
    });

    it('its role reads and verifies, sends to residual-writes and puts events; it writes no item and signs nothing', (context) => {
      const row = { section: 'posture', target: 'remote MCP role', reader: 'synthesized template' } as const;
      const statements = statementsOf('reseal-mcp');
      const kms = statements
        .flatMap((st) => {
          const target = JSON.stringify(st.Resource);
          const key =
            ['MacKey', 'LogKey', 'GuardKey', 'SealerKey'].find((k) => new RegExp(`${k}[0-9A-F]{8}"`).test(target)) ??
            '*';
          return actionsOf(st)
            .filter((a) => a.startsWith('kms:'))
            .map((a) => `${a}@${key}`);
        })
        .sort();
      expectGuarantee(
        context,
        {
          ...row,
          attack: 'KMS rights',
          expected:
            'kms:GetPublicKey@GuardKey, kms:GetPublicKey@LogKey, kms:GetPublicKey@SealerKey, kms:VerifyMac@MacKey',
        },
        kms.join(', '),
      );
      const writes = statements
        .flatMap(actionsOf)
        .filter((a) =>
          /^dynamodb:(Put|Update|Delete|BatchWrite|PartiQL(Insert|Update|Delete)|TransactWrite|\*)/.test(a),
        );
      expectGuarantee(context, { ...row, attack: 'table writes', expected: 'none' }, writes.join(', ') || 'none');
      // The queue whose URL the function is given; the guard consumes it.
      const mcpEnv = (props(resources[functionId('reseal-mcp')]).Environment as { Variables: Record<string, unknown> })
        .Variables;
      const residualWrites = (mcpEnv.RESIDUAL_WRITES_QUEUE_URL as { Ref: string }).Ref;
      expect(residualWrites).toMatch(/^ResidualWrites/);
      const sends = statements
        .filter((st) => actionsOf(st).includes('sqs:SendMessage'))
        .map((st) => JSON.stringify(st.Resource));
      expectGuarantee(
        context,
        { ...row, attack: 'queues it may send to', expected: 'residual-writes' },
        sends.map((r) => (r.includes(`"${residualWrites}"`) ? 'residual-writes' : r)).join(', ') || 'none',
      );
      expect(statements.flatMap(actionsOf)).toContain('events:PutEvents');
      const wildcards = statements.filter((st) => actionsOf(st).some((a) => a.endsWith('*')) || st.Resource === '*');
      expect(wildcards).toEqual([]);
    });
  });

  it('an alarm watches each dead-letter queue', () => {
    template.resourcePropertiesCountIs(
      'AWS::CloudWatch::Alarm',
      { MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1 },
      4,
    );
  });

  describe('the remote MCP server\'s freshness policy (docs/mcp.md, "Freshness")', () => {
    const stackLog = formatVerifierKey(noteVerifierKey('reseal/PolicyStack', TEST_LOG_KEY.publicKey));
    const witnessed = `log ${stackLog}\nwitness w1 reseal/test-witness+72f4cca9+BCmsuuFBvMrwsi4alNNNC8c2HlJtC/4SyJeUvJMilm3X\nquorum w1\n`;
    const mcpEnvOf = (stackProps: ConstructorParameters<typeof ResealStack>[2]) => {
      const stack = new ResealStack(new App({ context: synthContext }), 'PolicyStack', stackProps);
      return Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function'))
        .map((fn) => (props(fn as Resource).Environment as { Variables: Record<string, unknown> }).Variables)
        .find((vars) => vars.POWERTOOLS_SERVICE_NAME === 'reseal-mcp');
    };

    it("defaults to the stack's log key alone, or to the witness's policy and maximum age when one is set", () => {
      expect(mcpEnvOf({})).toMatchObject({
        FRESHNESS_POLICY: '',
        FRESHNESS_MAX_AGE_SECONDS: '180',
        INTEGRATION_INTERVAL_SECONDS: '2',
      });
      expect(
        mcpEnvOf({ witness: { url: 'https://witness.example/', policy: witnessed, maxAgeSeconds: 300 } }),
      ).toMatchObject({ FRESHNESS_POLICY: witnessed, FRESHNESS_MAX_AGE_SECONDS: '300' });
    });

    it("takes the mcpPolicy prop over the witness's, with the integration interval", () => {
      const own = `log ${stackLog}\nquorum none\n`;
      expect(
        mcpEnvOf({
          witness: { url: 'https://witness.example/', policy: witnessed },
          mcpPolicy: { policy: own, maxAgeSeconds: 90 },
          integrationIntervalSeconds: 5,
        }),
      ).toMatchObject({ FRESHNESS_POLICY: own, FRESHNESS_MAX_AGE_SECONDS: '90', INTEGRATION_INTERVAL_SECONDS: '5' });
    });

    it('refuses at synth a malformed policy, one of another log, and a maximum age that is not whole seconds', () => {
      expect(() => mcpEnvOf({ mcpPolicy: { policy: 'log nonsense\nquorum none\n' } })).toThrow(
        /FRESHNESS_POLICY: not a valid tlog-policy/,
      );
      const otherLog = formatVerifierKey(noteVerifierKey('reseal/OtherStack', TEST_LOG_KEY.publicKey));
      expect(() => mcpEnvOf({ mcpPolicy: { policy: `log ${otherLog}\nquorum none\n` } })).toThrow(
        /names no log of origin reseal\/PolicyStack/,
      );
      expect(() => mcpEnvOf({ mcpPolicy: { policy: witnessed, maxAgeSeconds: 1.5 } })).toThrow(
        /FRESHNESS_MAX_AGE_SECONDS: expected a positive whole number/,
      );
    });
  });

  describe('posture (docs/guarantees.md "Posture of the synthesized template"): per-role IAM absences and encryption at rest, rows of the guarantees table', () => {
    const SERVICES = ['reseal-guard', 'reseal-sealer', 'reseal-triage', 'reseal-integrator'] as const;
    const KEYS = ['MacKey', 'LogKey', 'GuardKey', 'SealerKey', 'NoticeKey'] as const;
    /** `kms:<action>@<key construct>` for every KMS action of a role (`@*` when not one of the stack's keys). */
    const kmsGrants = (service: string) =>
      statementsOf(service).flatMap((s) => {
        const target = JSON.stringify(s.Resource);
        const key = KEYS.find((k) => new RegExp(`${k}[0-9A-F]{8}"`).test(target)) ?? '*';
        return actionsOf(s)
          .filter((a) => a.startsWith('kms:'))
          .map((a) => `${a}@${key}`);
      });
    /** The roles granted `action` (exact, or by a wildcard) on `key`, comma-separated, or `none`. */
    const holders = (action: string, key: string) =>
      SERVICES.filter((service) =>
        kmsGrants(service).some((grant) => grant === `${action}@${key}` || /^kms:\*@|@\*$/.test(grant)),
      ).join(', ') || 'none';
    /** A role's table writes as `<action> on <LeadingKeys>` (`on any key` when unconditioned). */
    const tableWrites = (service: string) =>
      statementsOf(service)
        .flatMap((s) => {
          const leading = (s.Condition as { 'ForAllValues:StringLike'?: { 'dynamodb:LeadingKeys'?: string[] } })?.[
            'ForAllValues:StringLike'
          ]?.['dynamodb:LeadingKeys'];
          return actionsOf(s)
            .filter((a) => /^dynamodb:(Put|Update|Delete|BatchWrite|PartiQL(Insert|Update|Delete)|\*)/.test(a))
            .map((a) => `${a} on ${leading ? leading.join('|') : 'any key'}`);
        })
        .join(', ') || 'none';

    it('the guard holds no MAC right and no log-key right: its only KMS rights are on its own refusal key', (context) => {
      const row = { section: 'posture', target: 'guard role', reader: 'synthesized template' } as const;
      expectGuarantee(
        context,
        { ...row, attack: 'KMS rights', expected: 'kms:GetPublicKey@GuardKey, kms:Sign@GuardKey' },
        kmsGrants('reseal-guard').sort().join(', '),
      );
    });

    it('docs/verifiable-log.md "Keys": the sealer signs refusals with the sealer key alone (SEALER_KEY_ID, output SealerKeyArn) and holds no Sign on the log key', (context) => {
      const row = { section: 'posture', target: 'sealer role', reader: 'synthesized template' } as const;
      expectGuarantee(
        context,
        {
          ...row,
          attack: 'KMS signing rights',
          expected: 'kms:Sign@SealerKey',
        },
        kmsGrants('reseal-sealer')
          .filter((grant) => grant.startsWith('kms:Sign@'))
          .sort()
          .join(', '),
      );
      const keyIdOf = (name: string) =>
        Object.keys(resources).find((id) => resources[id]?.Type === 'AWS::KMS::Key' && id.startsWith(name));
      const env = (props(resources[functionId('reseal-sealer')]).Environment as { Variables: Record<string, unknown> })
        .Variables;
      expect(env.SEALER_KEY_ID).toEqual({ 'Fn::GetAtt': [keyIdOf('SealerKey'), 'Arn'] });
      expect(env.LOG_KEY_ID).toEqual({ 'Fn::GetAtt': [keyIdOf('LogKey'), 'Arn'] });
      const mcpEnv = (props(resources[functionId('reseal-mcp')]).Environment as { Variables: Record<string, unknown> })
        .Variables;
      expect(mcpEnv.SEALER_KEY_ID).toEqual({ 'Fn::GetAtt': [keyIdOf('SealerKey'), 'Arn'] });
      template.hasOutput('SealerKeyArn', { Value: { 'Fn::GetAtt': [keyIdOf('SealerKey'), 'Arn'] } });
      template.hasResourceProperties('AWS::KMS::Alias', {
        AliasName: 'alias/ResealStack-sealer',
        TargetKeyId: { 'Fn::GetAtt': [keyIdOf('SealerKey'), 'Arn'] },
      });
      // No other role signs with the sealer key, and the guard signs with no key but its own.
      for (const service of ['reseal-guard', 'reseal-triage', 'reseal-integrator', 'reseal-mcp']) {
        expect(
          kmsGrants(service).filter((grant) => grant === 'kms:Sign@SealerKey'),
          service,
        ).toEqual([]);
      }
    });

    it('only the sealer may MAC records and only the integrator sign the log; only the guard signs its refusals and only the sealer its own; triage signs nothing', (context) => {
      const row = { section: 'posture', target: 'every function role', reader: 'synthesized template' } as const;
      for (const [action, key, expected] of [
        ['kms:GenerateMac', 'MacKey', 'reseal-sealer'],
        // The sealer and the integrator authenticate lineage heads by the sealer's head-state MAC.
        ['kms:VerifyMac', 'MacKey', 'reseal-sealer, reseal-integrator'],
        // The integrator signs deployment checkpoints; the sealer signs none since
        // docs/deployment-log.md, "What changes for the sealer", step 3.
        ['kms:Sign', 'LogKey', 'reseal-integrator'],
        ['kms:Sign', 'GuardKey', 'reseal-guard'],
        // The sealer's refusals (docs/verifiable-log.md, "Keys").
        ['kms:Sign', 'SealerKey', 'reseal-sealer'],
        // Notice and head MACs (docs/deployment-log.md, "Sealed-run notices"; docs/verifiable-log.md,
        // "Appending"): the sealer mints data keys, the sealer and the integrator open them.
        ['kms:GenerateDataKey', 'NoticeKey', 'reseal-sealer'],
        ['kms:Decrypt', 'NoticeKey', 'reseal-sealer, reseal-integrator'],
      ] as const) {
        expectGuarantee(context, { ...row, attack: `who holds ${action} on ${key}`, expected }, holders(action, key));
      }
      expectGuarantee(
        context,
        { ...row, target: 'triage role', attack: 'KMS rights', expected: 'kms:GetPublicKey@LogKey' },
        kmsGrants('reseal-triage').sort().join(', '),
      );
    });

    it('triage writes no records and the guard none but rejections; no role holds a wildcard action', (context) => {
      const row = { section: 'posture', reader: 'synthesized template' } as const;
      expectGuarantee(
        context,
        { ...row, target: 'triage role', attack: 'table writes', expected: 'dynamodb:PutItem on TRIAGE#*' },
        tableWrites('reseal-triage'),
      );
      expectGuarantee(
        context,
        { ...row, target: 'guard role', attack: 'table writes', expected: 'dynamodb:PutItem on REJECTION#*' },
        tableWrites('reseal-guard'),
      );
      const wildcards = SERVICES.flatMap((service) =>
        statementsOf(service)
          .filter((s) => actionsOf(s).some((a) => a.endsWith('*')) || s.Resource === '*')
          .map((s) => `${service}: ${actionsOf(s).join('|')} on ${JSON.stringify(s.Resource)}`),
      );
      expectGuarantee(
        context,
        { ...row, target: 'every function role', attack: 'wildcard action or resource', expected: 'none' },
        wildcards.join('; ') || 'none',
      );
      for (const [target, pattern, expected] of [
        ['seal-requests queue', /seal-requests\.fifo$/, 'reseal-guard'],
        ['integration queue', null, 'reseal-sealer'],
      ] as const) {
        const queueId = pattern ? queueNamed(pattern)?.[0] : integrationQueueId();
        const senders = SERVICES.filter((service) => sendsTo(service, queueId ?? ''));
        expectGuarantee(
          context,
          { ...row, target, attack: 'roles granted sqs:SendMessage', expected },
          senders.join(', ') || 'none',
        );
      }
    });

    it('docs/infrastructure.md "Key policies": each key policy lets the account administer the key and only the functions that need it use it', (context) => {
      const roleOf = (service: string) =>
        (props(resources[functionId(service)]).Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const names: Record<string, string> = Object.fromEntries(
        ['reseal-guard', 'reseal-sealer', 'reseal-triage', 'reseal-integrator', 'reseal-mcp'].map((service) => [
          roleOf(service),
          service.replace('reseal-', ''),
        ]),
      );
      /** `<principal>: <actions>` per key-policy statement, the account root as `account`, a role by its function. */
      const grants = (key: string) => {
        const id = Object.keys(resources).find((k) => resources[k]?.Type === 'AWS::KMS::Key' && k.includes(key));
        const statements = (
          props(resources[id ?? '']).KeyPolicy as { Statement: (Statement & { Principal: unknown })[] }
        ).Statement;
        return statements
          .map((st) => {
            expect(st.Effect).toBe('Allow');
            const principal = JSON.stringify(st.Principal);
            const who = principal.includes(':root')
              ? 'account'
              : (names[/"Fn::GetAtt":\["([^"]+)"/.exec(principal)?.[1] ?? ''] ?? principal);
            const actions = actionsOf(st);
            // The account's administration (KEY_ADMIN_ACTIONS) is one entry: no use of the key hides in it.
            return `${who}: ${actions.includes('kms:Put*') ? 'administer' : actions.join('+')}`;
          })
          .sort()
          .join(', ');
      };
      const row = {
        section: 'posture',
        attack: 'who the key policy lets use the key',
        reader: 'synthesized template',
      } as const;
      expectGuarantee(
        context,
        { ...row, target: 'MAC key', expected: 'account: administer, account: kms:VerifyMac, sealer: kms:GenerateMac' },
        grants('MacKey'),
      );
      expectGuarantee(
        context,
        {
          ...row,
          target: 'log key',
          expected:
            'account: administer, integrator: kms:Sign+kms:GetPublicKey, mcp: kms:GetPublicKey, sealer: kms:GetPublicKey, triage: kms:GetPublicKey',
        },
        grants('LogKey'),
      );
      expectGuarantee(
        context,
        {
          ...row,
          target: 'guard key',
          expected: 'account: administer, guard: kms:Sign+kms:GetPublicKey, mcp: kms:GetPublicKey',
        },
        grants('GuardKey'),
      );
      expectGuarantee(
        context,
        {
          ...row,
          target: 'sealer key',
          expected: 'account: administer, mcp: kms:GetPublicKey, sealer: kms:Sign+kms:GetPublicKey',
        },
        grants('SealerKey'),
      );
      expectGuarantee(
        context,
        {
          ...row,
          target: 'notice key',
          expected: 'account: administer, integrator: kms:Decrypt, sealer: kms:Decrypt, sealer: kms:GenerateDataKey',
        },
        grants('NoticeKey'),
      );
      // The account's administration holds no cryptographic use of any key.
      for (const [, key] of Object.entries(resources).filter(([, r]) => r.Type === 'AWS::KMS::Key')) {
        const statements = (props(key).KeyPolicy as { Statement: (Statement & { Principal: unknown })[] }).Statement;
        for (const st of statements.filter((s) => JSON.stringify(s.Principal).includes(':root'))) {
          expect(
            actionsOf(st).filter((a) => /^kms:(\*|Sign|GenerateMac|Encrypt|Decrypt|ReEncrypt|GenerateDataKey)/.test(a)),
          ).toEqual([]);
        }
      }
    });

    it('encryption at rest: the table and every queue', (context) => {
      const row = { section: 'posture', reader: 'synthesized template', attack: 'encryption at rest' } as const;
      const tables = Object.values(resources).filter((r) => r.Type === 'AWS::DynamoDB::Table');
      expectGuarantee(
        context,
        { ...row, target: 'lineage table', expected: '1 table, SSE enabled' },
        `${tables.length} table, ${tables.every((t) => (props(t).SSESpecification as { SSEEnabled?: boolean })?.SSEEnabled === true) ? 'SSE enabled' : 'SSE not enabled'}`,
      );
      const queues = Object.values(resources).filter((r) => r.Type === 'AWS::SQS::Queue');
      const encrypted = queues.filter((q) => props(q).SqsManagedSseEnabled === true || props(q).KmsMasterKeyId);
      expectGuarantee(
        context,
        { ...row, target: 'SQS queues', expected: '7 of 7 encrypted' },
        `${encrypted.length} of ${queues.length} encrypted`,
      );
    });
  });

  it('outputs every name and URL a client needs (the keys the test harness and client read)', () => {
    const outputs = Object.keys(template.toJSON().Outputs ?? {});
    expect(outputs.sort()).toEqual([...STACK_OUTPUT_KEYS].sort());
  });

  it('outputs the integration interval it deploys with, so clients state the real freshness window', () => {
    expect(template.toJSON().Outputs?.IntegrationIntervalSeconds?.Value).toBe('2');
    const stack = new ResealStack(new App({ context: synthContext }), 'IntervalStack', {
      integrationIntervalSeconds: 10,
    });
    expect(Template.fromStack(stack).toJSON().Outputs?.IntegrationIntervalSeconds?.Value).toBe('10');
  });
});

describe('cdk-nag AwsSolutions checks', () => {
  let outdir: string;
  beforeAll(() => {
    outdir = mkdtempSync(join(tmpdir(), 'reseal-nag-'));
  });
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('report no unacknowledged finding, and every acknowledgement carries a reason', (context) => {
    const {
      built: stack,
      failure,
      violations,
    } = synthWithNag(synthContext, outdir, (app) => new ResealStack(app, 'ResealStack'));
    expectGuarantee(
      context,
      {
        section: 'posture',
        target: 'ResealStack',
        attack: 'cdk-nag AwsSolutions checks',
        reader: 'synthesized template',
        expected: '0 unacknowledged findings',
      },
      `${violations.length} unacknowledged finding${violations.length === 1 ? '' : 's'}${failure ? ', synth failed' : ''}`,
    );
    expect(violations).toEqual([]);
    expect(failure).toBeUndefined();

    const acknowledged = Object.values(
      Template.fromStack(stack).toJSON().Resources as Record<string, { Metadata?: Record<string, unknown> }>,
    ).flatMap(
      (r) =>
        (r.Metadata?.cdk_nag as { rules_to_suppress: { id: string; reason: string }[] } | undefined)
          ?.rules_to_suppress ?? [],
    );
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const { id, reason } of acknowledged) {
      expect(id).toMatch(/^AwsSolutions-/);
      expect(reason.length).toBeGreaterThan(20);
    }
  });
});
