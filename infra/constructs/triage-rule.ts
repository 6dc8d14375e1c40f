import { Duration, Validations } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DetailType, EVENT_SOURCE } from '../../shared/pipeline/detail-type';
import { deadLetterDepthAlarm } from './dead-letter-depth-alarm';
import { MAX_MESSAGE_SIZE_BYTES } from './queue-consumer';

/** Props of {@link TriageRule}. */
export interface TriageRuleProps {
  /** The custom bus orchestration publishes `RecallRequested` to. */
  readonly bus: events.IEventBus;
  /** The triage function. */
  readonly target: lambda.IFunction;
  /** Retries of a failed delivery to the function. @default 4 */
  readonly retryAttempts?: number;
  /** Oldest event still delivered. @default Duration.hours(2) */
  readonly maxEventAge?: Duration;
  /** The `source` values routed (docs/triage.md, "Tenants"). @default [EVENT_SOURCE] */
  readonly sources?: readonly string[];
}

/**
 * Routes `RecallRequested` events (source `reseal`, and with tenants each tenant's `reseal.tenant.<id>`) from the bus to the triage function, with a
 * retry policy, a dead-letter queue for events that could not be delivered, and an alarm on it.
 */
export class TriageRule extends Construct {
  /** The rule. */
  readonly rule: events.Rule;
  /** Events EventBridge could not deliver to the function. */
  readonly deadLetterQueue: sqs.Queue;
  /** Fires when the dead-letter queue holds at least one event. */
  readonly deadLetterAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: TriageRuleProps) {
    super(scope, id);
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      maxMessageSizeBytes: MAX_MESSAGE_SIZE_BYTES,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself a dead-letter queue: the rule target sends undeliverable events here ' +
        "(DeadLetterConfig). cdk-nag recognises only queues named in another queue's RedrivePolicy.",
    });
    this.rule = new events.Rule(this, 'Rule', {
      eventBus: props.bus,
      description: 'RecallRequested → triage',
      eventPattern: { source: [...(props.sources ?? [EVENT_SOURCE])], detailType: [DetailType.RecallRequested] },
    });
    this.rule.addTarget(
      new targets.LambdaFunction(props.target, {
        deadLetterQueue: this.deadLetterQueue,
        retryAttempts: props.retryAttempts ?? 4,
        maxEventAge: props.maxEventAge ?? Duration.hours(2),
      }),
    );
    this.deadLetterAlarm = deadLetterDepthAlarm(this, this.deadLetterQueue, 'triage rule dead-letter queue');
  }
}
