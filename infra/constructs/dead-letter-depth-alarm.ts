import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** An alarm that fires when `queue` holds at least one visible message (checked each minute). */
export function deadLetterDepthAlarm(scope: Construct, queue: sqs.IQueue, what: string): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, 'DeadLetterAlarm', {
    alarmDescription: `Messages in the ${what}: a message failed all its attempts`,
    metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}
