import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../../../functions/guard/guard-service';
import { RejectionReason } from '../../../../shared/pipeline/rejection-reason';
import { RejectionStage } from '../../../../shared/pipeline/rejection-stage';
import { SealRequestSchema } from '../../../../shared/pipeline/seal-request';
import type { NoteSigner } from '../../../../shared/ports/note-signer';
import { expectGuarantee } from '../../../helpers/guarantees';
import {
  absentKeyManifest,
  FACTORY_LINEAGE_ID,
  FACTORY_NOW_MS,
  unverifiedInheritedVariable,
  validWriteRequest,
} from '../../../helpers/guard-factories';
import { testGuardSigner } from '../../../helpers/pipeline-keys';
import { testGuardService } from '../../../helpers/service-factories';

const setup = testGuardService;

/** A signer that counts its `Sign` calls (one KMS `Sign` each in the stack). */
class CountingSigner implements NoteSigner {
  calls = 0;
  readonly #inner: NoteSigner;
  readonly keyName: string;
  constructor(inner: NoteSigner) {
    this.#inner = inner;
    this.keyName = inner.keyName;
  }
  publicKey(): Promise<Uint8Array> {
    return this.#inner.publicKey();
  }
  sign(message: Uint8Array): Promise<Uint8Array> {
    this.calls++;
    return this.#inner.sign(message);
  }
}

const message = (body: string, messageId = 'msg-1') => ({ messageId, body, sentAtMs: FACTORY_NOW_MS - 5 });

