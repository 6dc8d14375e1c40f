import { randomUUID } from 'node:crypto';
import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { signWriteRequest, writeSignatureProblem } from '../shared/authorship/write-signature';
import { canonicalJson } from '../shared/canonical/canonical-json';
import { InvalidInputError } from '../shared/errors';
import { DetailType, EVENT_SOURCE } from '../shared/pipeline/detail-type';
import { recallEntrySizeIssue } from '../shared/pipeline/event-entry-bytes';
import { type RecallRequestedDetail, RecallRequestedDetailSchema } from '../shared/pipeline/recall-requested-detail';
import type { WriterSigner } from '../shared/ports/writer-signer';
import { parseInput } from '../shared/schemas/parse';
import { recallSourceOf } from '../shared/tenancy/recall-source';
import { assertLineageOfTenant } from '../shared/tenancy/tenants';
import {
  type ResidualWriteRequest,
  ResidualWriteRequestSchema,
  type UnsignedWriteRequest,
} from '../shared/write/write-request';
import { PublishError } from './errors';
import type { ResealStackOutputs } from './stack-outputs';
import { writeQueueUrl } from './write-queue-url';

/** A recall to request: {@link RecallRequestedDetail} with `requestId` optional (generated when absent). */
export type RecallRequest = Omit<RecallRequestedDetail, 'requestId'> & { readonly requestId?: string };

/** What ties an outcome to one publish ({@link StackPublisher.publishWrite} returns what it needs). */
export interface PublishedWrite {
  /** The SQS `MessageId` of the publish. */
  readonly messageId: string;
  /** The client's clock when the write was sent, ms since the Unix epoch. */
  readonly publishedAtMs: number;
  /** The request as sent, signed: pass it to `waitForOutcome` (its outcome names this request). */
  readonly request: ResidualWriteRequest;
}

/** Dependencies of {@link StackPublisher}. */
export interface StackPublisherDeps {
  readonly outputs: Pick<ResealStackOutputs, 'residualWritesQueueUrl' | 'eventBusName' | 'tenantQueueUrls'>;
  readonly sqs: Pick<SQSClient, 'send'>;
  readonly eventBridge: Pick<EventBridgeClient, 'send'>;
  readonly nowMs: () => number;
  /** Signs every write (docs/authorship.md, "Signed writes"); without one, only signed requests are sent. */
  readonly writer?: WriterSigner;
  /**
   * The tenant the client acts for in a stack with tenants: recalls are put with its source
   * `reseal.tenant.<id>` (docs/triage.md, "Tenants"), and a write or recall naming a lineage
   * outside `<tenantId>/` is refused `TENANT_MISMATCH` before it is signed or sent. @default none: source `reseal`
   */
  readonly tenantId?: string;
}

/**
 * What the client sends into a deployed stack (docs/pipeline.md): residual writes to the
 * `residual-writes` queue, recall requests to the event bus. Each is validated with the core
 * schema first, so a malformed message never leaves the agent, and sent as RFC 8785 canonical JSON.
 */
export class StackPublisher {
  readonly #deps: StackPublisherDeps;
  constructor(deps: StackPublisherDeps) {
    this.#deps = deps;
  }

