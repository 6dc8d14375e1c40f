import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { EventNotAcceptedError } from '../shared/errors';
import { DetailType, EVENT_SOURCE } from '../shared/pipeline/detail-type';
import type { ResidualRejectedDetail } from '../shared/pipeline/residual-rejected-detail';
import type { ResidualSealedDetail } from '../shared/pipeline/residual-sealed-detail';
import type { TriageCompletedDetail } from '../shared/pipeline/triage-completed-detail';
import type { EventPublisher } from '../shared/ports/event-publisher';

/** The part of `EventBridgeClient` this adapter uses. */
export type EventBridgeSend = Pick<EventBridgeClient, 'send'>;

/**
 * {@link EventPublisher} over EventBridge `PutEvents` (source `reseal`, one entry per call).
 * An entry the bus refuses throws {@link EventNotAcceptedError} (retryable).
 */
export class EventBridgePublisher implements EventPublisher {
  readonly #client: EventBridgeSend;
  readonly #eventBusName: string;

  constructor(client: EventBridgeSend, eventBusName: string) {
    this.#client = client;
    this.#eventBusName = eventBusName;
  }

  residualSealed(detail: ResidualSealedDetail): Promise<void> {
    return this.#put(DetailType.ResidualSealed, detail);
  }
  residualRejected(detail: ResidualRejectedDetail): Promise<void> {
    return this.#put(DetailType.ResidualRejected, detail);
  }
  triageCompleted(detail: TriageCompletedDetail): Promise<void> {
    return this.#put(DetailType.TriageCompleted, detail);
  }

  async #put(detailType: DetailType, detail: unknown): Promise<void> {
    const out = await this.#client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: this.#eventBusName,
            Source: EVENT_SOURCE,
            DetailType: detailType,
            Detail: JSON.stringify(detail),
          },
        ],
      }),
    );
    if ((out.FailedEntryCount ?? 0) > 0) {
      const entry = out.Entries?.[0];
      throw new EventNotAcceptedError(detailType, entry?.ErrorCode, entry?.ErrorMessage);
    }
  }
}
