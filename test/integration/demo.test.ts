import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { clientOutputsFrom } from '../../client/stack-outputs';
import { awsBackend } from '../../scripts/demo/aws-backend';
import { formatSummary } from '../../scripts/demo/format';
import { runDemo } from '../../scripts/demo/run-demo';
import { LINEAGE_TEMPLATES } from '../../scripts/demo/scenario';
import { loadSnapshots, sliceSnapshots } from '../../scripts/demo/snapshots';
import { clientConfig } from '../../scripts/emulator/deploy';
import { expectedRecalls, expectedTotals, type ModelSnapshot } from '../helpers/demo-expected-counts';

// `npm run demo` smoke run on a small slice of the real series, against the stack global-setup
// deployed (no second emulator). The expected counts are computed here from the snapshot file
// with plain key/value comparisons (test/helpers/demo-expected-counts.ts), never through triage.
const stack = inject('stack');
const endpoint = inject('endpoint');
const FILE = 'examples/runner-images/ubuntu-24.04.jsonl';
const FROM = 4;
const TO = 8;

/** The slice, read straight from the file: JSON.parse per line, filtered by index. */
const independentSlice: ModelSnapshot[] = readFileSync(FILE, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as ModelSnapshot)
  .filter((s) => s.index >= FROM && s.index <= TO);

