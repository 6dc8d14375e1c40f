import { describe, expect, it } from 'vitest';
import { RejectionReason } from '../../../../shared/pipeline/rejection-reason';
import { sealRequestBody } from '../../../helpers/factories';
import { FACTORY_NOW_MS } from '../../../helpers/guard-factories';
import { testSealerService } from '../../../helpers/service-factories';

const setup = testSealerService;

const message = (body: string) => ({ messageId: 'm-1', body, sentAtMs: FACTORY_NOW_MS });

describe('sealer reads seal-requests bodies strictly (I-JSON RFC 7493 §2.3)', () => {
  it('a repeated member name is a SCHEMA_VIOLATION naming the key; nothing is sealed', async () => {
    const { service, store, publisher } = setup();
    const genuine = sealRequestBody();
    expect((await service.handle(message(genuine))).kind).toBe('SEALED');

    const fresh = setup();
    // JSON.parse would keep the last (genuine) epoch and seal it.
    const body = genuine.replace('"request":{', '"request":{"generationEpoch":999,');
    expect(JSON.parse(body)).toEqual(JSON.parse(genuine));
    const outcome = await fresh.service.handle(message(body));
    expect(outcome).toEqual({ kind: 'REJECTED', reason: RejectionReason.SCHEMA_VIOLATION });
    expect(await fresh.store.head(JSON.parse(genuine).request.lineageId)).toBeNull();
    expect(fresh.store.rejections[0]?.issues[0]?.message).toMatch(
      /^request\.generationEpoch: duplicate key "generationEpoch"/,
    );
    expect(fresh.publisher.rejected).toHaveLength(1);
    expect(publisher.rejected).toHaveLength(0);
    expect(store.rejections).toHaveLength(0);
  });

  it('malformed JSON stays MALFORMED_JSON, with line and column', async () => {
    const { service, store } = setup();
    const outcome = await service.handle(message('{"formatVersion": 1,\n}'));
    expect(outcome).toEqual({ kind: 'REJECTED', reason: RejectionReason.MALFORMED_JSON });
    expect(store.rejections[0]?.issues[0]?.message).toBe("Unexpected '}' at line 2 column 1");
  });
});
