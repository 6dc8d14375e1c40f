import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { noticeMac } from '../../../../shared/integrator/notice-mac';
import type { SealedRunNotice } from '../../../../shared/integrator/sealed-run-notice';
import { fakeLogger } from '../../../helpers/factories';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import { inProcessIntegration } from '../../../helpers/in-process-integration';
import { MemoryNoticeKey } from '../../../helpers/memory-notice-key';
import { testAnchor } from '../../../helpers/seal-factories';
import { testLineageId } from '../../../helpers/writer-factories';

const [A, B] = [FACTORY_LINEAGE_ID, testLineageId('lin-vouch-b')];

/**
 * The real sealer (heads and notices MAC'd under the in-memory notice key's data key) and
 * integrator over one table, one write to A and one to B; `headChecks()` counts the head-state
 * `VerifyMac` calls. `foreign`: the sealer holds a notice key (and an HMAC key) of its own, which
 * the integrator cannot open (another secret: heads and notices nothing vouches for).
 */
async function sealed(foreign = false) {
  const s = inProcessIntegration({
    sealer: {
      signLineageCheckpoints: false,
      ...(foreign ? { anchor: testAnchor({ key: new Uint8Array(32).fill(7) }), noticeKey: new MemoryNoticeKey() } : {}),
    },
  });
  await s.write(A, 'r-0');
  await s.write(B, 'r-0');
  const [a, b] = s.notices.splice(0) as [SealedRunNotice, SealedRunNotice];
  const anchor = testAnchor();
  const verifyMac = vi.spyOn(anchor, 'verifyMac');
  const headChecks = () => verifyMac.mock.calls.filter(([message]) => message.byteLength === 32).length;
  const integrator = s.integrator({ anchor });
  return { ...s, newIntegrator: s.integrator, a, b, anchor, headChecks, integrator };
}

const withAuth = (notice: SealedRunNotice, auth: SealedRunNotice['auth']): SealedRunNotice => {
  const { auth: _auth, ...bare } = notice;
  return auth ? { ...bare, auth } : bare;
};

describe('only a notice whose auth verifies vouches for its head (docs/deployment-log.md, "Integration", step 2)', () => {
  it('a genuine auth: the head is taken without VerifyMac', async () => {
    const s = await sealed();
    const report = await s.integrator.integrate([s.a]);
    expect(report.evidence).toEqual([]);
    expect(report.integrated).toEqual([A]);
    expect(s.headChecks()).toBe(0);
    expect(s.noticeKey.opened).toBe(1);
  });

  const unvouching: [string, (s: Awaited<ReturnType<typeof sealed>>) => SealedRunNotice][] = [
    ['no auth', (s) => withAuth(s.a, undefined)],
    ['a wrong mac', (s) => withAuth(s.a, { key: s.a.auth?.key ?? '', mac: 'f'.repeat(64) })],
    [
      'a mac under another data key than the one its blob wraps',
      (s) => withAuth(s.a, { key: s.a.auth?.key ?? '', mac: noticeMac(s.a, new Uint8Array(randomBytes(32))) }),
    ],
    ['the auth of another notice', (s) => withAuth(s.a, s.b.auth)],
    [
      'a blob the notice key never wrapped',
      (s) => withAuth(s.a, { key: randomBytes(48).toString('base64'), mac: s.a.auth?.mac ?? '' }),
    ],
  ];

  for (const [name, notice] of unvouching) {
    it(`${name}: a trigger only, the head is taken by its head-key MAC (no VerifyMac)`, async () => {
      const s = await sealed();
      const report = await s.integrator.integrate([notice(s)]);
      expect(report.evidence).toEqual([]);
      expect(report.integrated).toEqual([A]);
      expect(s.headChecks()).toBe(0);
    });

    it(`${name}, the head MAC'd under another notice key: HEAD_UNAUTHENTICATED, nothing indexed`, async () => {
      const s = await sealed(true);
      const report = await s.integrator.integrate([notice(s)]);
      expect(report.evidence.map((e) => `${e.kind} ${e.lineageId}`)).toEqual([`HEAD_UNAUTHENTICATED ${A}`]);
      expect(report.integrated).toEqual([]);
      expect(s.headChecks()).toBe(0);
    });
  }

  it('the notice key unreachable: no notice vouches (a warning logged), and a head-key MAC cannot be checked: the batch fails, to be retried, nothing indexed', async () => {
    const s = await sealed();
    const logger = fakeLogger();
    const integrator = s.newIntegrator({
      anchor: s.anchor,
      noticeKey: {
        open: async () => {
          throw Object.assign(new Error('rate exceeded'), { name: 'ThrottlingException' });
        },
      },
      logger,
    });
    await expect(integrator.integrate([s.a, s.b])).rejects.toThrow('rate exceeded');
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(s.headChecks()).toBe(0);
    expect(s.deployment.head).toBeNull();
  });

  it('one Decrypt per distinct data key in a batch', async () => {
    const s = await sealed();
    await s.integrator.integrate([s.a, s.b, s.a]);
    expect(s.noticeKey.opened).toBe(1);
    expect(s.headChecks()).toBe(0);
  });
});
