import { describe, expect, it, type TestContext, vi } from 'vitest';
import { headStateBatchMessage } from '../../../../shared/log/head-state-batch';
import {
  type HeadState,
  type HeadStateMac,
  headStateDigest,
  macHeadState,
} from '../../../../shared/log/head-state-mac';
import { claimedLogState, headStateOf, type StoredLogHead } from '../../../../shared/log/log-state';
import { sealRequestBody } from '../../../helpers/factories';
import { expectGuarantee } from '../../../helpers/guarantees';
import { FACTORY_NOW_MS } from '../../../helpers/guard-factories';
import { inProcessIntegration } from '../../../helpers/in-process-integration';
import { testLineageId } from '../../../helpers/writer-factories';

const LINEAGES = ['a', 'b', 'c', 'd'].map((name) => testLineageId(`lin-batch-${name}`));
const [A, B] = LINEAGES as [string, string];

/**
 * The real sealer (no notice key: heads get a KMS head-state MAC, no signed checkpoint) and
 * integrator in process over one table, the sealer handling `lineages` as the groups of one
 * invocation, whose heads are then stored with one batch head-state MAC, as the sealer stored them
 * before it MAC'd heads under its notice data key (heads a reader still authenticates).
 * Each lineage's first run is sealed before, in an invocation of its own: its notices are the
 * batch each integration receives, and every later notice is lost, so every head read is past its
 * lineage's notices and goes through its head-state MAC (a head a notice names needs none:
 * notice-vouched-heads.test.ts).
 */
async function sealedInOneInvocation(lineages: readonly string[], residualId = 'r-0') {
  const table = inProcessIntegration({ sealer: { signLineageCheckpoints: false, noticeKey: null } });
  const sealer = table.newSealer();
  /** The heads of `ids` under one batch MAC (a batch of one: its single-form MAC, as stored). */
  const batchMac = async (ids: readonly string[]) => {
    const states = await Promise.all(
      ids.map(async (id) => headStateOf(claimedLogState((await table.store.logHead(id)) as StoredLogHead, id))),
    );
    const heads = [...new Set(states.map((state) => headStateDigest(state as HeadState)))].sort();
    if (heads.length < 2) return;
    const mac: HeadStateMac = {
      ...(await table.sealerDeps.anchor.generateMac(headStateBatchMessage(heads))),
      heads,
    };
    for (const id of ids) table.store.setLogHead(id, (log) => ({ ...log, headMac: mac }));
  };
  const invoke = async (ids: readonly string[], residual: string) => {
    const invocation = sealer.beginInvocation();
    await Promise.all(
      ids.map((lineageId) =>
        sealer.handleGroup(
          [
            {
              messageId: `${lineageId}-${residual}`,
              body: sealRequestBody({ lineageId, residualId: residual }),
              sentAtMs: FACTORY_NOW_MS,
            },
          ],
          invocation,
        ),
      ),
    );
    await sealer.endInvocation(invocation);
    await batchMac(ids);
  };
  await invoke(lineages, 'r-first');
  const earlier = table.notices.splice(0);
  await invoke(lineages, residualId);
  const verifyMac = vi.spyOn(table.sealerDeps.anchor, 'verifyMac');
  const headChecks = () => verifyMac.mock.calls.filter(([message]) => message.byteLength === 32).length;
  const integrator = table.integrator();
  /** One integration of the earlier notices (delivered again each time); the later ones are lost. */
  const integrate = () => {
    table.notices.splice(0);
    return integrator.integrate(earlier);
  };
  return { ...table, invoke, headChecks, integrate };
}

