import { describe, expect, it } from 'vitest';
import { CliError } from '../../../cli/errors';
import { ExitCode } from '../../../cli/exit-codes';
import { awaitRecallReport, RecallEnd, recallEnd, recallExitCode, recallRefusalHint } from '../../../cli/recall-exit';
import { TimeoutError } from '../../../client/errors';
import type { TriageCompletedDetail } from '../../../shared/pipeline/messages';
import { VerificationVerdict as V, type VerificationVerdict } from '../../../shared/seal/verification-verdict';
import { isolateDelta } from '../../../shared/triage/delta-isolator';
import { testManifest } from '../../helpers/seal-factories';

const intact = { verdict: V.VERIFIED_INTACT, firstFailure: null };
const notIntact = (verdict: VerificationVerdict) => ({
  verdict,
  firstFailure: { seq: 1, verdict, reason: 'broken' },
});

function detail(overrides: Partial<TriageCompletedDetail>): TriageCompletedDetail {
  return {
    formatVersion: 1,
    requestId: 'recall-1',
    lineageId: 'agent-7',
    seq: 2,
    residualId: 'r-2',
    outcome: 'REFUSED',
    verification: intact,
    proof: null,
    report: null,
    refusalReason: null,
    refusalCode: null,
    completedAtMs: 1_800_000_000_000,
    ...overrides,
  };
}

const triaged = (env: Record<string, string>) =>
  detail({ outcome: 'TRIAGED', report: isolateDelta(testManifest(), env), refusalReason: null });

