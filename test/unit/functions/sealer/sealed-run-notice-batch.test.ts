import {
  SendMessageBatchCommand,
  type SendMessageBatchCommandOutput,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { describe, expect, it, vi } from 'vitest';
import { SqsIntegrationNotifier } from '../../../../adapters/sqs-integration-notifier';
import { parseSealedRunNotice } from '../../../../shared/integrator/sealed-run-notice';
import { lambdaContext, sealRequestBody, sqsEvent, sqsRecord } from '../../../helpers/factories';
import { FACTORY_NOW_MS } from '../../../helpers/guard-factories';
import { testSealerHandler } from '../../../helpers/service-factories';
import { testLineageId } from '../../../helpers/writer-factories';

/**
 * An SQS client that answers `SendMessageBatch` with `failedIds` refused (or rejects, `throws`),
 * keeping every command; `onSend` runs first at each call.
 */
function sqsClient(options: { failedIds?: readonly string[]; throws?: boolean; onSend?: () => Promise<void> } = {}) {
  const sent: unknown[] = [];
  const sqs = {
    send: async (command: unknown) => {
      await options.onSend?.();
      sent.push(command);
      if (options.throws) throw new Error('SQS unavailable');
      if (!(command instanceof SendMessageBatchCommand)) return {};
      const entries = command.input.Entries ?? [];
      const failed = new Set(options.failedIds ?? []);
      return {
        Successful: entries.filter((e) => !failed.has(e.Id ?? '')).map((e) => ({ Id: e.Id })),
        Failed: entries
          .filter((e) => failed.has(e.Id ?? ''))
          .map((e) => ({ Id: e.Id, Code: 'InternalError', Message: 'try again', SenderFault: false })),
      } as Partial<SendMessageBatchCommandOutput>;
    },
  } as unknown as Pick<SQSClient, 'send'>;
  return { sqs, sent };
}

/** One write to each of `n` lineages: `n` message groups, so `n` runs in one invocation. */
function oneWriteEach(n: number) {
  const lineages = Array.from({ length: n }, (_, i) => testLineageId(`notice-batch-${i}`));
  return { lineages, records: lineages.map((l) => sqsRecord(sealRequestBody({ lineageId: l, residualId: 'r-0' }), l)) };
}

describe('sealed-run notices: one batch per sealer invocation (docs/deployment-log.md, "Sealed-run notices")', () => {
  it('N runs in one invocation are ⌈N/10⌉ SendMessageBatch calls, no SendMessage, sent once every run is stored', async () => {
    for (const n of [3, 12]) {
      const { lineages, records } = oneWriteEach(n);
      // How many of the lineages had their record stored at each call.
      const storedAtSend: number[] = [];
      const { sqs, sent } = sqsClient({
        onSend: async () => {
          const chains = await Promise.all(lineages.map((l) => store.readChain(l, 0, 0)));
          storedAtSend.push(chains.filter((chain) => chain.length === 1).length);
        },
      });
      const { handler, store } = testSealerHandler({ notifier: new SqsIntegrationNotifier(sqs, 'https://queue') });
      const response = await handler(sqsEvent(records), lambdaContext());
      expect(response.batchItemFailures).toEqual([]);
      expect(sent).toHaveLength(Math.ceil(n / 10));
      expect(sent.every((command) => command instanceof SendMessageBatchCommand)).toBe(true);
      expect(sent.some((command) => command instanceof SendMessageCommand)).toBe(false);
      // Sent once the invocation's runs are done, not as each run ends.
      expect(storedAtSend).toEqual(sent.map(() => n));
      const notices = (sent as SendMessageBatchCommand[])
        .flatMap((c) => c.input.Entries ?? [])
        .map((e) => parseSealedRunNotice(JSON.parse(e.MessageBody ?? '')));
      expect(notices.map((notice) => notice.lineageId).sort()).toEqual([...lineages].sort());
      expect(notices.every((notice) => notice.head.treeSize === 1 && notice.residuals[0]?.residualId === 'r-0')).toBe(
        true,
      );
    }
  });

  it('a failed entry is logged as a notice not sent, and loses no record: every write sealed, none reported failed', async () => {
    const { sqs } = sqsClient({ failedIds: ['1'] });
    const { handler, store, logger } = testSealerHandler({
      notifier: new SqsIntegrationNotifier(sqs, 'https://queue'),
    });
    const error = vi.spyOn(logger, 'error');
    const { lineages, records } = oneWriteEach(3);
    const response = await handler(sqsEvent(records), lambdaContext());
    expect(response.batchItemFailures).toEqual([]);
    for (const lineageId of lineages) expect(await store.readChain(lineageId, 0, 0)).toHaveLength(1);
    const lines = error.mock.calls.filter(([message]) =>
      String(message).startsWith('the sealed-run notice could not be sent'),
    );
    expect(lines).toHaveLength(1);
    const logged = lines[0]?.[1] as { lineageId: string; treeSize: number; error: unknown };
    expect(lineages).toContain(logged.lineageId);
    expect(logged.treeSize).toBe(1);
    expect(String(logged.error)).toContain('InternalError');
  });

  it('a batch call that rejects logs each of its notices; the writes stay sealed and the handler resolves', async () => {
    const { sqs } = sqsClient({ throws: true });
    const { handler, store, logger } = testSealerHandler({
      notifier: new SqsIntegrationNotifier(sqs, 'https://queue'),
    });
    const error = vi.spyOn(logger, 'error');
    const { lineages, records } = oneWriteEach(2);
    expect((await handler(sqsEvent(records), lambdaContext())).batchItemFailures).toEqual([]);
    for (const lineageId of lineages) expect(await store.readChain(lineageId, 0, 0)).toHaveLength(1);
    const logged = error.mock.calls
      .filter(([message]) => String(message).startsWith('the sealed-run notice could not be sent'))
      .map(([, attributes]) => (attributes as { lineageId: string }).lineageId);
    expect(logged.sort()).toEqual([...lineages].sort());
  });

  it('a group handled on its own (no invocation given) sends its notices before it resolves', async () => {
    const { sqs, sent } = sqsClient();
    const { service } = testSealerHandler({ notifier: new SqsIntegrationNotifier(sqs, 'https://queue') });
    const lineageId = testLineageId('notice-batch-alone');
    const outcome = await service.handle({
      messageId: 'm-1',
      body: sealRequestBody({ lineageId, residualId: 'r-0' }),
      sentAtMs: FACTORY_NOW_MS,
    });
    expect(outcome.kind).toBe('SEALED');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(SendMessageBatchCommand);
  });
});
