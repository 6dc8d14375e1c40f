import { randomUUID } from 'node:crypto';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { DisableKeyCommand, EnableKeyCommand } from '@aws-sdk/client-kms';
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { TimeoutError } from '../../client/errors';
import { ResealClient } from '../../client/reseal-client';
import { clientOutputsFrom } from '../../client/stack-outputs';
import type { SealRequest } from '../../shared/pipeline/seal-request';
import { verifyChain } from '../../shared/seal/verify-chain';
import { buildManifest } from '../../shared/triage/build-manifest';
import { deployedStack } from '../helpers/deployed-stack';
import { expectGuarantee } from '../helpers/guarantees';
import { validWriteRequest } from '../helpers/guard-factories';
import { until } from '../helpers/until';
import { testLineageId } from '../helpers/writer-factories';

// Faults whose outcome is AWS behaviour (docs/guarantees.md "Faults"), on the deployed stack: a disabled KMS
// key meeting the sealer Lambda, SQS's redrive to the dead-letter queue, a redrive back, and what
// EventBridge and the Lambda runtime hand triage for a detail that repeats a member name.
const { stack, endpoint, sqs, dynamodb, kms, events, store, anchor } = deployedStack();
const client = new ResealClient(clientOutputsFrom({ ...stack }), { sqs, dynamodb, kms, eventBridge: events });

afterAll(() => {
  sqs.destroy();
  dynamodb.destroy();
  kms.destroy();
  events.destroy();
});

/**
 * Log lines of the function whose log group's name holds `construct` (CloudWatch Logs
 * `FilterLogEvents` through the emulator's JSON endpoint; the project carries no Logs client).
 */
async function logLines(construct: string, sinceMs: number): Promise<string[]> {
  const call = async (target: string, body: unknown) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': `Logs_20140328.${target}`,
        authorization:
          'AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/logs/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`Logs ${target}: HTTP ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  };
  const groups = (await call('DescribeLogGroups', {})).logGroups as { logGroupName: string }[];
  const lines: string[] = [];
  for (const { logGroupName } of groups.filter((g) => g.logGroupName.includes(construct))) {
    let nextToken: string | undefined;
    do {
      const page = await call('FilterLogEvents', {
        logGroupName,
        startTime: sinceMs,
        ...(nextToken ? { nextToken } : {}),
      });
      lines.push(...((page.events ?? []) as { message: string }[]).map((e) => e.message));
      nextToken = page.nextToken as string | undefined;
    } while (nextToken);
  }
  return lines;
}

/** The messages now in a queue, left there (visibility 0), up to 10 receives. */
async function peek(queueUrl: string): Promise<Message[]> {
  const seen = new Map<string, Message>();
  for (let i = 0; i < 3; i++) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 0,
        WaitTimeSeconds: 0,
      }),
    );
    for (const m of out.Messages ?? []) seen.set(m.MessageId ?? '', m);
  }
  return [...seen.values()];
}

const SEALED_ENV = { ARCH: 'arm64', REGION: 'eu-west-1', TOOL_VERSION: '1.2.3' };
const manifest = buildManifest({
  env: SEALED_ENV,
  structuralKeys: ['ARCH'],
  claimDependencyMap: { 'claim-region': ['REGION'], 'claim-tooling': ['TOOL_VERSION'] },
});
const write = (lineageId: string, residualId: string) =>
  validWriteRequest({ lineageId, residualId, manifest }, { nowMs: Date.now() });