describe('reseal recall exit codes', () => {
  it('TRIAGED: 0 without drift, 10 when the agent must act', () => {
    expect(recallExitCode(triaged({ ARCH: 'arm64', REGION: 'eu-west-1' }))).toBe(ExitCode.OK);
    expect(recallExitCode(triaged({ ARCH: 'arm64', REGION: 'us-east-1' }))).toBe(ExitCode.ACTION_NEEDED);
    expect(recallExitCode(triaged({ ARCH: 'x86_64', REGION: 'eu-west-1' }))).toBe(ExitCode.ACTION_NEEDED);
  });

  it('REFUSED VERIFICATION_FAILED, or any chain not VERIFIED_INTACT: 20, whatever the code or reason says', () => {
    for (const verdict of [V.HASH_MISMATCH, V.LINEAGE_BROKEN, V.TRUNCATION_DETECTED, V.UNVERIFIED_TAMPER_RISK]) {
      const refused = detail({
        verification: notIntact(verdict),
        refusalCode: 'VERIFICATION_FAILED',
        refusalReason: 'record not verified; triage refused',
      });
      expect(recallEnd(refused)).toBe(RecallEnd.NOT_INTACT);
      expect(recallExitCode(refused)).toBe(ExitCode.TAMPER);
      expect(recallRefusalHint(refused)).toContain(`the chain is not intact (${verdict})`);
    }
    // Even a "not found" code cannot turn a broken chain into bad input.
    const masked = detail({ verification: notIntact(V.LINEAGE_BROKEN), refusalCode: 'NOT_FOUND' });
    expect(recallExitCode(masked)).toBe(ExitCode.TAMPER);
  });

  it('a TRIAGED detail without an intact verification or a report is not trusted: 20', () => {
    expect(recallExitCode(detail({ outcome: 'TRIAGED', verification: null, report: null }))).toBe(ExitCode.TAMPER);
    expect(recallExitCode(detail({ outcome: 'TRIAGED', verification: intact, report: null }))).toBe(ExitCode.TAMPER);
  });

  it('REFUSED NOT_FOUND: 2 (unknown target), with a clear hint', () => {
    const noLineage = detail({ seq: null, residualId: null, verification: null, refusalCode: 'NOT_FOUND' });
    expect(recallEnd(noLineage)).toBe(RecallEnd.NOT_FOUND);
    expect(recallExitCode(noLineage)).toBe(ExitCode.BAD_INPUT);
    expect(recallRefusalHint(noLineage)).toBe(
      'no such record: lineage agent-7 has no sealed record (check --lineage, --seq, --residual-id)',
    );
    const noResidual = detail({ seq: null, residualId: 'r-9', verification: null, refusalCode: 'NOT_FOUND' });
    expect(recallExitCode(noResidual)).toBe(ExitCode.BAD_INPUT);
    expect(recallRefusalHint(noResidual)).toContain('has no residual r-9');
    // Past the head: the chain verified intact, the target is not in it.
    const pastHead = detail({ seq: 9, residualId: null, refusalCode: 'NOT_FOUND' });
    expect(recallExitCode(pastHead)).toBe(ExitCode.BAD_INPUT);
    expect(recallRefusalHint(pastHead)).toContain('has no seq 9');
  });

  it('REFUSED NOT_FOUND for --residual-id names the residual, never "has no sealed record" or the seq it led to', () => {
    // The residual's marker led past the signed checkpoint: triage names the seq it found.
    const markerAhead = detail({ seq: 9, residualId: 'r-9', verification: null, refusalCode: 'NOT_FOUND' });
    expect(recallRefusalHint(markerAhead)).toBe(
      'no such record: lineage agent-7 has no residual r-9 (check --lineage, --seq, --residual-id)',
    );
    // An answer that names neither (stored by another version, or forged): the target asked for is named.
    const bare = detail({ seq: null, residualId: null, verification: null, refusalCode: 'NOT_FOUND' });
    expect(recallRefusalHint(bare, { residualId: 'r-9' })).toBe(
      'no such record: lineage agent-7 has no residual r-9 (check --lineage, --seq, --residual-id)',
    );
    expect(recallRefusalHint(markerAhead, { residualId: 'r-9' })).toContain('has no residual r-9');
    expect(recallRefusalHint(bare, { seq: 4 })).toContain('has no seq 4');
    // The target asked for wins over what the (untrusted) answer names.
    expect(recallRefusalHint(detail({ seq: 9, residualId: 'r-x', refusalCode: 'NOT_FOUND' }), { seq: 9 })).toContain(
      'has no seq 9',
    );
    expect(recallRefusalHint(bare, { latest: true })).toContain('has no sealed record');
  });

  it('REFUSED INVALID_REQUEST: 2', () => {
    const invalid = detail({
      seq: null,
      residualId: null,
      verification: null,
      refusalCode: 'INVALID_REQUEST',
      refusalReason: 'invalid RecallRequested detail: currentEnv: expected record',
    });
    expect(recallEnd(invalid)).toBe(RecallEnd.INVALID_REQUEST);
    expect(recallExitCode(invalid)).toBe(ExitCode.BAD_INPUT);
    expect(recallRefusalHint(invalid)).toContain('refused the request as invalid');
  });

  it('REFUSED MANIFEST_UNTRIAGEABLE on an intact record: 10, not tamper; without a verification: 20', () => {
    const corrupt = detail({
      refusalCode: 'MANIFEST_UNTRIAGEABLE',
      refusalReason: 'delta isolation refused: manifest is corrupt: preconditionSeal …',
    });
    expect(recallEnd(corrupt)).toBe(RecallEnd.UNTRIAGEABLE);
    expect(recallExitCode(corrupt)).toBe(ExitCode.ACTION_NEEDED);
    expect(recallRefusalHint(corrupt)).toContain('rebuild this memory');
    const unverified = detail({ verification: null, refusalCode: 'MANIFEST_UNTRIAGEABLE' });
    expect(recallExitCode(unverified)).toBe(ExitCode.TAMPER);
  });

  it('the exit code follows refusalCode, not the wording of refusalReason', () => {
    // Messages the triage function used to be matched on, swapped between codes or reworded.
    const cases = [
      { code: 'NOT_FOUND', reason: 'the record could not be located', exit: ExitCode.BAD_INPUT },
      {
        code: 'NOT_FOUND',
        reason: 'invalid RecallRequested detail: looks invalid but is not',
        exit: ExitCode.BAD_INPUT,
      },
      { code: 'INVALID_REQUEST', reason: 'no such record in this lineage', exit: ExitCode.BAD_INPUT },
      {
        code: 'MANIFEST_UNTRIAGEABLE',
        reason: 'record 2 is missing from the verified chain',
        exit: ExitCode.ACTION_NEEDED,
      },
      { code: 'MANIFEST_UNTRIAGEABLE', reason: 'no such record in this lineage', exit: ExitCode.ACTION_NEEDED },
    ] as const;
    for (const { code, reason, exit } of cases) {
      expect(recallExitCode(detail({ refusalCode: code, refusalReason: reason }))).toBe(exit);
    }
    // Same code, any wording: same end.
    const a = detail({ seq: null, verification: null, refusalCode: 'INVALID_REQUEST', refusalReason: 'bad' });
    const b = detail({
      seq: null,
      verification: null,
      refusalCode: 'INVALID_REQUEST',
      refusalReason: 'schema says no',
    });
    expect(recallEnd(a)).toBe(recallEnd(b));
  });

  it('REFUSED without a known code (a report stored before codes, or a code from a newer version): 20, not trusted', () => {
    const legacy = { ...detail({ refusalReason: 'no such record in this lineage' }) } as Record<string, unknown>;
    delete legacy.refusalCode;
    const legacyDetail = legacy as TriageCompletedDetail;
    expect(recallEnd(legacyDetail)).toBe(RecallEnd.NOT_INTACT);
    expect(recallExitCode(legacyDetail)).toBe(ExitCode.TAMPER);
    expect(recallRefusalHint(legacyDetail)).toContain('no refusal code');
    const future = detail({ refusalCode: 'SOMETHING_NEW' as TriageCompletedDetail['refusalCode'] });
    expect(recallExitCode(future)).toBe(ExitCode.TAMPER);
    expect(recallRefusalHint(future)).toContain('refusal code SOMETHING_NEW');
  });

  it('a recall timeout is exit 1 with a message naming the request and the wait', async () => {
    const wait = Promise.reject(new TimeoutError('triage report TRIAGE#agent-7 / recall-1', 30_000));
    const error = await awaitRecallReport('recall-1', 30_000, wait).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(ExitCode.UNEXPECTED);
    expect((error as CliError).message).toBe(
      'no triage report for recall-1 within 30 s: is the stack deployed and the triage function healthy?',
    );
    const other = new Error('boom');
    await expect(awaitRecallReport('recall-1', 1000, Promise.reject(other))).rejects.toBe(other);
    await expect(awaitRecallReport('recall-1', 1000, Promise.resolve(7))).resolves.toBe(7);
  });
});
