import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SealedRunNotice } from '../shared/integrator/sealed-run-notice';
import type { IntegrationNotifier } from '../shared/ports/integration-notifier';

/**
 * {@link IntegrationNotifier} over the standard SQS integration queue (docs/deployment-log.md,
 * "Sealed-run notices"): one `SendMessage` per sealed run, the notice as JSON.
 */
export class SqsIntegrationNotifier implements IntegrationNotifier {
  readonly #client: Pick<SQSClient, 'send'>;
  readonly #queueUrl: string;

  constructor(client: Pick<SQSClient, 'send'>, queueUrl: string) {
    this.#client = client;
    this.#queueUrl = queueUrl;
  }

  async notify(notice: SealedRunNotice): Promise<void> {
    await this.#client.send(new SendMessageCommand({ QueueUrl: this.#queueUrl, MessageBody: JSON.stringify(notice) }));
  }
}
