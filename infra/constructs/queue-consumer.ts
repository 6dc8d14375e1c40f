import { Duration, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deadLetterDepthAlarm } from './dead-letter-depth-alarm';
import { eventSourceVisibilityTimeout } from './event-source-visibility-timeout';
import { ResealFunction, type ResealFunctionProps } from './reseal-function';

/** SQS's largest message, set explicitly: a queue created without it may keep a smaller limit. */
export const MAX_MESSAGE_SIZE_BYTES = 1_048_576;
/** How long a work queue keeps a message (the sealer refuses a seal request accepted longer ago). */
export const QUEUE_RETENTION = Duration.days(4);
/** Receives before a message is dead-lettered, unless a queue sets its own. */
export const DEFAULT_MAX_RECEIVE_COUNT = 5;

/** Props of {@link QueueConsumer}. */
export interface QueueConsumerProps {
  /**
   * Base name of the queue. For a FIFO queue the physical name is `<stack name>-<name>.fifo`
   * (some emulators treat only `.fifo` names as FIFO); a standard queue keeps a generated name.
   */
  readonly name: string;
  /**
   * FIFO queue (and FIFO dead-letter queue); deduplication by explicit id, never by content; the
   * work queue in high-throughput mode (deduplication scope and throughput limit per message group).
   */
  readonly fifo: boolean;
  /** The consuming function. */
  readonly function: ResealFunctionProps;
  /** Receives before a message goes to the dead-letter queue. @default {@link DEFAULT_MAX_RECEIVE_COUNT} (5) */
  readonly maxReceiveCount?: number;
  /** Records per invocation. @default 10 */
  readonly batchSize?: number;
  /** How long the event source gathers records before invoking (a standard queue only). @default none */
  readonly maxBatchingWindow?: Duration;
  /**
   * Invocations the event source runs at once at most (its `ScalingConfig`, 2 to 1000). Unlike a
   * function's reserved concurrency it throttles nothing: the pollers hold messages back instead of
   * having invocations refused, so no message waits out its visibility timeout. @default none
   */
  readonly maxConcurrency?: number;
}

/**
 * A queue, its dead-letter queue, the function that consumes it, the event source (partial batch
 * responses: `ReportBatchItemFailures`) and an alarm on the dead-letter queue's depth.
 *
 * Both queues use SQS-managed server-side encryption and refuse non-TLS requests; no queue may
 * name the work queue its dead-letter queue (`RedriveAllowPolicy` `denyAll`); the maximum
 * message size is 1 MiB and the visibility timeout six times the function's timeout plus the
 * batching window ({@link eventSourceVisibilityTimeout}).
 */
export class QueueConsumer extends Construct {
  /** The work queue. */
  readonly queue: sqs.Queue;
  /** Where messages go after `maxReceiveCount` failed receives. */
  readonly deadLetterQueue: sqs.Queue;
  /** The consumer. */
  readonly consumer: ResealFunction;
  /** Fires when the dead-letter queue holds at least one message. */
  readonly deadLetterAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: QueueConsumerProps) {
    super(scope, id);
    this.consumer = new ResealFunction(this, 'Consumer', props.function);
    const functionTimeout = props.function.timeout ?? Duration.seconds(30);
    const stackName = Stack.of(this).stackName;
    const fifoProps = (suffix: string): Partial<sqs.QueueProps> =>
      props.fifo
        ? { fifo: true, contentBasedDeduplication: false, queueName: `${stackName}-${props.name}${suffix}.fifo` }
        : {};

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      ...fifoProps('-dlq'),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      maxMessageSizeBytes: MAX_MESSAGE_SIZE_BYTES,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      ...fifoProps(''),
      // FIFO high-throughput mode: deduplication and the 300 sends/s quota per message group (a
      // lineage), not per queue, so a stack's FIFO throughput grows with its lineages.
      ...(props.fifo
        ? {
            deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
            fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
          }
        : {}),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      maxMessageSizeBytes: MAX_MESSAGE_SIZE_BYTES,
      visibilityTimeout: eventSourceVisibilityTimeout(functionTimeout, props.maxBatchingWindow),
      retentionPeriod: QUEUE_RETENTION,
      deadLetterQueue: {
        queue: this.deadLetterQueue,
        maxReceiveCount: props.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT,
      },
      // No queue may name this one its dead-letter queue: SQS would move another queue's messages
      // in itself, a way in beside the `sqs:SendMessage` a work queue's policy denies
      // (docs/infrastructure.md, "Permissions"); by default any queue of the account may.
      redriveAllowPolicy: { redrivePermission: sqs.RedrivePermission.DENY_ALL },
    });

    this.consumer.fn.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: props.batchSize ?? 10,
        reportBatchItemFailures: true,
        ...(props.maxBatchingWindow ? { maxBatchingWindow: props.maxBatchingWindow } : {}),
        ...(props.maxConcurrency ? { maxConcurrency: props.maxConcurrency } : {}),
      }),
    );

    this.deadLetterAlarm = deadLetterDepthAlarm(this, this.deadLetterQueue, `${props.name} dead-letter queue`);
  }
}
