import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SealedRunNotice } from '../shared/integrator/sealed-run-notice';
import type { IntegrationNotifier, NoticeFailure } from '../shared/ports/integration-notifier';
import { MAX_SEND_BATCH_ENTRIES } from './sqs-seal-queue';

/**
 * {@link IntegrationNotifier} over the standard SQS integration queue (docs/deployment-log.md,
 * "Sealed-run notices"): each notice one message (its JSON), sent in `SendMessageBatch` calls of
 * at most {@link MAX_SEND_BATCH_ENTRIES} entries, the calls at once (a standard queue keeps no
 * order anyway). A notice names at most 40 residual ids of at most 200 characters, under 13 KB,
 * so ten stay far below a batch's payload limit. A call that rejects fails its entries; an entry
 * the response names in `Failed`, or in neither list, is a failure of its own.
 */
export class SqsIntegrationNotifier implements IntegrationNotifier {
  readonly #client: Pick<SQSClient, 'send'>;
  readonly #queueUrl: string;

  constructor(client: Pick<SQSClient, 'send'>, queueUrl: string) {
    this.#client = client;
    this.#queueUrl = queueUrl;
  }

  async notify(notices: readonly SealedRunNotice[]): Promise<readonly NoticeFailure[]> {
    const chunks: SealedRunNotice[][] = [];
    for (let i = 0; i < notices.length; i += MAX_SEND_BATCH_ENTRIES) {
      chunks.push(notices.slice(i, i + MAX_SEND_BATCH_ENTRIES));
    }
    return (await Promise.all(chunks.map((chunk) => this.#send(chunk)))).flat();
  }

  /** One `SendMessageBatch` of `chunk` (entry ids: the notices' places in it). */
  async #send(chunk: readonly SealedRunNotice[]): Promise<NoticeFailure[]> {
    const entries = chunk.map((notice, i) => ({ Id: String(i), MessageBody: JSON.stringify(notice) }));
    let out: { Successful?: { Id?: string }[]; Failed?: { Id?: string; Code?: string; Message?: string }[] };
    try {
      out = await this.#client.send(new SendMessageBatchCommand({ QueueUrl: this.#queueUrl, Entries: entries }));
    } catch (error) {
      return chunk.map((notice) => ({ notice, error }));
    }
    const taken = new Set((out.Successful ?? []).map((entry) => entry.Id));
    const refused = new Map((out.Failed ?? []).map((entry) => [entry.Id, entry]));
    const failures: NoticeFailure[] = [];
    for (const [i, notice] of chunk.entries()) {
      const failed = refused.get(String(i));
      if (failed) {
        const error = new Error(`SendMessageBatch entry refused: ${failed.Code ?? 'no code'}: ${failed.Message ?? ''}`);
        failures.push({ notice, error });
      } else if (!taken.has(String(i))) {
        failures.push({ notice, error: new Error('SendMessageBatch reported nothing for the entry') });
      }
    }
    return failures;
  }
}