describe('npm run demo smoke run (snapshots #4–#8 of ubuntu-24.04)', () => {
  it('docs/demo.md end to end: verdicts, kept and re-probed claims and monolithic totals match counts computed from the file', async () => {
    const slice = sliceSnapshots(await loadSnapshots(FILE), { from: FROM, to: TO });
    expect(slice.map((s) => s.index)).toEqual(independentSlice.map((s) => s.index));
    const backend = awsBackend({
      outputs: clientOutputsFrom({ ...stack }),
      clientConfig: clientConfig(endpoint),
    });
    const summary = await runDemo({ backend, slice, runId: `it-${Date.now().toString(36)}` });
    const expected = expectedTotals(LINEAGE_TEMPLATES, independentSlice);

    // The slice is worth running: every delta verdict shows up in it.
    for (const n of Object.values(expected.byVerdict)) expect(n).toBeGreaterThan(0);

    expect(summary.problems, formatSummary(summary)).toEqual([]);
    expect(summary.totals.recalls).toBe(expected.recalls);
    expect(summary.totals.byVerdict).toEqual(expected.byVerdict);
    expect(summary.totals.refused).toBe(0);
    expect(summary.totals.claimsKept).toBe(expected.claimsKept);
    expect(summary.totals.claimsReprobed).toBe(expected.claimsReprobed);
    expect(summary.totals.reseals).toBe(expected.reseals);
    expect(summary.totals.monolithic.invalidatedRecalls).toBe(expected.monolithicInvalidatedRecalls);
    expect(summary.totals.monolithic.claimsRederived).toBe(expected.monolithicClaimsRederived);
    expect(summary.totals.claimsSaved).toBe(expected.claimsSaved);
    expect(summary.totals.declaredAbsent).toEqual({
      recalls: expected.declaredAbsentRecalls,
      claimsQuarantined: expected.claimsQuarantinedOnAbsence,
    });
    for (const lineage of LINEAGE_TEMPLATES) {
      const got = summary.recalls.filter((r) => r.lineage === lineage.name);
      const want = expectedRecalls(lineage, independentSlice);
      const row = (r: (typeof got)[number] | (typeof want)[number]) => [
        r.snapshotIndex,
        r.recalledSeq,
        r.verdict,
        r.mattered,
        r.kept,
        r.reprobed,
        r.quarantinedOnAbsence,
      ];
      expect(got.map(row)).toEqual(want.map(row));
      expect(got.every((r) => r.verification === 'VERIFIED_INTACT')).toBe(true);
    }

    // docs/guard.md: the resumed session's write with an unverified inherited variable was refused by the guard.
    expect(summary.refusedWrite).toMatchObject({ stage: 'GUARD', reason: 'STALE_STATE', headUnchanged: true });
    expect(summary.refusedWrite.rejectedVariables).toContainEqual({
      name: 'runner-instance-id',
      reason: 'UNVERIFIED_INHERITED',
    });
    // docs/authorship.md: two agents, each refused in the other's lineage by the sealer, unsigned, heads unchanged.
    expect(
      summary.crossWrites.map((c) => [c.by, c.into, c.clientRefused, c.stage, c.reason, c.signed, c.headUnchanged]),
    ).toEqual([
      ['node-build', 'python-ci', true, 'SEALER', 'WRITER_NOT_ADMITTED', false, true],
      ['python-ci', 'node-build', true, 'SEALER', 'WRITER_NOT_ADMITTED', false, true],
    ]);
    // Who wrote each record, verified through the signed log: the lineage's own agent, inception first.
    expect(summary.writers.map((w) => w.lineage)).toEqual(LINEAGE_TEMPLATES.map((t) => t.name));
    for (const w of summary.writers) {
      expect(w.verdict).toBe('VERIFIED_INTACT');
      expect(
        w.records.map((r) => r.writtenBy?.status === 'SIGNED' && [r.writtenBy.keyId, r.writtenBy.admittedAs]),
      ).toEqual(w.records.map((_, i) => [w.agentKeyId, i === 0 ? 'INCEPTION' : 'WRITE']));
    }
    expect(formatSummary(summary)).toMatch(/seq 0: node-build-agent, ed25519 \S+; admitted as INCEPTION/);
    // docs/deployment-log.md, "Clients": every lineage's final recall PROVEN under the stack's unwitnessed deployment checkpoint.
    expect(summary.freshness).toMatchObject({ witnessing: 'UNWITNESSED', proven: LINEAGE_TEMPLATES.length });
    expect(Object.values(summary.freshness?.states ?? {})).toEqual(LINEAGE_TEMPLATES.map(() => 'PROVEN'));
    expect(summary.freshness?.checkpointSize).toBeGreaterThan(0);
    // A lineage rolled back in the table to a signed older state: a successor with no local state refuses it as NOT_NEWEST.
    expect(summary.rollback).toMatchObject({
      outcome: 'REFUSED',
      verification: 'UNVERIFIED_TAMPER_RISK',
      freshnessState: 'NOT_NEWEST',
      restored: true,
    });
    expect(summary.rollback?.rolledBackToSeq).toBeLessThan(summary.rollback?.headSeq ?? 0);
    const text = formatSummary(summary);
    expect(text).toMatch(
      /Freshness: 3 of 3 lineages' final recalls PROVEN under deployment checkpoint \d+ \(UNWITNESSED/,
    );
    expect(text).toMatch(
      /Rollback: .* a successor session with no local state: REFUSED UNVERIFIED_TAMPER_RISK NOT_NEWEST/,
    );
    expect(text).toContain('rollbacks caught      1 of 1');
    // docs/demo.md step 5, docs/verifiable-log.md "Receipts": a format-2 receipt (the deployment chain), checked offline with the policy.
    expect(summary.receipt).toMatchObject({ formatVersion: 2, seq: 0, verdict: 'VERIFIED_INTACT' });
    expect(summary.receipt.checkpointSize).toBeGreaterThan(0);
    expect(text).toMatch(
      /Receipt: seq 0 of \S+ \(format 2\) checked offline with the tlog-policy alone → VERIFIED_INTACT/,
    );
    // docs/sealing.md: the record edited in DynamoDB was refused at recall.
    expect(summary.tamper).toMatchObject({ outcome: 'REFUSED', verification: 'HASH_MISMATCH' });
    expect(summary.tamper.firstFailure?.seq).toBe(summary.tamper.seq);
  });
});
