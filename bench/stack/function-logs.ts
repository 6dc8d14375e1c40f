/**
 * The Lambda functions' invocations, billed duration and log bytes, read from the emulator's
 * CloudWatch Logs: MiniStack writes each invocation's output to the function's log group between
 * `START` and `END` lines, with a `REPORT` line (`Billed Duration: N ms`, `Memory Size: M MB`), as
 * Lambda does. The SDK has no client for CloudWatch Logs in this project's dependencies, so the
 * two calls are made as plain JSON-protocol requests (the emulator does not check signatures).
 */
import { type CloudFormationClient, DescribeStackResourcesCommand } from '@aws-sdk/client-cloudformation';

/** What one function did in a time window. */
export interface FunctionActivity {
  readonly invocations: number;
  /** Sum over invocations of billed duration × memory, in GB-seconds. */
  readonly gbSeconds: number;
  /** Bytes of every log line (platform lines included: Lambda ingests them too). */
  readonly logBytes: number;
}

/** Activity by function (`guard`, `sealer`, `triage`, or the log group's logical id). */
export type FunctionsActivity = Readonly<Record<string, FunctionActivity>>;

/** A reader of the deployed functions' log groups. */
export interface FunctionLogs {
  /** Activity between two instants (ms since the Unix epoch, both included). */
  activity(fromMs: number, toMs: number): Promise<FunctionsActivity>;
}

const REPORT = /^REPORT RequestId: \S+\s+Duration: [\d.]+ ms\s+Billed Duration: ([\d.]+) ms\s+Memory Size: (\d+) MB/;

/** Activity of a list of log lines (pure: the parser of what the emulator wrote). */
export function activityOf(messages: readonly string[]): FunctionActivity {
  let invocations = 0;
  let gbSeconds = 0;
  let logBytes = 0;
  for (const message of messages) {
    logBytes += Buffer.byteLength(message);
    const report = REPORT.exec(message);
    if (!report) continue;
    invocations += 1;
    gbSeconds += (Number(report[1]) / 1000) * (Number(report[2]) / 1024);
  }
  return { invocations, gbSeconds, logBytes };
}

async function logsCall<T>(endpoint: string, operation: string, body: Record<string, unknown>): Promise<T> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `Logs_20140328.${operation}`,
      authorization:
        'AWS4-HMAC-SHA256 Credential=test/20261205/us-east-1/logs/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok)
    throw new Error(`CloudWatch Logs ${operation} failed: HTTP ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** The construct of each function's log group (infra/reseal-stack.ts) → the function's name. */
const LOG_GROUP_OWNERS: readonly [RegExp, string][] = [
  [/^(ResidualWritesConsumer|Guard)/i, 'guard'],
  [/^(SealRequestsConsumer|Sealer)/i, 'sealer'],
  [/^(IntegrationConsumer|Integrator)/i, 'integrator'],
  [/^Triage/i, 'triage'],
];

/** Which function a log group's logical id belongs to (the logical id itself when none). */
export function functionLabel(logicalId: string): string {
  return LOG_GROUP_OWNERS.find(([pattern]) => pattern.test(logicalId))?.[1] ?? logicalId;
}

/**
 * A {@link FunctionLogs} over the log groups of `stackName` (its `AWS::Logs::LogGroup` resources)
 * on `endpoint`.
 *
 * @throws {Error} when the stack has no log group
 */
export async function functionLogs(
  endpoint: string,
  cloudFormation: CloudFormationClient,
  stackName: string,
): Promise<FunctionLogs> {
  const { StackResources = [] } = await cloudFormation.send(
    new DescribeStackResourcesCommand({ StackName: stackName }),
  );
  const groups = StackResources.filter((r) => r.ResourceType === 'AWS::Logs::LogGroup' && r.PhysicalResourceId).map(
    (r) => ({ name: r.PhysicalResourceId as string, label: functionLabel(r.LogicalResourceId ?? '') }),
  );
  if (groups.length === 0) throw new Error(`stack ${stackName} has no AWS::Logs::LogGroup`);
  return {
    async activity(fromMs, toMs) {
      const out: Record<string, FunctionActivity> = {};
      for (const group of groups) {
        const messages: string[] = [];
        let nextToken: string | undefined;
        do {
          type Page = { events?: { message?: string }[]; nextToken?: string };
          const page = await logsCall<Page>(endpoint, 'FilterLogEvents', {
            logGroupName: group.name,
            startTime: fromMs,
            endTime: toMs,
            ...(nextToken ? { nextToken } : {}),
          }).catch((error: Error) => {
            // A function that never ran has no log group yet in the emulator.
            if (/ResourceNotFound/.test(error.message)) return { events: [] } as Page;
            throw error;
          });
          for (const event of page.events ?? []) messages.push(event.message ?? '');
          nextToken = page.nextToken && page.events?.length ? page.nextToken : undefined;
        } while (nextToken);
        out[group.label] = activityOf(messages);
      }
      return out;
    },
  };
}
