import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BODY_PREVIEW_BYTES, rejectionRecord } from '../../../../functions/common/rejection-record';
import { RejectionReason } from '../../../../shared/pipeline/rejection-reason';
import { RejectionStage } from '../../../../shared/pipeline/rejection-stage';
import { requestDigest } from '../../../../shared/write/request-digest';
import { FACTORY_NOW_MS, unverifiedInheritedVariable, validWriteRequest } from '../../../helpers/guard-factories';
import { testGuardService, testSealerService } from '../../../helpers/service-factories';

/** Not JSON, and 2,000 UTF-16 units of two UTF-8 bytes each: a preview cut by characters would hold 2,000+ bytes. */
const BODY = `{${'é'.repeat(2000)}`;
const message = { messageId: 'm-1', body: BODY, sentAtMs: FACTORY_NOW_MS };

describe('rejection records are built one way (docs/pipeline.md, the rejection item)', () => {
  it('the guard and the sealer file the same body with the same digest and a preview of at most 1 KiB', async () => {
    const guard = testGuardService();
    await guard.service.handle(message);
    const sealer = testSealerService();
    await sealer.service.handle(message);
    const [byGuard] = guard.store.rejections;
    const [bySealer] = sealer.store.rejections;
    expect(byGuard?.reason).toBe(RejectionReason.MALFORMED_JSON);
    expect(bySealer?.reason).toBe(RejectionReason.MALFORMED_JSON);
    for (const rejection of [byGuard, bySealer]) {
      expect(rejection?.bodyDigest).toBe(createHash('sha256').update(BODY, 'utf8').digest('hex'));
      expect(Buffer.byteLength(rejection?.bodyPreview ?? '', 'utf8')).toBeLessThanOrEqual(BODY_PREVIEW_BYTES);
      expect(BODY.startsWith(rejection?.bodyPreview ?? '')).toBe(true);
    }
    expect(bySealer?.bodyPreview).toBe(byGuard?.bodyPreview);
  });

  it('a refused write that parsed is named by its request digest, its signed body not kept (no bodyPreview for a table writer to seal)', async () => {
    const { service, store } = testGuardService();
    const request = validWriteRequest({ variablesUsed: [unverifiedInheritedVariable('targetResourceId', 'i-0abc')] });
    const body = JSON.stringify(request);
    await service.handle({ messageId: 'm-2', body, sentAtMs: FACTORY_NOW_MS - 5 });
    const [refused] = store.rejections;
    expect(refused).toMatchObject({ reason: RejectionReason.STALE_STATE, requestDigest: requestDigest(request) });
    expect(refused?.bodyPreview).toBe('');
    expect(refused?.bodyDigest).toBe(createHash('sha256').update(body, 'utf8').digest('hex'));
  });

  it('bounds and escapes what it stores: lone surrogates escaped, texts clipped, at most 50 issues', () => {
    const record = rejectionRecord({
      stage: RejectionStage.SEALER,
      reason: RejectionReason.SCHEMA_VIOLATION,
      message,
      lineageId: null,
      residualId: null,
      issues: Array.from({ length: 60 }, (_, i) => ({ path: `a.${i}\udc00`, message: 'x'.repeat(5000) })),
      rejectedVariables: [{ name: 'v\ud800', reason: 'UNVERIFIED_INHERITED', detail: 'd' }],
    });
    expect(record.issues.length).toBeLessThanOrEqual(50);
    expect(record.issues[0]?.path).toBe('a.0\\udc00');
    expect(record.issues[0]?.message).toHaveLength(4096);
    expect(record.issues[0]?.message.endsWith('…')).toBe(true);
    expect(JSON.stringify(record.issues).length).toBeLessThanOrEqual(64 * 1024);
    expect(record.rejectedVariables[0]?.name).toBe('v\\ud800');
    expect(record).toMatchObject({ verdictDigest: null, requestDigest: null, statement: null, atMs: FACTORY_NOW_MS });
  });
});
