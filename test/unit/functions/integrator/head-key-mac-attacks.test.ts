import { describe, expect, it, type TestContext } from 'vitest';
import { type HeadKeyMac, headKeyMac } from '../../../../shared/log/head-key-mac';
import { claimedLogState, headStateOf, type StoredLogHead } from '../../../../shared/log/log-state';
import { expectGuarantee } from '../../../helpers/guarantees';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import { inProcessIntegration } from '../../../helpers/in-process-integration';
import { MemoryNoticeKey } from '../../../helpers/memory-notice-key';
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
  return { ...s, older, keyMacOf, setKeyMac, integrateA };
}

const flip = (bytes: Uint8Array, at: number) => {
  const copy = Uint8Array.from(bytes);
  copy[at] = (copy[at] as number) ^ 1;
  return copy;
};

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

  it('the MAC edited (one bit)', async (context) => {
    const s = await sealed();
    const keyMac = s.keyMacOf(A);
    s.setKeyMac({ ...keyMac, mac: flip(keyMac.mac, 0) });
    row(context, 'edit headKeyMac', 'HEAD_UNAUTHENTICATED', await s.integrateA());
  });

  it('the wrapped data key edited (one bit): it opens to nothing', async (context) => {
    const s = await sealed();
    const keyMac = s.keyMacOf(A);
    s.setKeyMac({ ...keyMac, keyBlob: Buffer.from(flip(Buffer.from(keyMac.keyBlob, 'base64'), 3)).toString('base64') });
    row(context, 'edit headDataKey', 'HEAD_UNAUTHENTICATED', await s.integrateA());
  });

  it("another lineage's headKeyMac and headDataKey copied onto the head", async (context) => {
    const s = await sealed();
    s.setKeyMac(s.keyMacOf(B));
    row(
      context,
      "copy another lineage's headKeyMac and headDataKey onto the head",
      'HEAD_UNAUTHENTICATED',
      await s.integrateA(),
    );
  });

  it("an older head's headKeyMac and headDataKey of the same lineage copied onto the head", async (context) => {
    const s = await sealed();
    s.setKeyMac(s.older.headKeyMac as HeadKeyMac);
    row(
      context,
      "copy an older head's headKeyMac and headDataKey (same lineage) onto the head",
      'HEAD_UNAUTHENTICATED',
      await s.integrateA(),
    );
  });

  it('a genuine MAC of the head under a data key of another notice key (or another encryption context): it opens to nothing', async (context) => {
    const s = await sealed();
    const foreign = await new MemoryNoticeKey().dataKey();
    const state = headStateOf(claimedLogState(s.store.headSnapshot(A) as StoredLogHead, A));
    if (state === null) throw new Error('empty head');
    s.setKeyMac({ mac: headKeyMac(state, foreign.plaintext), keyBlob: foreign.blob });
    row(
      context,
      'headKeyMac under a data key the notice key did not wrap (another key or context)',
      'HEAD_UNAUTHENTICATED',
      await s.integrateA(),
    );
  });

  it('the MAC stripped (no headKeyMac, no headMac)', async (context) => {
    const s = await sealed();
    s.setKeyMac(null);
    row(context, 'strip headKeyMac', 'HEAD_UNAUTHENTICATED', await s.integrateA());
  });
});
