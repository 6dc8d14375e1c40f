import {
  SendMessageBatchCommand,
  type SendMessageBatchCommandOutput,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { SqsIntegrationNotifier } from '../../../adapters/sqs-integration-notifier';
import { parseSealedRunNotice, type SealedRunNotice } from '../../../shared/integrator/sealed-run-notice';

/** A notice of lineage `lin-<i>` naming one record (the adapter sends what it is given). */
const noticeOf = (i: number): SealedRunNotice => ({
  v: 1,
  lineageId: `lin-${i}`,
  head: {
    treeSize: i + 1,
    rootHash: 'a'.repeat(64),
    headRecordHash: 'b'.repeat(64),
    generationEpoch: 1,
    writerPolicyDigest: null,
  },
  residuals: [{ residualId: `r-${i}`, seq: i, recordHash: 'b'.repeat(64) }],
  sealedAtMs: 1_800_000_000_000,
});

/** A client that answers each `SendMessageBatch` with `answer` and keeps every command it was sent. */
function client(answer: (command: SendMessageBatchCommand) => Partial<SendMessageBatchCommandOutput>) {
  const sent: unknown[] = [];
  const sqs = {
    send: async (command: unknown) => {
      sent.push(command);
      if (!(command instanceof SendMessageBatchCommand)) throw new Error('not a SendMessageBatch');
      return answer(command);
    },
  } as unknown as Pick<SQSClient, 'send'>;
  return { sqs, sent };
}

const allTaken = (command: SendMessageBatchCommand) => ({
  Successful: (command.input.Entries ?? []).map((e) => ({ Id: e.Id, MessageId: 'm', MD5OfMessageBody: '' })),
  Failed: [],
});

describe('SqsIntegrationNotifier: sealed-run notices in SendMessageBatch calls (docs/deployment-log.md, "Sealed-run notices")', () => {
  it('N notices are ⌈N/10⌉ SendMessageBatch calls and no SendMessage, each entry the notice as JSON', async () => {
    for (const n of [1, 10, 11, 25]) {
      const { sqs, sent } = client(allTaken);
      const notices = Array.from({ length: n }, (_, i) => noticeOf(i));
      expect(await new SqsIntegrationNotifier(sqs, 'https://queue').notify(notices)).toEqual([]);
      expect(sent).toHaveLength(Math.ceil(n / 10));
      expect(sent.some((command) => command instanceof SendMessageCommand)).toBe(false);
      const batches = sent as SendMessageBatchCommand[];
      expect(batches.every((c) => c.input.QueueUrl === 'https://queue' && (c.input.Entries ?? []).length <= 10)).toBe(
        true,
      );
      const bodies = batches.flatMap((c) => (c.input.Entries ?? []).map((e) => JSON.parse(e.MessageBody ?? '')));
      // The integrator reads the same body as before: one notice per message, valid as it parses them.
      expect(bodies.map((body) => parseSealedRunNotice(body))).toEqual(notices);
    }
  });

  it("an entry in the response's Failed, or in neither list, is that notice's failure; the others are sent", async () => {
    const { sqs } = client((command) => {
      const entries = command.input.Entries ?? [];
      const first = entries[0]?.MessageBody?.includes('"lin-0"');
      return {
        // In the first call: entry 1 refused, entry 2 named nowhere.
        Successful: entries.filter((e) => !first || (e.Id !== '1' && e.Id !== '2')).map((e) => ({ Id: e.Id })),
        Failed: first ? [{ Id: '1', Code: 'InternalError', Message: 'try again', SenderFault: false }] : [],
      } as Partial<SendMessageBatchCommandOutput>;
    });
    const notices = Array.from({ length: 12 }, (_, i) => noticeOf(i));
    const failures = await new SqsIntegrationNotifier(sqs, 'https://queue').notify(notices);
    expect(failures.map((f) => f.notice.lineageId)).toEqual(['lin-1', 'lin-2']);
    expect(String(failures[0]?.error)).toContain('InternalError: try again');
    expect(String(failures[1]?.error)).toContain('reported nothing');
  });

  it('a call that rejects fails its own entries only', async () => {
    const { sqs } = client((command) => {
      if ((command.input.Entries ?? []).length === 2) throw new Error('throttled');
      return allTaken(command);
    });
    const failures = await new SqsIntegrationNotifier(sqs, 'https://queue').notify(
      Array.from({ length: 12 }, (_, i) => noticeOf(i)),
    );
    expect(failures.map((f) => f.notice.lineageId)).toEqual(['lin-10', 'lin-11']);
    expect(failures.every((f) => (f.error as Error).message === 'throttled')).toBe(true);
  });
});
