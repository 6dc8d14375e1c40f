import { describe, expect, it, type TestContext } from 'vitest';
import type { HeadKeyMac } from '../../../../shared/log/head-key-mac';
import type { StoredLogHead } from '../../../../shared/log/log-state';
import { expectGuarantee } from '../../../helpers/guarantees';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import { HEAD_KEY_MAC_TAMPERS } from '../../../helpers/head-key-mac-tampers';
import { inProcessIntegration } from '../../../helpers/in-process-integration';
import { testLineageId } from '../../../helpers/writer-factories';

const [A, B] = [FACTORY_LINEAGE_ID, testLineageId('lin-key-int-b')];

/**
 * The real sealer (heads MAC'd under the in-memory notice key's data key, no signed checkpoint)
 * and integrator, in process: two writes to A and to B, the first of each integrated; the second
 * writes' notices are lost, so the integrator reads heads no notice of its batch names and only
 * their head-key MACs vouch for them (`integrate` hands it B's first notice again, a trigger).
 */
async function sealed() {
  const s = inProcessIntegration({ sealer: { signLineageCheckpoints: false } });
  await s.write(A, 'r-0');
  await s.write(B, 'r-0');
  const first = s.notices.splice(0);
  const integrator = s.integrator();
  await integrator.integrate(first);
  const older = s.store.headSnapshot(A) as StoredLogHead;
  await s.write(A, 'r-1');
  await s.write(B, 'r-1');
  s.notices.splice(0);
  const keyMacOf = (lineageId: string) => s.store.headSnapshot(lineageId)?.headKeyMac as HeadKeyMac;
  const setKeyMac = (keyMac: HeadKeyMac | null) => s.store.setLogHead(A, (log) => ({ ...log, headKeyMac: keyMac }));
  /** One integration of the first notices again: A's outcome, as a row names it. */
  const integrateA = async () => {
    const report = await integrator.integrate(first);
    const evidence = report.evidence.filter((e) => e.lineageId === A).map((e) => e.kind);
    return report.integrated.includes(A) ? 'integrated' : evidence.join(', ') || 'not integrated';
  };
  const head = (lineageId: string) => s.store.headSnapshot(lineageId) as StoredLogHead;
  return { ...s, older, head, keyMacOf, setKeyMac, integrateA };
}

const row = (context: TestContext, attack: string, expected: string, observed: string) =>
  expectGuarantee(
    context,
    { section: 'tampering', target: 'head', attack, reader: 'integrator (head past its notices)', expected },
    observed,
  );

describe('tampering with a head-key MAC (headKeyMac, headDataKey), through the integrator (docs/deployment-log.md, "Integration", step 2)', () => {
  it('none (control): the head is integrated on its head-key MAC, no VerifyMac', async (context) => {
    const s = await sealed();
    row(context, 'none (control)', 'integrated', await s.integrateA());
    expect(s.noticeKey.opened).toBe(1);
  });

  for (const tamper of HEAD_KEY_MAC_TAMPERS) {
    it(tamper.name, async (context) => {
      const s = await sealed();
      await tamper.apply(s, A, B);
      row(context, tamper.attack, 'HEAD_UNAUTHENTICATED', await s.integrateA());
    });
  }
});
