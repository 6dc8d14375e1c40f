import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DemoRecall, LineageItems } from '../../../scripts/demo/backend';
import { formatSummary } from '../../../scripts/demo/format';
import { mapBounded, runDemo } from '../../../scripts/demo/run-demo';
import { LINEAGE_TEMPLATES } from '../../../scripts/demo/scenario';
import { parseSnapshots, sliceSnapshots } from '../../../scripts/demo/snapshots';
import { expectedRecalls, expectedTotals } from '../../helpers/demo-expected-counts';
import { inProcessBackend } from './in-process-backend';

const snapshots = parseSnapshots(readFileSync('examples/runner-images/ubuntu-24.04.jsonl', 'utf8'));
const noSleep = async () => undefined;

describe('runDemo on the in-process pipeline (guard, sealer, verifier, triage from the core)', () => {
  it('reports the verdicts, kept and re-probed claims and monolithic totals the independent model computes', async () => {
    const slice = sliceSnapshots(snapshots, { from: 0, to: 16, every: 4 });
    const backend = inProcessBackend();
    const summary = await runDemo({ backend, slice, runId: 'unit', sleep: noSleep });
    expect(summary.problems).toEqual([]);
    const expected = expectedTotals(LINEAGE_TEMPLATES, slice);
    expect(summary.totals).toEqual({
      recalls: expected.recalls,
      byVerdict: expected.byVerdict,
      refused: 0,
      claimsChecked: expected.claimsKept + expected.claimsReprobed,
      claimsKept: expected.claimsKept,
      claimsReprobed: expected.claimsReprobed,
      reseals: expected.reseals,
      monolithic: {
        invalidatedRecalls: expected.monolithicInvalidatedRecalls,
        claimsRederived: expected.monolithicClaimsRederived,
      },
      claimsSaved: expected.claimsSaved,
      declaredAbsent: {
        recalls: expected.declaredAbsentRecalls,
        claimsQuarantined: expected.claimsQuarantinedOnAbsence,
      },
    });
    // docs/authorship.md: two agents, each refused in the other's lineage, unsigned; every record attributed to its own agent.
    expect(
      summary.crossWrites.map((c) => [c.by, c.into, c.clientRefused, c.stage, c.reason, c.signed, c.headUnchanged]),
    ).toEqual([
      ['node-build', 'python-ci', true, 'SEALER', 'WRITER_NOT_ADMITTED', false, true],
      ['python-ci', 'node-build', true, 'SEALER', 'WRITER_NOT_ADMITTED', false, true],
    ]);
    for (const w of summary.writers) {
      expect(w.verdict).toBe('VERIFIED_INTACT');
      expect(
        w.records.map((r) => r.writtenBy?.status === 'SIGNED' && [r.writtenBy.keyId, r.writtenBy.admittedAs]),
      ).toEqual(w.records.map((_, i) => [w.agentKeyId, i === 0 ? 'INCEPTION' : 'WRITE']));
    }
    const printed = formatSummary(summary);
    expect(printed).toContain("node-build's agent signs a write into python-ci's lineage");
    expect(printed).toMatch(/seq 0: node-build-agent, ed25519 \S+; admitted as INCEPTION/);
    // podman, buildah and skopeo arrive between #0 and #1, so by #4 the claim resting on their absence is quarantined.
    expect(summary.totals.declaredAbsent).toEqual({ recalls: 1, claimsQuarantined: 1 });
    for (const lineage of LINEAGE_TEMPLATES) {
      const got = summary.recalls.filter((r) => r.lineage === lineage.name);
      const want = expectedRecalls(lineage, slice);
      const row = (r: (typeof got)[number] | (typeof want)[number]) => [
        r.snapshotIndex,
        r.verdict,
        r.kept,
        r.reprobed,
        r.mattered,
        r.recalledSeq,
        r.absentAppeared,
        r.quarantinedOnAbsence,
      ];
      expect(got.map(row)).toEqual(want.map(row));
    }
  });

  it('docs/guard.md V4: the write with an unverified inherited variable is refused and the head stays', async () => {
    const slice = sliceSnapshots(snapshots, { from: 0, to: 3 });
    const summary = await runDemo({ backend: inProcessBackend(), slice, runId: 'guard', sleep: noSleep });
    expect(summary.refusedWrite).toMatchObject({
      // Self-certifying: the run's label, then the digest of the lineage's writer policy (docs/authorship.md).
      lineageId: expect.stringMatching(/^demo-guard-node-build\.[0-9a-f]{32}$/),
      variableName: 'runner-instance-id',
      stage: 'GUARD',
      reason: 'STALE_STATE',
      headUnchanged: true,
    });
    expect(summary.refusedWrite.rejectedVariables).toContainEqual({
      name: 'runner-instance-id',
      reason: 'UNVERIFIED_INHERITED',
    });
  });

  it('docs/sealing.md verification step 15 (hash-with-payload forgery): a payload edited in the store is refused at recall as HASH_MISMATCH', async () => {
    const slice = sliceSnapshots(snapshots, { from: 0, to: 3 });
    const summary = await runDemo({ backend: inProcessBackend(), slice, runId: 'tamper', sleep: noSleep });
    expect(summary.tamper.lineageId).toMatch(/^demo-tamper-python-ci\.[0-9a-f]{32}$/);
    expect(summary.tamper.edited).toMatch(/^record\.payload\.claims\./);
    expect(summary.tamper.outcome).toBe('REFUSED');
    expect(summary.tamper.verification).toBe('HASH_MISMATCH');
    expect(summary.tamper.firstFailure?.seq).toBe(summary.tamper.seq);
  });

  it("lists a problem, instead of passing, when a stranger's refused write costs a Sign (a signed refusal)", async () => {
    const slice = sliceSnapshots(snapshots, { from: 0, to: 4, every: 4 });
    const backend = inProcessBackend();
    const signsRefusals = {
      ...backend,
      readRefusal: async (lineageId: string, residualId: string) => {
        const found = await backend.readRefusal(lineageId, residualId);
        return found && { ...found, signatureVerified: true };
      },
    };
    const summary = await runDemo({ backend: signsRefusals, slice, runId: 'unit-signed', sleep: noSleep });
    expect(summary.problems).toEqual([
      expect.stringMatching(
        /by-node-build was not refused unsigned as SEALER WRITER_NOT_ADMITTED \(SEALER WRITER_NOT_ADMITTED, signed\)/,
      ),
      expect.stringMatching(/by-python-ci was not refused unsigned as SEALER WRITER_NOT_ADMITTED/),
    ]);
  });

  it('lists a problem, instead of passing, when the store does not catch the tamper', async () => {
    const slice = sliceSnapshots(snapshots, { from: 0, to: 2 });
    const backend = inProcessBackend();
    backend.tamperWithPayload = async () => ({ path: 'nothing', before: '', after: '' });
    const summary = await runDemo({ backend, slice, runId: 'blind', sleep: noSleep });
    expect(summary.problems).toEqual([expect.stringMatching(/not refused as HASH_MISMATCH/)]);
    expect(formatSummary(summary)).toContain('PROBLEMS:');
  });

  describe('step 6: the deployment checkpoint and a rollback (docs/demo.md, "What happens")', () => {
    /** The in-process pipeline with a deployment log stand-in: every recall PROVEN, a table to copy, a cold client. */
    function withTable(cold: DemoRecall) {
      const backend = inProcessBackend();
      const putBack: number[] = [];
      const proven = { state: 'PROVEN', checkpointSize: 7, witnessing: 'UNWITNESSED' } as const;
      return {
        putBack,
        backend: {
          ...backend,
          recall: async (...args: Parameters<typeof backend.recall>) => ({
            ...(await backend.recall(...args)),
            freshness: proven,
          }),
          copyLineage: async (lineageId: string) => ({
            lineageId,
            headSeq: (await backend.readHead(lineageId))?.seq ?? -1,
          }),
          putLineageBack: async (copy: LineageItems) => void putBack.push(copy.headSeq),
          recallCold: async () => cold,
        },
      };
    }
    const refused: DemoRecall = {
      end: 'NOT_INTACT',
      verdict: 'UNVERIFIED_TAMPER_RISK',
      reason: 'not the newest',
      delta: null,
      seq: 0,
      proven: false,
      freshness: { state: 'NOT_NEWEST', checkpointSize: 7, witnessing: 'UNWITNESSED' },
    };

    it('shows the checkpoint, rolls back a lineage that re-sealed, counts the NOT_NEWEST refusal and puts it back', async () => {
      const slice = sliceSnapshots(snapshots, { from: 0, to: 16, every: 4 });
      const { backend, putBack } = withTable(refused);
      const summary = await runDemo({ backend, slice, runId: 'unit-rollback', sleep: noSleep });
      expect(summary.problems).toEqual([]);
      expect(summary.freshness).toMatchObject({ checkpointSize: 7, witnessing: 'UNWITNESSED', proven: 3 });
      expect(summary.rollback).toMatchObject({ outcome: 'REFUSED', freshnessState: 'NOT_NEWEST', restored: true });
      const rb = summary.rollback as NonNullable<typeof summary.rollback>;
      expect(rb.rolledBackToSeq).toBeLessThan(rb.headSeq);
      expect(putBack).toEqual([rb.rolledBackToSeq, rb.headSeq]);
      const text = formatSummary(summary);
      expect(text).toContain(
        "Freshness: 3 of 3 lineages' final recalls PROVEN under deployment checkpoint 7 (UNWITNESSED",
      );
      expect(text).toContain('REFUSED UNVERIFIED_TAMPER_RISK NOT_NEWEST, never the rolled-back memory; put back');
      expect(text).toContain('rollbacks caught      1 of 1');
    });

    it('lists a problem, instead of passing, when the successor acts on the rolled-back memory', async () => {
      const slice = sliceSnapshots(snapshots, { from: 0, to: 16, every: 4 });
      const { backend } = withTable({ ...refused, end: 'TRIAGED', verdict: 'VERIFIED_INTACT', freshness: null });
      const summary = await runDemo({ backend, slice, runId: 'unit-rollback-blind', sleep: noSleep });
      expect(summary.problems).toEqual([expect.stringMatching(/was not refused as NOT_NEWEST/)]);
      expect(formatSummary(summary)).toContain('rollbacks caught      0 of 1');
    });
  });

  it('stops between steps when aborted', async () => {
    const aborter = new AbortController();
    aborter.abort(new Error('Ctrl-C'));
    const slice = sliceSnapshots(snapshots, { from: 0, to: 2 });
    await expect(
      runDemo({ backend: inProcessBackend(), slice, runId: 'abort', signal: aborter.signal }),
    ).rejects.toThrow('Ctrl-C');
  });

  it('the printed summary names every verdict, the keys that mattered and the monolithic comparison', async () => {
    const slice = sliceSnapshots(snapshots, { from: 4, to: 8, every: 2 });
    const summary = await runDemo({ backend: inProcessBackend(), slice, runId: 'print', sleep: noSleep });
    const text = formatSummary(summary);
    expect(text).toContain('FULL_RECONSTRUCTION_REQUIRED');
    expect(text).toContain('os:version');
    expect(text).toContain(
      `monolithic seal       would have invalidated ${summary.totals.monolithic.invalidatedRecalls} of ${summary.totals.recalls} recalls`,
    );
    expect(text).toContain(`saved ${summary.totals.claimsSaved} re-derivations`);
    expect(text).toMatch(
      /Guard: write demo-print-node-build\.[0-9a-f]{32}\.e2-inherited with inherited runner-instance-id/,
    );
    // The slice starts at #4: podman & co. are there already, so no claim rests on their absence.
    expect(text).toContain('declared absent       no key a claim declared absent appeared');
  });

  it('the printed summary names the claim quarantined when keys it declared absent appeared', async () => {
    const slice = sliceSnapshots(snapshots, { from: 0, to: 1 });
    const summary = await runDemo({ backend: inProcessBackend(), slice, runId: 'absent', sleep: noSleep });
    expect(summary.problems).toEqual([]);
    const text = formatSummary(summary);
    expect(text).toContain(
      'declared absent       1 claim quarantined at 1 recall when keys they declared absent appeared ' +
        '(container-deploy #1: single-container-runtime on tool:buildah, tool:podman, tool:skopeo)',
    );
    const arrival = summary.recalls.find((r) => r.lineage === 'container-deploy' && r.snapshotIndex === 1);
    expect(arrival?.dropped).toEqual(['single-container-runtime']);
    expect(summary.lineages.find((l) => l.lineage === 'container-deploy')?.claims).toBe(5);
  });
});

describe('mapBounded', () => {
  it('keeps at most `limit` calls in flight and returns results in input order', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapBounded([5, 1, 4, 2, 3], 2, async (n) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, n));
      inFlight -= 1;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(peak).toBe(2);
  });
});
