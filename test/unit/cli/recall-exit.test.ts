import { describe, expect, it } from 'vitest';
import { awaitRecallReport } from '../../../cli/await-recall-report';
import { CliError } from '../../../cli/errors';
import { ExitCode } from '../../../cli/exit-codes';
import { recallExitCode, recallRefusalHint } from '../../../cli/recall-exit';
import { TimeoutError } from '../../../client/errors';
import { decideRecall, RecallEnd, type VerifiedRecall } from '../../../client/verified-recall';
import type { RecallCheck } from '../../../shared/log/recall-check';
import type { RecallTarget } from '../../../shared/pipeline/recall-target';
import type { TriageCompletedDetail } from '../../../shared/pipeline/triage-completed-detail';
import { VerificationVerdict as V } from '../../../shared/seal/verification-verdict';
import { isolateDelta } from '../../../shared/triage/isolate-delta';
import { buildChain, testManifest } from '../../helpers/seal-factories';

const report: TriageCompletedDetail = {
  formatVersion: 1,
  requestId: 'recall-1',
  lineageId: 'agent-7',
  seq: 2,
  residualId: 'r-2',
  outcome: 'REFUSED',
  verification: null,
  proof: null,
  report: null,
  refusalReason: null,
  refusalCode: null,
  completedAtMs: 1_800_000_000_000,
};

const base: RecallCheck = {
  verdict: null,
  reason: '',
  record: null,
  inclusion: null,
  delta: null,
  checkpoint: null,
  truncationChecked: false,
  refusal: null,
};

/** The recall the client decides from `check` (the stored answer: a bare refusal, diagnostic). */
function decided(check: Partial<RecallCheck>, target: RecallTarget = { latest: true }): VerifiedRecall {
  return decideRecall({
    requestId: 'recall-1',
    lineageId: 'agent-7',
    target,
    report,
    check: { ...base, ...check },
    newestSize: null,
    truncationCheckedAgainst: [],
  });
}

async function provenRecord() {
  const { records } = await buildChain(1, { inputs: () => ({ manifest: testManifest() }) });
  return records[0] as NonNullable<RecallCheck['record']>;
}

describe('reseal recall exit codes: a pure mapping from the end the client decided', () => {
  it('TRIAGED: 0 without drift, 10 when the agent must act', async () => {
    const record = await provenRecord();
    const triaged = (env: Record<string, string>) =>
      decided({ verdict: V.VERIFIED_INTACT, record, delta: isolateDelta(testManifest(), env) });
    expect(triaged({ ARCH: 'arm64', REGION: 'eu-west-1' }).end).toBe(RecallEnd.TRIAGED);
    expect(recallExitCode(triaged({ ARCH: 'arm64', REGION: 'eu-west-1' }))).toBe(ExitCode.OK);
    expect(recallExitCode(triaged({ ARCH: 'arm64', REGION: 'us-east-1' }))).toBe(ExitCode.ACTION_NEEDED);
    expect(recallExitCode(triaged({ ARCH: 'x86_64', REGION: 'eu-west-1' }))).toBe(ExitCode.ACTION_NEEDED);
  });

  it('NOT_INTACT: 20 for every verdict other than VERIFIED_INTACT, and for a proven record without a delta', async () => {
    for (const verdict of [V.HASH_MISMATCH, V.LINEAGE_BROKEN, V.TRUNCATION_DETECTED, V.UNVERIFIED_TAMPER_RISK]) {
      const refused = decided({ verdict, reason: 'broken' });
      expect(refused.end).toBe(RecallEnd.NOT_INTACT);
      expect(recallExitCode(refused)).toBe(ExitCode.TAMPER);
      expect(recallRefusalHint(refused)).toContain(`not proven (${verdict})`);
    }
    const noDelta = decided({ verdict: V.VERIFIED_INTACT, record: await provenRecord() });
    expect(noDelta).toMatchObject({ end: RecallEnd.NOT_INTACT, verdict: V.UNVERIFIED_TAMPER_RISK, record: null });
    expect(recallExitCode(noDelta)).toBe(ExitCode.TAMPER);
  });

  it('NOT_FOUND: 2, the hint names the target asked for (residual, seq, or none for latest)', () => {
    const refusal = { code: 'NOT_FOUND' as const, reason: 'no such record in this lineage', proven: false };
    const latest = decided({ refusal });
    expect(latest.end).toBe(RecallEnd.NOT_FOUND);
    expect(recallExitCode(latest)).toBe(ExitCode.BAD_INPUT);
    expect(recallRefusalHint(latest)).toBe(
      'no such record: lineage agent-7 has no sealed record (check --lineage, --seq, --residual-id)',
    );
    expect(recallRefusalHint(decided({ refusal }, { residualId: 'r-9' }))).toContain('has no residual r-9');
    expect(recallRefusalHint(decided({ refusal }, { seq: 4 }))).toContain('has no seq 4');
  });

  it('INVALID_REQUEST (unproven): 2; MANIFEST_UNTRIAGEABLE on a proven record: 10, unproven: 20', async () => {
    const invalid = decided({ refusal: { code: 'INVALID_REQUEST', reason: 'bad', proven: false } });
    expect(invalid.end).toBe(RecallEnd.INVALID_REQUEST);
    expect(recallExitCode(invalid)).toBe(ExitCode.BAD_INPUT);
    expect(recallRefusalHint(invalid)).toContain('refused the request as invalid (unproven)');
    const untriageable = { code: 'MANIFEST_UNTRIAGEABLE' as const, reason: 'corrupt', proven: true };
    const proven = decided({ verdict: V.VERIFIED_INTACT, record: await provenRecord(), refusal: untriageable });
    expect(proven.end).toBe(RecallEnd.UNTRIAGEABLE);
    expect(recallExitCode(proven)).toBe(ExitCode.ACTION_NEEDED);
    expect(recallRefusalHint(proven)).toContain('rebuild this memory');
    const unproven = decided({ refusal: { ...untriageable, proven: false } });
    expect(unproven).toMatchObject({
      end: RecallEnd.NOT_INTACT,
      verdict: V.UNVERIFIED_TAMPER_RISK,
      detectedBy: 'triage',
    });
    expect(recallExitCode(unproven)).toBe(ExitCode.TAMPER);
    expect(recallRefusalHint(unproven)).toContain('refusal code MANIFEST_UNTRIAGEABLE');
  });

  it('a recall timeout is exit 1, and says an answer may have been deleted and the bus event carries it', async () => {
    const wait = Promise.reject(new TimeoutError('triage report TRIAGE#agent-7 / recall-1', 30_000));
    const error = await awaitRecallReport('recall-1', 30_000, wait).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(ExitCode.UNEXPECTED);
    const { message } = error as CliError;
    expect(message).toMatch(/^no triage report for recall-1 within 30 s: /);
    expect(message).toContain('may have been deleted from the table');
    expect(message).toContain('TriageCompleted event');
    expect(message).not.toContain('is the stack deployed');
    const other = new Error('boom');
    await expect(awaitRecallReport('recall-1', 1000, Promise.reject(other))).rejects.toBe(other);
    await expect(awaitRecallReport('recall-1', 1000, Promise.resolve(7))).resolves.toBe(7);
  });
});
