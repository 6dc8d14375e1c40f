import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GuardService, MAX_BODY_BYTES } from '../../../../functions/guard/guard-service';
import { RejectionReason, RejectionStage, SealRequestSchema } from '../../../../shared/schemas/messages';
import { FakeMetrics, FakePublisher, FakeSealQueue, fakeLogger } from '../../../helpers/factories';
import { FACTORY_NOW_MS, unverifiedInheritedVariable, validWriteRequest } from '../../../helpers/guard-factories';
import { InMemoryLineageStore } from '../../../helpers/in-memory-lineage-store';

function setup(options: { maxBodyBytes?: number } = {}) {
  const store = new InMemoryLineageStore();
  const publisher = new FakePublisher();
  const queue = new FakeSealQueue();
  const metrics = new FakeMetrics();
  const logger = fakeLogger();
  const service = new GuardService({
    store,
    publisher,
    queue,
    metrics,
    logger,
    clock: () => FACTORY_NOW_MS,
    maxReceiptAgeSeconds: 900,
    ...options,
  });
  return { store, publisher, queue, metrics, logger, service };
}

const message = (body: string, messageId = 'msg-1') => ({ messageId, body, sentAtMs: FACTORY_NOW_MS - 5 });

describe('guard service (seed 004 at the queue)', () => {
  it('seed 004 Decision Boundary: an accepted write is forwarded as a SealRequest, nothing rejected', async () => {
    const { service, queue, store, publisher, metrics, logger } = setup();
    const request = validWriteRequest();
    const outcome = await service.handle(message(JSON.stringify(request)));
    expect(outcome.kind).toBe('ACCEPTED');
    expect(queue.sent).toHaveLength(1);
    const sent = SealRequestSchema.parse(queue.sent[0]);
    expect(sent.request.residualId).toBe(request.residualId);
    expect(sent.verdict.isSafe).toBe(true);
    expect(sent.acceptedAtMs).toBe(FACTORY_NOW_MS);
    expect(store.rejections).toHaveLength(0);
    expect(publisher.rejected).toHaveLength(0);
    expect(metrics.get('WriteAccepted')).toBe(1);
    expect(logger.keys).toMatchObject({ residualId: request.residualId, lineageId: request.lineageId });
  });

  it('seed 004 Decision Boundary 1: an unverified inherited variable → rejection record + ResidualRejected, nothing forwarded', async () => {
    const { service, queue, store, publisher, metrics } = setup();
    const request = validWriteRequest({ variablesUsed: [unverifiedInheritedVariable('targetResourceId', 'i-0abc')] });
    const body = JSON.stringify(request);
    const outcome = await service.handle(message(body));
    expect(outcome).toEqual({ kind: 'REJECTED', reason: RejectionReason.STALE_STATE });
    expect(queue.sent).toHaveLength(0);
    expect(store.rejections).toHaveLength(1);
    const rejection = store.rejections[0];
    expect(rejection).toMatchObject({
      stage: RejectionStage.GUARD,
      reason: RejectionReason.STALE_STATE,
      lineageId: request.lineageId,
      residualId: request.residualId,
      bodyDigest: createHash('sha256').update(body).digest('hex'),
      messageId: 'msg-1',
    });
    expect(rejection?.verdictDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(rejection?.rejectedVariables.map((v) => v.name)).toEqual(['targetResourceId']);
    expect(publisher.rejected).toHaveLength(1);
    expect(publisher.rejected[0]).toMatchObject({ reason: 'STALE_STATE', verdictDigest: rejection?.verdictDigest });
    expect(metrics.get('WriteRejected:reason=STALE_STATE')).toBe(1);
  });

  it('malformed JSON → MALFORMED_JSON rejection under REJECTION#unparsed, not thrown', async () => {
    const { service, store, publisher, queue } = setup();
    const outcome = await service.handle(message('{"residualId": "r1", '));
    expect(outcome).toEqual({ kind: 'REJECTED', reason: RejectionReason.MALFORMED_JSON });
    expect(store.rejections[0]).toMatchObject({
      lineageId: null,
      residualId: null,
      bodyPreview: '{"residualId": "r1", ',
    });
    expect(publisher.rejected[0]?.reason).toBe('MALFORMED_JSON');
    expect(queue.sent).toHaveLength(0);
  });

  it('an unknown field is a SCHEMA_VIOLATION naming the field (strict schema), not thrown', async () => {
    const { service, store, queue } = setup();
    const body = JSON.stringify({ ...validWriteRequest(), isAdmin: true });
    const outcome = await service.handle(message(body));
    expect(outcome).toEqual({ kind: 'REJECTED', reason: RejectionReason.SCHEMA_VIOLATION });
    expect(store.rejections[0]?.lineageId).toBe('lineage-agent-42');
    expect(JSON.stringify(store.rejections[0]?.issues)).toContain('isAdmin');
    expect(queue.sent).toHaveLength(0);
  });

  it('a lone surrogate in the payload is a SCHEMA_VIOLATION (RFC 8785 cannot carry it), not thrown', async () => {
    const { service, store, publisher } = setup();
    const body = JSON.stringify(validWriteRequest()).replace('instance healthy', 'instance \\ud800 healthy');
    expect(JSON.parse(body).payload.conclusion).toContain('\ud800');
    const outcome = await service.handle(message(body));
    expect(outcome).toEqual({ kind: 'REJECTED', reason: RejectionReason.SCHEMA_VIOLATION });
    expect(store.rejections).toHaveLength(1);
    expect(publisher.rejected[0]?.issues.length).toBeGreaterThan(0);
  });

  it('an oversized body is PAYLOAD_TOO_LARGE before parsing; the preview keeps only 1 KiB', async () => {
    const { service, store, queue } = setup({ maxBodyBytes: 2048 });
    const body = JSON.stringify(validWriteRequest({ payload: { blob: 'x'.repeat(4000) } }));
    const outcome = await service.handle(message(body));
    expect(outcome).toEqual({ kind: 'REJECTED', reason: RejectionReason.PAYLOAD_TOO_LARGE });
    expect(Buffer.byteLength(store.rejections[0]?.bodyPreview ?? '')).toBeLessThanOrEqual(1024);
    expect(queue.sent).toHaveLength(0);
    expect(MAX_BODY_BYTES).toBeLessThan(400_000);
  });

  it('a redelivered rejected message leaves one rejection record (key from SentTimestamp + message id)', async () => {
    const { service, store } = setup();
    await service.handle(message('not json'));
    await service.handle(message('not json'));
    expect(store.rejections).toHaveLength(1);
  });

  it('a transient failure (bus down) rejects so SQS retries the message', async () => {
    const { service, publisher } = setup();
    publisher.failWith = new Error('ServiceUnavailable');
    await expect(service.handle(message('not json'))).rejects.toThrow('ServiceUnavailable');
  });
});
