import { describe, expect, it } from 'vitest';
import { SealedRunNoticeBatch } from '../../../../functions/sealer/sealed-run-notice-batch';
import { isNoticeMacValid } from '../../../../shared/integrator/notice-mac';
import type { SealedRunNotice } from '../../../../shared/integrator/sealed-run-notice';
import { fakeLogger } from '../../../helpers/factories';
import { inProcessIntegration } from '../../../helpers/in-process-integration';
import { testLineageId } from '../../../helpers/writer-factories';

const LINEAGES = ['a', 'b', 'c'].map((name) => testLineageId(`lin-auth-${name}`));

describe('the sealer MACs each notice under one data key of the notice key (docs/deployment-log.md, "Sealed-run notices")', () => {
  it('many notices over several invocations: one data key, every notice carries an auth that verifies under it', async () => {
    const s = inProcessIntegration({ sealer: { signLineageCheckpoints: false } });
    for (const residualId of ['r-0', 'r-1']) {
      for (const lineageId of LINEAGES) await s.write(lineageId, residualId);
    }
    expect(s.notices).toHaveLength(6);
    expect(s.noticeKey.generated).toBe(1);
    const { plaintext, blob } = await s.noticeKey.dataKey();
    for (const notice of s.notices) {
      expect(notice.auth?.key).toBe(blob);
      expect(isNoticeMacValid(notice, plaintext)).toBe(true);
    }
  });

  it('no data key to be had: the notices go without auth, logged, and are still sent', async () => {
    const sent: SealedRunNotice[] = [];
    const logger = fakeLogger();
    const batch = new SealedRunNoticeBatch(
      {
        notify: async (notices) => {
          sent.push(...notices);
          return [];
        },
      },
      logger,
      {
        dataKey: async () => {
          throw new Error('ThrottlingException');
        },
      },
    );
    const s = inProcessIntegration({ sealer: { signLineageCheckpoints: false } });
    await s.write(LINEAGES[0] as string, 'r-0');
    const [notice] = s.notices;
    if (!notice) throw new Error('no notice');
    const { auth: _auth, ...bare } = notice;
    batch.add(bare);
    await batch.send();
    expect(sent).toEqual([bare]);
    expect(logger.error).toHaveBeenCalledWith(
      'no notice data key: the notices go without auth and vouch for no head',
      expect.objectContaining({ notices: 1 }),
    );
  });
});