  /**
   * The queue this client's writes go to: residual-writes, or its tenant's queue in a stack with tenants.
   * @throws {TenantRequiredError} on a stack with tenants, when the client names none of them
   */
  writeQueueUrl(): string {
    return writeQueueUrl(this.#deps.outputs, this.#deps.tenantId);
  }

  /**
   * Sends a residual write to the `residual-writes` queue (the guard Lambda consumes it), signed
   * by the writer key first ({@link signedRequest}).
   *
   * @returns the SQS `MessageId`, the client's clock before sending (`publishedAtMs`) and the
   *   signed request sent
   * @throws {InvalidInputError} naming each bad field, or a signature the guard would refuse
   * @throws {PublishError} when SQS returns no message id
   */
  async publishWrite(request: UnsignedWriteRequest | ResidualWriteRequest): Promise<PublishedWrite> {
    return this.publishSigned(await this.signedRequest(request));
  }

  /**
   * Sends a request {@link signedRequest} returned, as is (no second signature).
   * @throws {InvalidInputError} naming each bad field
   * @throws {TenantMismatchError} when the lineage is not of the client's tenant (nothing sent)
   * @throws {TenantRequiredError} on a stack with tenants, when the client names none of them (nothing sent)
   * @throws {PublishError} when SQS returns no message id
   */
  async publishSigned(request: ResidualWriteRequest): Promise<PublishedWrite> {
    const { sqs, nowMs } = this.#deps;
    const parsed = parseInput(ResidualWriteRequestSchema, request, 'residual write request');
    // The guard would refuse it TENANT_MISMATCH, unsigned, filed where this writer may not read.
    assertLineageOfTenant(parsed.lineageId, this.#deps.tenantId);
    const queueUrl = this.writeQueueUrl();
    const publishedAtMs = nowMs();
    const out = await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: canonicalJson(parsed) }));
    if (!out.MessageId) throw new PublishError('SQS SendMessage returned no MessageId', null);
    return { messageId: out.MessageId, publishedAtMs, request: parsed };
  }

  /**
   * The request as it will be sent: signed now by the writer key (any writer block it had is
   * replaced), or, without a writer key, its own signature checked as the guard will check it
   * (signature and age), so an honest client never publishes a write the guard must refuse.
   *
   * @throws {InvalidInputError} naming each bad field, an unsigned request with no writer key, or
   *   a signature that does not verify or is too old
   * @throws {TenantMismatchError} when the lineage is not of the client's tenant (nothing signed)
   * @throws {TenantRequiredError} on a stack with tenants, when the client names none of them (nothing signed)
   */
  async signedRequest(request: UnsignedWriteRequest | ResidualWriteRequest): Promise<ResidualWriteRequest> {
    const { writer, nowMs } = this.#deps;
    if (typeof request.lineageId === 'string') assertLineageOfTenant(request.lineageId, this.#deps.tenantId);
    this.writeQueueUrl(); // no tenant of a stack with tenants: nothing signed
    if (writer) return signWriteRequest(request, writer, nowMs());
    if (!('writer' in request) || request.writer === undefined) {
      throw new InvalidInputError('residual write request', [
        { path: 'writer', message: 'the request is unsigned and the client has no writer key to sign it' },
      ]);
    }
    const parsed = parseInput(ResidualWriteRequestSchema, request, 'residual write request');
    const problem = writeSignatureProblem(parsed, nowMs());
    if (problem !== null) throw new InvalidInputError('residual write request', [{ path: 'writer', message: problem }]);
    return parsed;
  }

  /**
   * Puts a `RecallRequested` event (source `reseal`, or the tenant's `reseal.tenant.<id>`) on the stack's bus; the triage Lambda
   * answers with a report stored under `TRIAGE#<lineageId>` / `<requestId>`.
   *
   * @returns the request id (the one given, or a generated `recall-<uuid>`)
   * @throws {InvalidInputError} naming each bad field of the detail, or (at `currentEnv`) an entry
   *   over EventBridge's PutEvents limit (`MAX_EVENT_ENTRY_BYTES`), before anything is sent
   * @throws {TenantMismatchError} when the lineage is not of the client's tenant, before anything is sent
   * @throws {PublishError} when EventBridge refuses the entry
   * @throws {TenantRequiredError} on a stack with tenants, when the client names none of them (nothing put)
   */
  async requestRecall(detail: RecallRequest): Promise<string> {
    const parsed = parseInput(
      RecallRequestedDetailSchema,
      { ...detail, requestId: detail.requestId ?? `recall-${randomUUID()}` },
      'recall request',
    );
    const { tenantId } = this.#deps;
    // Triage would refuse it and store nothing (docs/triage.md, "Tenants"): said here, before anything is put.
    assertLineageOfTenant(parsed.lineageId, tenantId);
    // A recall of no tenant on a stack with tenants: the bus refuses the source `reseal` (TENANT_REQUIRED here).
    this.writeQueueUrl();
    const source = tenantId === undefined ? EVENT_SOURCE : recallSourceOf(tenantId);
    const detailText = canonicalJson(parsed);
    // EventBridge refuses an entry over 256 KiB only after it is sent, with an opaque error:
    // refuse it here, naming the limit and the way out (docs/cli.md, "Input limits").
    const tooLarge = recallEntrySizeIssue(
      { source, detailType: DetailType.RecallRequested, detail: detailText },
      Object.keys(parsed.currentEnv).length,
    );
    if (tooLarge) throw new InvalidInputError('recall request', [{ path: 'currentEnv', message: tooLarge }]);
    const out = await this.#deps.eventBridge.send(
      new PutEventsCommand({
        Entries: [
          {
            Source: source,
            DetailType: DetailType.RecallRequested,
            EventBusName: this.#deps.outputs.eventBusName,
            Detail: detailText,
          },
        ],
      }),
    );
    const entry = out.Entries?.[0];
    if ((out.FailedEntryCount ?? 0) > 0 || !entry?.EventId) {
      throw new PublishError(
        `EventBridge refused RecallRequested ${parsed.requestId}: ${entry?.ErrorMessage ?? 'no event id'}`,
        entry?.ErrorCode ?? null,
      );
    }
    return parsed.requestId;
  }
}