describe('guard service (docs/guard.md at the queue)', () => {
  it('docs/guard.md "Rules": an accepted write is forwarded as a SealRequest, nothing rejected', async () => {
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

  it('docs/guard.md V4: an unverified inherited variable → rejection record + ResidualRejected, nothing forwarded', async () => {
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

  it('malformed JSON → MALFORMED_JSON rejection under REJECTION#~unparsed, not thrown', async () => {
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
    expect(store.rejections[0]?.lineageId).toBe(FACTORY_LINEAGE_ID);
    expect(JSON.stringify(store.rejections[0]?.issues)).toContain('isAdmin');
    expect(queue.sent).toHaveLength(0);
  });

  it('a manifest whose preconditionSeal is not the seal of its key hashes is a SCHEMA_VIOLATION naming manifest.preconditionSeal; nothing forwarded', async () => {
    const { service, store, publisher, queue } = setup();
    const request = validWriteRequest();
    const body = JSON.stringify({ ...request, manifest: { ...request.manifest, preconditionSeal: 'b'.repeat(64) } });
    const outcome = await service.handle(message(body));
    expect(outcome).toEqual({ kind: 'REJECTED', reason: RejectionReason.SCHEMA_VIOLATION });
    expect(store.rejections[0]?.issues.map((i) => i.path)).toEqual(['manifest.preconditionSeal']);
    expect(publisher.rejected[0]?.reason).toBe('SCHEMA_VIOLATION');
    expect(queue.sent).toHaveLength(0);
  });

  it('a format-2 manifest (keys declared absent) is accepted and forwarded unchanged; one declaring a present key absent is a SCHEMA_VIOLATION', async () => {
    const { service, queue, store } = setup();
    const manifest = absentKeyManifest();
    const outcome = await service.handle(message(JSON.stringify(validWriteRequest({ manifest }))));
    expect(outcome.kind).toBe('ACCEPTED');
    const sent = SealRequestSchema.parse(queue.sent[0]);
    expect(sent.request.manifest).toEqual(manifest);
    expect(sent.request.manifest).toMatchObject({
      formatVersion: 2,
      absentKeys: ['HTTPS_PROXY', 'HTTP_PROXY', 'LD_PRELOAD'],
    });
    const contradictory = { ...manifest, absentKeys: ['HTTPS_PROXY', 'HTTP_PROXY', 'LD_PRELOAD', 'REGION'] };
    const refused = await service.handle(
      message(JSON.stringify({ ...validWriteRequest(), manifest: contradictory }), 'msg-2'),
    );
    expect(refused).toEqual({ kind: 'REJECTED', reason: RejectionReason.SCHEMA_VIOLATION });
    expect(store.rejections[0]?.issues.map((i) => i.path)).toEqual(['manifest.absentKeys.3']);
    expect(queue.sent).toHaveLength(1);
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
    // Filed under the lineage it names, so a writer waiting on it finds it (docs/pipeline.md, "Learning the outcome of a write").
    const request = validWriteRequest({ payload: { blob: 'x'.repeat(4000) } });
    expect(store.rejections[0]).toMatchObject({ lineageId: request.lineageId, residualId: request.residualId });
    // Decided before the writer signature is checked, so recorded unsigned (docs/guard.md, "Refusals at the queue").
    expect(store.rejections[0]?.statement).toBeNull();
  });

  it('docs/guard.md "Refusals at the queue": a refusal decided before the writer signature verifies costs no Sign; one after it costs exactly one', async (context) => {
    const signer = new CountingSigner(testGuardSigner());
    const { service, store } = setup({ signer, maxBodyBytes: 4096 });
    const request = validWriteRequest();
    const json = JSON.stringify(request);
    const unsigned: [string, string][] = [
      [RejectionReason.PAYLOAD_TOO_LARGE, JSON.stringify(validWriteRequest({ payload: { blob: 'x'.repeat(5000) } }))],
      [RejectionReason.MALFORMED_JSON, '{"residualId": "r1", '],
      [RejectionReason.SCHEMA_VIOLATION, `{"generationEpoch":1,${json.slice(1)}`],
      [RejectionReason.SCHEMA_VIOLATION, JSON.stringify({ ...request, isAdmin: true })],
      [RejectionReason.WRITER_SIGNATURE_INVALID, JSON.stringify({ ...request, residualId: 'residual-0002' })],
    ];
    const FLOOD = 20;
    for (let i = 0; i < FLOOD; i++) {
      const [reason, body] = unsigned[i % unsigned.length] as [string, string];
      expect(await service.handle(message(body, `flood-${i}`))).toEqual({ kind: 'REJECTED', reason });
    }
    const floodSigns = signer.calls;
    const unsignedStored = store.rejections.filter((r) => r.statement === null).length;
    const stale = validWriteRequest({ variablesUsed: [unverifiedInheritedVariable('targetResourceId', 'i-0abc')] });
    expect(await service.handle(message(JSON.stringify(stale), 'stale'))).toEqual({
      kind: 'REJECTED',
      reason: RejectionReason.STALE_STATE,
    });
    expectGuarantee(
      context,
      {
        section: 'fuzzing',
        target: 'guard',
        attack: `${FLOOD} messages refused before the writer signature verifies (oversized, malformed JSON, repeated name, unknown field, bad signature)`,
        reader: 'GuardService.handle, KMS Sign calls',
        expected: `0 Sign; ${FLOOD} unsigned rejections; then a STALE_STATE refusal signs once`,
      },
      `${floodSigns} Sign; ${unsignedStored} unsigned rejections; then a STALE_STATE refusal signs ${signer.calls - floodSigns === 1 ? 'once' : `${signer.calls - floodSigns} times`}`,
    );
    expect(store.rejections.find((r) => r.messageId === 'stale')?.statement).toContain('reseal/v1/outcome');
  });

  it('a redelivered rejected message leaves one rejection record (key from SentTimestamp + message id)', async () => {
    const { service, store } = setup();
    await service.handle(message('not json'));
    await service.handle(message('not json'));
    expect(store.rejections).toHaveLength(1);
  });

  it('a repeated member name is a SCHEMA_VIOLATION naming the key; no verdict is reached, nothing forwarded (I-JSON RFC 7493 §2.3)', async () => {
    const { service, store, publisher, queue, metrics } = setup();
    const request = validWriteRequest();
    // JSON.parse would keep the last value and evaluate a verdict on it.
    const body = `{"generationEpoch":${request.generationEpoch + 1},${JSON.stringify(request).slice(1)}`;
    expect(JSON.parse(body).generationEpoch).toBe(request.generationEpoch);
    const outcome = await service.handle(message(body));
    expect(outcome).toEqual({ kind: 'REJECTED', reason: RejectionReason.SCHEMA_VIOLATION });
    expect(queue.sent).toHaveLength(0);
    expect(store.rejections).toHaveLength(1);
    const rejection = store.rejections[0];
    expect(rejection).toMatchObject({
      reason: RejectionReason.SCHEMA_VIOLATION,
      verdictDigest: null,
      rejectedVariables: [],
      requestViolations: [],
      lineageId: request.lineageId,
      residualId: request.residualId,
    });
    expect(rejection?.issues).toHaveLength(1);
    expect(rejection?.issues[0]?.path).toBe('generationEpoch');
    expect(rejection?.issues[0]?.message).toMatch(
      /^duplicate key "generationEpoch" \(line 1 column 2, again at line 1 column \d+\)/,
    );
    expect(publisher.rejected[0]).toMatchObject({ reason: 'SCHEMA_VIOLATION', verdictDigest: null });
    expect(publisher.rejected[0]?.issues[0]?.path).toBe('generationEpoch');
    expect(metrics.get('WriteRejected:reason=SCHEMA_VIOLATION')).toBe(1);
  });

  it('a repeated name inside a variable is refused at its path (variablesUsed.<i>.<name>)', async () => {
    const { service, store, queue } = setup();
    const body = JSON.stringify(validWriteRequest()).replace('"variablesUsed":[{', '"variablesUsed":[{"value":"x",');
    const outcome = await service.handle(message(body));
    expect(outcome).toEqual({ kind: 'REJECTED', reason: RejectionReason.SCHEMA_VIOLATION });
    expect(store.rejections[0]?.issues.map((i) => i.path)).toEqual(['variablesUsed.0.value']);
    expect(queue.sent).toHaveLength(0);
  });

  it('a repeated residualId is not used to file the rejection (its id stays null)', async () => {
    const { service, store } = setup();
    const request = validWriteRequest();
    const body = `{"residualId":"other-residual",${JSON.stringify(request).slice(1)}`;
    await service.handle(message(body));
    expect(store.rejections[0]).toMatchObject({ residualId: null, lineageId: request.lineageId });
    expect(store.rejections[0]?.issues[0]?.path).toBe('residualId');
  });

  it('malformed JSON stays MALFORMED_JSON, its issue giving line and column', async () => {
    const { service, store } = setup();
    await service.handle(message('{"residualId": "r1",\n  "lineageId": }'));
    expect(store.rejections[0]).toMatchObject({ reason: RejectionReason.MALFORMED_JSON, residualId: null });
    expect(store.rejections[0]?.issues).toEqual([{ path: '', message: "Unexpected '}' at line 2 column 16" }]);
  });

  it('a bad map key in the manifest names the key and the real reason, not "Invalid key in record"', async () => {
    const { service, store } = setup();
    const request = validWriteRequest();
    const body = JSON.stringify(request).replace('"baselineKeyHashes":{', '"baselineKeyHashes":{"\\udc00":"x",');
    expect(body).toContain('\\udc00');
    await service.handle(message(body));
    // Stored with the lone surrogate escaped, so the signed digest survives the round trip through DynamoDB.
    const issue = store.rejections[0]?.issues.find((i) => i.path === 'manifest.baselineKeyHashes.\\udc00');
    expect(issue?.message).toBe('string holds a lone UTF-16 surrogate');
  });

  it('a transient failure (bus down) rejects so SQS retries the message, after a log line naming it', async () => {
    const { service, publisher, logger } = setup();
    publisher.failWith = new Error('ServiceUnavailable');
    await expect(service.handle(message('not json'))).rejects.toThrow('ServiceUnavailable');
    expect(logger.error).toHaveBeenCalledWith(
      expect.stringContaining('infrastructure error'),
      expect.objectContaining({ error: { name: 'Error', message: 'ServiceUnavailable' } }),
    );
  });
});
