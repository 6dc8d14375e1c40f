import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it, vi } from 'vitest';
import { createGuardHandler } from '../../../../functions/guard/create-handler';
import { tenantQueuesFrom } from '../../../../functions/guard/tenant-queues';
import { lineageIdFor } from '../../../../shared/authorship/lineage-policy';
import { InvalidInputError } from '../../../../shared/errors';
import { RejectionReason } from '../../../../shared/pipeline/rejection-reason';
import { RejectionStage } from '../../../../shared/pipeline/rejection-stage';
import type { NoteSigner } from '../../../../shared/ports/note-signer';
import { requestDigest } from '../../../../shared/write/request-digest';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../helpers/factories';
import { expectGuarantee } from '../../../helpers/guarantees';
import { FACTORY_NOW_MS, validWriteRequest } from '../../../helpers/guard-factories';
import { testGuardSigner } from '../../../helpers/pipeline-keys';
import { testGuardService } from '../../../helpers/service-factories';
import { TEST_POLICY } from '../../../helpers/writer-factories';

// docs/authorship.md, "Tenancy": the guard learns the tenant from the queue AWS names
// (`eventSourceARN`) and refuses a lineage outside `<tenant>/` as TENANT_MISMATCH, unsigned.
const ACME_QUEUE = 'arn:aws:sqs:eu-west-1:000000000000:ResealStack-TenantsTenantacmeQueue-abc';
const BETA_QUEUE = 'arn:aws:sqs:eu-west-1:000000000000:ResealStack-TenantsTenantbetaQueue-def';
const STACK_QUEUE = 'arn:aws:sqs:eu-west-1:000000000000:ResealStack-ResidualWritesQueue-ghi';
const TENANT_QUEUES = new Map([
  [ACME_QUEUE, 'acme'],
  [BETA_QUEUE, 'beta'],
]);
const ACME_LINEAGE = lineageIdFor('acme/agent-42', TEST_POLICY);
const BETA_LINEAGE = lineageIdFor('beta/agent-42', TEST_POLICY);

/** Counts `Sign` calls: a refusal anyone can provoke must cost none. */
class CountingSigner implements NoteSigner {
  calls = 0;
  readonly #inner = testGuardSigner();
  readonly keyName = this.#inner.keyName;
  publicKey(): Promise<Uint8Array> {
    return this.#inner.publicKey();
  }
  sign(message: Uint8Array): Promise<Uint8Array> {
    this.calls++;
    return this.#inner.sign(message);
  }
}

const from = (queue: string | null, body: string, messageId = 'msg-1') => ({
  messageId,
  body,
  sentAtMs: FACTORY_NOW_MS - 5,
  eventSourceArn: queue,
});

