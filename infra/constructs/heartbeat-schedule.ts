import { Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { HEARTBEAT_EVENT } from '../../shared/integrator/heartbeat-event';

/** The default period of the heartbeat: EventBridge Scheduler's finest rate. */
export const DEFAULT_HEARTBEAT_RATE = Duration.minutes(1);

/** Props of {@link HeartbeatSchedule}. */
export interface HeartbeatScheduleProps {
  /** The integrator function the schedule invokes with `HEARTBEAT_EVENT`. */
  readonly integrator: lambda.IFunction;
  /** The period, whole minutes (Scheduler's granularity). @default DEFAULT_HEARTBEAT_RATE (1 minute) */
  readonly rate?: Duration;
}

/**
 * The integrator's heartbeat (docs/deployment-log.md, "Freshness window and interval"): an
 * EventBridge Scheduler schedule that invokes the integrator function with `HEARTBEAT_EVENT` at a
 * fixed rate, and the role it invokes with. The role is assumed by `scheduler.amazonaws.com` only
 * for this account, and may do one thing: `lambda:InvokeFunction` on the integrator. A missed
 * tick is not retried (the next one comes a period later), and an event older than the period is
 * dropped, so ticks never pile up behind an outage.
 */
export class HeartbeatSchedule extends Construct {
  readonly schedule: scheduler.CfnSchedule;
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: HeartbeatScheduleProps) {
    super(scope, id);
    const rate = props.rate ?? DEFAULT_HEARTBEAT_RATE;
    this.role = new iam.Role(this, 'Role', {
      description: 'EventBridge Scheduler: invokes the integrator with the heartbeat',
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    });
    // The function's ARN alone (not `grantInvoke`, which adds every version `:*`): the schedule
    // invokes the unqualified function.
    this.role.addToPolicy(
      new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [props.integrator.functionArn] }),
    );
    this.schedule = new scheduler.CfnSchedule(this, 'Schedule', {
      description: 'Reseal heartbeat: re-cosigns an idle deployment log (docs/deployment-log.md)',
      scheduleExpression: `rate(${rate.toMinutes()} minute${rate.toMinutes() === 1 ? '' : 's'})`,
      flexibleTimeWindow: { mode: 'OFF' },
      state: 'ENABLED',
      target: {
        arn: props.integrator.functionArn,
        roleArn: this.role.roleArn,
        input: JSON.stringify(HEARTBEAT_EVENT),
        retryPolicy: { maximumRetryAttempts: 0, maximumEventAgeInSeconds: rate.toSeconds() },
      },
    });
  }
}