describe('faults on the deployed stack (docs/guarantees.md "Faults")', () => {
  it('KMS DisableKey on the MAC key: bounded receives, then the seal-requests DLQ, the reason in the sealer log, nothing stored; a redrive seals it once', async (context) => {
    const lineageId = testLineageId(`lin-kms-${randomUUID()}`);
    const request = write(lineageId, 'r-kms-disabled');
    const queueUrl = stack.SealRequestsQueueUrl;
    const attributes = (
      await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['VisibilityTimeout'] }))
    ).Attributes;
    const startedAtMs = Date.now();
    // Six function timeouts of visibility would make five receives take 15 minutes: 2 s here.
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { VisibilityTimeout: '2' } }));
    await kms.send(new DisableKeyCommand({ KeyId: stack.MacKeyArn }));
    let deadLetter: Message | undefined;
    let view: string;
    let logged: string[];
    try {
      const published = await client.publishWrite(request);
      view = await client
        .waitForOutcome(lineageId, request.residualId, {
          request,
          sinceMs: published.publishedAtMs - 5000,
          timeoutMs: 5000,
        })
        .then((o) => o.kind as string)
        .catch((error: unknown) => (error instanceof TimeoutError ? 'TIMEOUT' : Promise.reject(error)));
      deadLetter = await until(
        'the write in the seal-requests DLQ',
        async () =>
          (await peek(stack.SealRequestsDlqUrl)).find(
            (m) => (JSON.parse(m.Body ?? '{}') as SealRequest).request?.residualId === request.residualId,
          ),
        { timeoutMs: 120_000 },
      );
      logged = (await logLines('SealRequestsConsumer', startedAtMs)).filter(
        (line) => line.includes('DisabledException') && line.includes(request.residualId),
      );
    } finally {
      await kms.send(new EnableKeyCommand({ KeyId: stack.MacKeyArn }));
      await sqs.send(
        new SetQueueAttributesCommand({
          QueueUrl: queueUrl,
          Attributes: { VisibilityTimeout: attributes?.VisibilityTimeout ?? '180' },
        }),
      );
    }
    const counted = (
      await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: stack.SealRequestsDlqUrl,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 30,
          MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        }),
      )
    ).Messages?.find((m) => m.MessageId === deadLetter?.MessageId);
    const receives = Number(counted?.Attributes?.ApproximateReceiveCount ?? 0);
    const stored =
      (await store.readChain(lineageId, 0, 10)).length +
      (await store.listRejections(lineageId)).length +
      (await store.listConflicts(lineageId)).length;
    expectGuarantee(
      context,
      {
        section: 'faults',
        target: 'KMS (MAC key)',
        attack: 'key disabled (DisableKey) while a write is in flight',
        reader: 'publish --wait, seal-requests DLQ, sealer log (CloudWatch Logs)',
        expected: 'TIMEOUT; in the DLQ; DisabledException logged with the residual id; nothing stored',
      },
      `${view}; ${deadLetter ? 'in the DLQ' : 'not in the DLQ'}; ${logged.length > 0 ? 'DisabledException logged with the residual id' : 'no log line names DisabledException'}; ${stored === 0 ? 'nothing stored' : `${stored} items stored`}`,
    );
    expect(receives).toBeGreaterThanOrEqual(5);

    // A redrive of the dead letter back to seal-requests (as SQS's message move task does; the
    // emulator enforces no queue policy, which on AWS leaves this to the guard's role, see
    // docs/pipeline.md): the sealer re-checks it like any message and seals it once. (The
    // documented operator path, the request resent to residual-writes, is forwarded with the same
    // deduplication id, so inside the FIFO queue's 5-minute window it is dropped; on the stack a
    // message reaches the DLQ only after 5 receives of 180 s, past that window.)
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: deadLetter?.Body ?? '',
        MessageGroupId: lineageId,
        MessageDeduplicationId: `redrive-${randomUUID()}`,
      }),
    );
    const after = await client.waitForOutcome(lineageId, request.residualId, {
      request,
      sinceMs: startedAtMs - 5000,
      timeoutMs: 90_000,
    });
    const chain = await store.readChain(lineageId, 0, 10);
    expectGuarantee(
      context,
      {
        section: 'faults',
        target: 'seal-requests DLQ',
        attack: 'redrive of the dead letter to seal-requests once the key is enabled again',
        reader: 'publish --wait (client.waitForOutcome)',
        expected: 'SEALED; 1 record; chain VERIFIED_INTACT',
      },
      `${after.kind}; ${chain.length} record${chain.length === 1 ? '' : 's'}; chain ${(await verifyChain(chain, { lineageId, anchor })).verdict}`,
    );
    await sqs.send(
      new DeleteMessageCommand({ QueueUrl: stack.SealRequestsDlqUrl, ReceiptHandle: counted?.ReceiptHandle ?? '' }),
    );
  });

  it('a RecallRequested detail put straight on the bus with a repeated currentEnv key reaches triage with the last value only (the limit docs/triage.md states)', async (context) => {
    const lineageId = testLineageId(`lin-dup-${randomUUID()}`);
    const request = write(lineageId, 'r-dup');
    await client.publishWrite(request);
    await client.waitForOutcome(lineageId, request.residualId, { request, timeoutMs: 90_000 });
    const requestId = `recall-dup-${randomUUID()}`;
    // Raw text: REGION first drifted, then as sealed. Only text can repeat a name.
    const detail = `{"requestId":"${requestId}","lineageId":"${lineageId}","target":{"latest":true},"currentEnv":{"ARCH":"arm64","REGION":"us-east-1","TOOL_VERSION":"1.2.3","REGION":"eu-west-1"}}`;
    await events.send(
      new PutEventsCommand({
        Entries: [
          { EventBusName: stack.EventBusName, Source: 'reseal', DetailType: 'RecallRequested', Detail: detail },
        ],
      }),
    );
    const report = await until('the triage report', () =>
      store.getTriageReport(lineageId, requestId).then((r) => r ?? undefined),
    );
    // EventBridge parses the detail (the emulator with Python's json, keeping the last value) and
    // the Lambda runtime parses the event before the handler: the repeat never reaches triage, so
    // triage cannot refuse it (docs/triage.md, "Repeated member names in a detail").
    const changed = report.report?.driftedKeys.changed ?? [];
    expectGuarantee(
      context,
      {
        section: 'faults',
        target: 'RecallRequested detail',
        attack: 'currentEnv repeats a key (PutEvents with raw text, parsed before the handler)',
        reader: 'triage report (TriageCompleted)',
        expected: 'TRIAGED NO_DRIFT: only the last REGION reached triage (documented limit)',
      },
      `${report.outcome} ${report.report?.verdict ?? report.refusalCode}: only the ${changed.includes('REGION') ? 'first' : 'last'} REGION reached triage (documented limit)`,
    );
  });
});