describe('the integrator verifies each distinct head-state MAC once per integration (docs/deployment-log.md, "Integration")', () => {
  it('four heads of one sealer invocation share one batch MAC: one VerifyMac, every head integrated', async () => {
    const s = await sealedInOneInvocation(LINEAGES);
    const mac = (await s.store.logHead(A))?.headMac as HeadStateMac;
    expect(mac.heads).toHaveLength(4);
    const report = await s.integrate();
    expect(report.evidence).toEqual([]);
    expect([...report.integrated].sort()).toEqual([...LINEAGES].sort());
    expect(s.headChecks()).toBe(1);
  });

  it('never across integrations: notices delivered again make the next integration ask again', async () => {
    const s = await sealedInOneInvocation(LINEAGES);
    await s.integrate();
    expect(s.headChecks()).toBe(1);
    const report = await s.integrate();
    expect(report.evidence).toEqual([]);
    expect(s.headChecks()).toBe(2);
  });

  it('a head whose heads list the table writer edited is HEAD_UNAUTHENTICATED; the others of its batch integrate', async (context: TestContext) => {
    const s = await sealedInOneInvocation(LINEAGES);
    s.store.setLogHead(A, (log) => {
      const mac = log.headMac as HeadStateMac;
      return { ...log, headMac: { ...mac, heads: [...(mac.heads ?? []), 'ee'.repeat(32)].sort() } };
    });
    const report = await s.integrate();
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'head',
        attack: 'batch headMac: a digest added to heads',
        reader: 'integrator',
        expected: 'HEAD_UNAUTHENTICATED',
      },
      report.evidence.map((e) => `${e.kind}${e.lineageId === A ? '' : ` (${e.lineageId})`}`).join(', '),
    );
    expect([...report.integrated].sort()).toEqual(LINEAGES.filter((id) => id !== A).sort());
    // The edited list is another message: two VerifyMac, the genuine one once for the other three.
    expect(s.headChecks()).toBe(2);
  });

  it.for([
    ['batch headMac: a digest of heads swapped', 'swapped'],
    ['batch headMac: a digest removed from heads', 'removed'],
    ['heads naming the state beside its single-form MAC', 'single'],
  ] as const)('%s: HEAD_UNAUTHENTICATED, the others of its batch integrate', async ([attack, edit], context) => {
    const s = await sealedInOneInvocation(LINEAGES);
    const stored = (await s.store.logHead(A)) as StoredLogHead;
    const state = headStateOf(claimedLogState(stored, A)) as HeadState;
    const mac = stored.headMac as HeadStateMac;
    const own = headStateDigest(state);
    const others = (mac.heads ?? []).filter((h) => h !== own);
    const headMac =
      edit === 'swapped'
        ? { ...mac, heads: [own, ...others.slice(1), 'ee'.repeat(32)].sort() }
        : edit === 'removed'
          ? { ...mac, heads: [own, ...others.slice(1)].sort() }
          : { ...(await macHeadState(state, s.sealerDeps.anchor)), heads: mac.heads };
    s.store.setLogHead(A, (log) => ({ ...log, headMac }));
    const report = await s.integrate();
    expectGuarantee(
      context,
      { section: 'tampering', target: 'head', attack, reader: 'integrator', expected: 'HEAD_UNAUTHENTICATED' },
      report.evidence.map((e) => `${e.kind}${e.lineageId === A ? '' : ` (${e.lineageId})`}`).join(', '),
    );
    expect([...report.integrated].sort()).toEqual(LINEAGES.filter((id) => id !== A).sort());
  });

  it("a head carrying another invocation's batch MAC (not naming its state) is HEAD_UNAUTHENTICATED", async (context: TestContext) => {
    const s = await sealedInOneInvocation(LINEAGES);
    await s.integrate();
    await s.invoke([B], 'r-1'); // B's own MAC, single form
    await s.invoke(LINEAGES.slice(2), 'r-1'); // c and d: a batch naming only their heads
    const theirs = (await s.store.logHead(LINEAGES[2] as string))?.headMac;
    s.store.setLogHead(B, (log) => ({ ...log, headMac: theirs }));
    const report = await s.integrate();
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'head',
        attack: "another invocation's batch headMac moved onto the head",
        reader: 'integrator',
        expected: 'HEAD_UNAUTHENTICATED',
      },
      report.evidence.map((e) => `${e.kind}${e.lineageId === B ? '' : ` (${e.lineageId})`}`).join(', '),
    );
  });
});
