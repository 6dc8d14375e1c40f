import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../shared/canonical/canonical-json';
import { type HeadKeyMac, isHeadKeyMacValid } from '../../../../shared/log/head-key-mac';
import type { HeadState } from '../../../../shared/log/head-state-mac';
import type { LogEntry } from '../../../../shared/log/log-extension';
import { claimedLogState, headStateOf, type StoredLogHead } from '../../../../shared/log/log-state';
import { lineageHeadOf } from '../../../../shared/seal/lineage-head';
import { recordHashOf } from '../../../../shared/seal/record-header';
import type { SealedRecord } from '../../../../shared/seal/sealed-record';
import { sealRequestBody } from '../../../helpers/factories';
import { FACTORY_NOW_MS } from '../../../helpers/guard-factories';
import { inProcessIntegration } from '../../../helpers/in-process-integration';
import { testLineageId } from '../../../helpers/writer-factories';

const LINEAGES = ['a', 'b', 'c'].map((name) => testLineageId(`failed-append-${name}`)) as [string, string, string];
const B = LINEAGES[1];

/**
 * Three lineages sealed in one invocation (each head MAC'd under the notice data key), twice; on the second, B's
 * record put fails on a taken seq (`how`: a concurrent sealer seals `r-x` to B first, and B's
 * retry stores r-1 at seq 2; or the table writer plants an item at the run's seq, and B's write
 * ends in a conflict). Then the table writer rebuilds the failed attempt's head record (from the
 * retried record's stored header at seq 1 with r-0's hash as its parent, or the attempted header), puts it at seq 1 under another record's MAC, and
 * stores B's head at that state with the head-key MAC `install` is given: another head item's.
 */
async function failedAppendRebuilt(how: 'race' | 'planted') {
  const t = inProcessIntegration({ indexFloor: true, sealer: { signLineageCheckpoints: false } });
  const sealer = t.newSealer();
  let n = 0;
  const message = (lineageId: string, residualId: string) => ({
    messageId: `m-${++n}`,
    body: sealRequestBody({ lineageId, residualId }),
    sentAtMs: FACTORY_NOW_MS,
  });
  const invoke = async (residualId: string) => {
    const invocation = sealer.beginInvocation();
    const outcomes = await Promise.all(LINEAGES.map((l) => sealer.handleGroup([message(l, residualId)], invocation)));
    await sealer.endInvocation(invocation);
    return outcomes;
  };
  await invoke('r-0');
  await t.integrator().integrate(t.notices.splice(0));
  let failed: readonly LogEntry[] | null = null;
  t.store.beforeAppend = async ({ lineageId, entries }) => {
    if (lineageId !== B || failed) return;
    failed = structuredClone(entries);
    if (how === 'race') await t.newSealer().handle(message(B, 'r-x'));
    else t.store.records.get(B)?.set(1, '{"planted":1}');
  };
  const outcomes = await invoke('r-1');
  t.store.beforeAppend = null;
  const attempt = (failed as readonly LogEntry[] | null)?.at(-1);
  if (!attempt) throw new Error('B never appended');

  // The table writer, from what the table holds.
  const records = t.store.records.get(B) as Map<number, string>;
  const nodes = t.store.nodes.get(B) as Map<number, string[]>;
  const r0 = JSON.parse(records.get(0) as string) as SealedRecord;
  const retriedSeq = Math.max(...records.keys());
  const retried = JSON.parse(records.get(retriedSeq) as string) as SealedRecord;
  // Planted: B's write ends in a conflict; its attempted header is taken from the attempt itself
  // (a table writer who learnt it: the strongest case).
  const header =
    how === 'race'
      ? { ...retried.header, monotonicSequenceNumber: 1, parentRecordHash: r0.recordHash }
      : structuredClone(attempt.record.header);
  const rebuilt = { ...(how === 'race' ? retried : r0), header, recordHash: recordHashOf(header) };
  const macs = LINEAGES.map((l) => t.store.headSnapshot(l)?.headKeyMac as HeadKeyMac);
  const install = (headKeyMac: HeadKeyMac) => {
    for (let seq = 1; seq <= retriedSeq; seq++) {
      records.delete(seq);
      nodes.delete(seq);
    }
    records.set(1, canonicalJson(rebuilt));
    nodes.set(1, [...attempt.nodes]);
    const { head: _, ...log } = t.store.headSnapshot(B) as StoredLogHead;
    t.store.heads.set(B, lineageHeadOf(rebuilt));
    t.store.logHeads.set(B, {
      ...log,
      header: structuredClone(header),
      checkpoint: null,
      frontier: [(nodes.get(0) as string[])[0] as string],
      headMac: null,
      headKeyMac: structuredClone(headKeyMac),
    });
    return headStateOf(claimedLogState(t.store.headSnapshot(B) as StoredLogHead, B)) as HeadState;
  };
  return { t, outcomes, attempt, rebuilt, macs, install, message };
}

describe('a head state whose records did not land is never MAC\'d (docs/verifiable-log.md, "Appending")', () => {
  it.for(['race', 'planted'] as const)(
    'a record put that fails on a taken seq (%s): no stored head-key MAC verifies for the failed state, and its rebuilt head is refused',
    async (how) => {
      const { t, outcomes, attempt, rebuilt, macs, install, message } = await failedAppendRebuilt(how);
      expect(outcomes.flat().map((o) => o.kind)).toEqual(['SEALED', how === 'race' ? 'SEALED' : 'CONFLICT', 'SEALED']);
      // The rebuilt head record is the failed attempt's, byte for byte.
      expect(rebuilt.recordHash).toBe(attempt.record.recordHash);
      const failed = install(macs[0] as HeadKeyMac);
      for (const mac of macs) {
        const dataKey = (await t.noticeKey.open(mac.keyBlob)) as Uint8Array;
        expect(isHeadKeyMacValid(failed, dataKey, mac.mac)).toBe(false);
      }
      // Readers: a cold sealer seals nothing on it, the integrator takes it as unauthenticated.
      const next = await t.newSealer().handleGroup([message(B, 'r-2')]);
      expect(next.map((o) => ('reason' in o ? `${o.kind} ${o.reason}` : o.kind))).toEqual([
        'CONFLICT LINEAGE_INCONSISTENT',
      ]);
      // The integrator reads B's head on B's notices (r-x and the retried r-1; none when planted).
      const report = await t.integrator().integrate(t.notices.splice(0));
      if (how === 'race') {
        expect(report.evidence.filter((e) => e.lineageId === B).map((e) => e.kind)).toContain('HEAD_UNAUTHENTICATED');
      }
      expect(report.integrated).not.toContain(B);
    },
  );
});