describe('guard tenancy (docs/authorship.md, "Tenancy")', () => {
  it("a write from a tenant's queue into its own lineage is forwarded", async () => {
    const { service, queue, store } = testGuardService({ tenantQueues: TENANT_QUEUES });
    const outcome = await service.handle(
      from(ACME_QUEUE, JSON.stringify(validWriteRequest({ lineageId: ACME_LINEAGE }))),
    );
    expect(outcome.kind).toBe('ACCEPTED');
    expect(queue.sent.map((s) => s.request.lineageId)).toEqual([ACME_LINEAGE]);
    expect(store.rejections).toEqual([]);
  });

  it("a validly signed write from one tenant's queue into another tenant's lineage is TENANT_MISMATCH: unsigned, filed under the lineage it names, nothing forwarded", async (context) => {
    const signer = new CountingSigner();
    const { service, queue, store, publisher } = testGuardService({ tenantQueues: TENANT_QUEUES, signer });
    const request = validWriteRequest({ lineageId: BETA_LINEAGE });
    const outcome = await service.handle(from(ACME_QUEUE, JSON.stringify(request)));
    expectGuarantee(
      context,
      {
        section: 'fuzzing',
        target: 'guard',
        attack: "a signed write sent to tenant acme's queue naming a lineage of tenant beta",
        reader: 'GuardService.handle',
        expected: 'refused TENANT_MISMATCH, unsigned, 0 Sign, nothing forwarded',
      },
      `${outcome.kind === 'REJECTED' ? `refused ${outcome.reason}` : outcome.kind}, ${store.rejections[0]?.statement === null ? 'unsigned' : 'signed'}, ${signer.calls} Sign, ${queue.sent.length === 0 ? 'nothing forwarded' : 'forwarded'}`,
    );
    expect(outcome).toEqual({ kind: 'REJECTED', reason: RejectionReason.TENANT_MISMATCH });
    expect(queue.sent).toEqual([]);
    expect(signer.calls).toBe(0);
    expect(store.rejections).toHaveLength(1);
    expect(store.rejections[0]).toMatchObject({
      stage: RejectionStage.GUARD,
      reason: RejectionReason.TENANT_MISMATCH,
      lineageId: BETA_LINEAGE,
      residualId: request.residualId,
      requestDigest: requestDigest(request),
      statement: null,
      issues: [
        {
          path: 'lineageId',
          message: expect.stringContaining("tenant acme's queue must name a lineage id beginning acme/"),
        },
      ],
    });
    expect(publisher.rejected).toMatchObject([{ reason: 'TENANT_MISMATCH', lineageId: BETA_LINEAGE }]);
  });

  it('the tenant is decided before the writer signature: a cross-tenant write with a bad signature is TENANT_MISMATCH', async () => {
    const { service } = testGuardService({ tenantQueues: TENANT_QUEUES });
    const signed = validWriteRequest({ lineageId: BETA_LINEAGE });
    const forged = JSON.stringify({ ...signed, residualId: 'residual-edited' });
    expect(await service.handle(from(ACME_QUEUE, forged))).toEqual({
      kind: 'REJECTED',
      reason: RejectionReason.TENANT_MISMATCH,
    });
    // The same forgery in its own tenant is the signature's refusal, as without tenants.
    const ownForged = JSON.stringify({
      ...validWriteRequest({ lineageId: ACME_LINEAGE }),
      residualId: 'residual-edited',
    });
    expect(await service.handle(from(ACME_QUEUE, ownForged, 'msg-2'))).toEqual({
      kind: 'REJECTED',
      reason: RejectionReason.WRITER_SIGNATURE_INVALID,
    });
  });

  it('a lineage id that only starts with the tenant id (acme-evil/…, acme.…) is not the tenant’s', async () => {
    const { service, queue } = testGuardService({ tenantQueues: TENANT_QUEUES });
    for (const [i, label] of ['acme-evil/agent', 'acmeagent', 'acme'].entries()) {
      const body = JSON.stringify(validWriteRequest({ lineageId: lineageIdFor(label, TEST_POLICY) }));
      expect(await service.handle(from(ACME_QUEUE, body, `msg-${i}`))).toEqual({
        kind: 'REJECTED',
        reason: RejectionReason.TENANT_MISMATCH,
      });
    }
    expect(queue.sent).toEqual([]);
  });

  it("with tenants, a write from a queue of no tenant (the stack's own, or none named) is TENANT_MISMATCH", async () => {
    const { service, store } = testGuardService({ tenantQueues: TENANT_QUEUES });
    const body = JSON.stringify(validWriteRequest({ lineageId: ACME_LINEAGE }));
    expect(await service.handle(from(STACK_QUEUE, body, 'msg-1'))).toMatchObject({ reason: 'TENANT_MISMATCH' });
    expect(await service.handle(from(null, body, 'msg-2'))).toMatchObject({ reason: 'TENANT_MISMATCH' });
    expect(store.rejections.map((r) => r.issues[0]?.message)).toEqual([
      expect.stringContaining(`a queue of no tenant (${STACK_QUEUE})`),
      expect.stringContaining('a queue of no tenant (unnamed)'),
    ]);
  });

  it('without tenants (one tenant), the queue is not consulted: any lineage from any queue goes on', async () => {
    const { service, queue } = testGuardService();
    const body = JSON.stringify(validWriteRequest({ lineageId: BETA_LINEAGE }));
    expect((await service.handle(from(ACME_QUEUE, body))).kind).toBe('ACCEPTED');
    expect(queue.sent).toHaveLength(1);
  });

  it("the handler takes the tenant from each SQS record's eventSourceARN, not from the body", async () => {
    const { service, queue, store } = testGuardService({ tenantQueues: TENANT_QUEUES });
    const logger = new Logger({ serviceName: 'reseal-guard-test', logLevel: 'SILENT' });
    const metrics = new Metrics({ namespace: 'Reseal', serviceName: 'reseal-guard-test' });
    vi.spyOn(metrics, 'publishStoredMetrics').mockReturnValue(metrics);
    const handler = createGuardHandler(service, logger, metrics);
    const write = (lineageId: string, residualId: string) =>
      JSON.stringify(validWriteRequest({ lineageId, residualId }));
    const records = [
      sqsRecord(write(ACME_LINEAGE, 'r-own'), undefined, { eventSourceARN: ACME_QUEUE }),
      sqsRecord(write(ACME_LINEAGE, 'r-cross'), undefined, { eventSourceARN: BETA_QUEUE }),
    ];
    const response = await handler(sqsEvent(records), lambdaContext());
    expect(response.batchItemFailures).toEqual([]);
    expect(queue.sent.map((s) => s.request.residualId)).toEqual(['r-own']);
    expect(store.rejections).toMatchObject([{ residualId: 'r-cross', reason: 'TENANT_MISMATCH' }]);
  });

  it('TENANT_QUEUES: empty is one tenant; a list maps queue ARNs to tenants; anything else stops the cold start', () => {
    expect(tenantQueuesFrom(undefined)).toBeUndefined();
    expect(tenantQueuesFrom('')).toBeUndefined();
    expect(tenantQueuesFrom(JSON.stringify([{ queueArn: ACME_QUEUE, tenantId: 'acme' }]))).toEqual(
      new Map([[ACME_QUEUE, 'acme']]),
    );
    expect(() => tenantQueuesFrom('{not json')).toThrow(InvalidInputError);
    expect(() => tenantQueuesFrom(JSON.stringify([{ queueArn: 'https://sqs…', tenantId: 'acme' }]))).toThrow(
      InvalidInputError,
    );
    expect(() => tenantQueuesFrom(JSON.stringify([{ queueArn: ACME_QUEUE, tenantId: 'ACME' }]))).toThrow(
      InvalidInputError,
    );
  });
});
