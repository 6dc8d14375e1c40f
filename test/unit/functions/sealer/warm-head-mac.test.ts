import { readFileSync } from 'node:fs';
import { describe, expect, it, type TestContext, vi } from 'vitest';
import { macHeadState } from '../../../../shared/log/head-state-mac';
import { claimedLogState, headStateOf } from '../../../../shared/log/log-state';
import type { MacAnchor } from '../../../../shared/ports/mac-anchor';
import { RememberedMacAnchor } from '../../../../shared/seal/remembered-mac-anchor';
import { lambdaContext, sealRequestBody, sqsEvent, sqsRecord } from '../../../helpers/factories';
import { expectGuarantee } from '../../../helpers/guarantees';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import { testAnchor } from '../../../helpers/seal-factories';
import { testSealerHandler } from '../../../helpers/service-factories';

const LINEAGE = FACTORY_LINEAGE_ID;

/**
 * A sealer handler as functions/sealer/handler.ts builds it: one service (one anchor) for every
 * warm invocation, with no notice data key, so its heads carry KMS head-state MACs (its fallback,
 * and every head stored before head-key MACs). `remember: false` gives the KMS anchor alone, as before.
 */
function warmSealer(remember = true) {
  const kms = testAnchor();
  const verifyMac = vi.spyOn(kms, 'verifyMac');
  const anchor: MacAnchor = remember ? new RememberedMacAnchor(kms) : kms;
  const { store, handler } = testSealerHandler({ anchor, noticeKey: null });
  const send = async (...ids: string[]) => {
    const records = ids.map((id) => sqsRecord(sealRequestBody({ residualId: id }), LINEAGE));
    expect((await handler(sqsEvent(records), lambdaContext())).batchItemFailures).toEqual([]);
  };
  // Head-state checks asked of KMS (the head-state message is 32 bytes; a record header never is).
  const headChecks = () => verifyMac.mock.calls.filter(([message]) => message.byteLength === 32).length;
  const headResults = () =>
    Promise.all(
      verifyMac.mock.results.filter((_, i) => verifyMac.mock.calls[i]?.[0].byteLength === 32).map((r) => r.value),
    );
  // What the run after an edit observed: its conflict, and whether the head's MAC went to KMS.
  const observed = () =>
    `${store.conflicts.at(-1)?.reason ?? 'no conflict'}, ${headChecks() > 0 ? 'head MAC asked of KMS' : 'head MAC answered from memory'}`;
  /**
   * Sends r-2 after the table writer's `attack` on the head of r-0 and r-1, and records its row:
   * refused LINEAGE_INCONSISTENT, the head's MAC asked of KMS once and found false, nothing appended.
   */
  const expectEditRefusedThroughKms = async (context: TestContext, attack: string) => {
    await send('r-2');
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'head',
        attack,
        reader: 'warm sealer (next run)',
        expected: 'LINEAGE_INCONSISTENT, head MAC asked of KMS',
      },
      observed(),
    );
    expect(headChecks()).toBe(1);
    expect(await headResults()).toEqual([false]);
    expect(store.conflicts.at(-1)).toMatchObject({ residualId: 'r-2', reason: 'LINEAGE_INCONSISTENT' });
    expect((await store.readChain(LINEAGE, 0, 10)).length).toBe(2);
  };
  return { store, kms, send, headChecks, headResults, verifyMac, observed, expectEditRefusedThroughKms };
}

describe('a warm sealer does not ask KMS to verify a head-state MAC it generated (docs/verifiable-log.md, "Appending")', () => {
  it('the next run of a lineage in the same warm handler makes no VerifyMac for the head the last run stored', async () => {
    const s = warmSealer();
    await s.send('r-0');
    await s.send('r-1');
    await s.send('r-2');
    expect((await s.store.readChain(LINEAGE, 0, 10)).length).toBe(3);
    expect(s.verifyMac).not.toHaveBeenCalled();
    expect(s.store.conflicts).toEqual([]);
    // The KMS anchor alone: one VerifyMac per run that extends a head.
    const cold = warmSealer(false);
    await cold.send('r-0');
    await cold.send('r-1');
    await cold.send('r-2');
    expect(cold.headChecks()).toBe(2);
  });

  it('a head item whose MAC the table writer replaced (another state’s genuine MAC) goes to KMS and is refused as before', async (context) => {
    const s = warmSealer();
    await s.send('r-0', 'r-1');
    const head = s.store.headSnapshot(LINEAGE);
    if (!head) throw new Error('no head');
    // A genuine MAC under the key, of another head state (another tree size).
    const state = headStateOf(claimedLogState(head, LINEAGE));
    if (!state) throw new Error('empty head');
    const otherMac = await macHeadState({ ...state, treeSize: state.treeSize + 1 }, s.kms);
    s.store.setLogHead(LINEAGE, (log) => ({ ...log, headMac: otherMac }));
    await s.expectEditRefusedThroughKms(context, 'replace headMac with another state’s genuine MAC');
  });

  it('a head item whose state the table writer edited beside the genuine MAC goes to KMS and is refused as before', async (context) => {
    const s = warmSealer();
    await s.send('r-0', 'r-1');
    // The frontier (the first leaf's hash) replaced: another tree, the MAC the sealer stored kept.
    s.store.setLogHead(LINEAGE, (log) => ({ ...log, frontier: ['ab'.repeat(32)] }));
    await s.expectEditRefusedThroughKms(context, 'edit the frontier, keep the MAC the warm sealer generated');
  });

  it('functions/sealer/handler.ts keeps the KMS MAC anchor remembered at module scope; no other handler does', () => {
    const sealer = readFileSync('functions/sealer/handler.ts', 'utf8');
    expect(sealer).toMatch(
      /^ {2}anchor: new RememberedMacAnchor\(new KMSMacAnchor\(kms, requireEnv\('MAC_KEY_ID'\)\)\),$/m,
    );
    for (const other of ['integrator', 'triage', 'guard', 'mcp', 'witness']) {
      expect(readFileSync(`functions/${other}/handler.ts`, 'utf8')).not.toContain('RememberedMacAnchor');
    }
  });
});
