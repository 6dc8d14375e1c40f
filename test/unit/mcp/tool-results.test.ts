import { describe, expect, it } from 'vitest';
import { TimeoutError, UnverifiedOutcomeError } from '../../../client/errors';
import { ToolErrorCode } from '../../../mcp/tool-outputs';
import {
  errorResult,
  recallResult,
  type SnapshotUse,
  verifyResult,
  writeOutcomeResult,
} from '../../../mcp/tool-results';
import { InvalidInputError } from '../../../shared/errors';
import { LineageNotFoundError } from '../../../shared/ports/lineage-store';
import type { TriageCompletedDetail } from '../../../shared/schemas/messages';
import type { ChainVerification } from '../../../shared/seal/chain-verification';
import { verifyChain } from '../../../shared/seal/lineage-verifier';
import { lineageHeadOf, type SealedRecord } from '../../../shared/seal/sealed-record';
import { isolateDelta } from '../../../shared/triage/delta-isolator';
import { buildManifest } from '../../../shared/triage/manifest';
import { validWriteRequest } from '../../helpers/guard-factories';
import { staleEpochConflict, staleRejection } from '../../helpers/outcome-factories';
import { buildChain, cloneRecord, TEST_LINEAGE_ID, testAnchor } from '../../helpers/seal-factories';

const SNAPSHOT: SnapshotUse = { source: 'providers', env: { 'tool:node': 'v20.0.0' }, notes: ['tool:git: not run'] };
const SEALED_ENV = { 'tool:node': 'v20.0.0', 'tool:npm': '10.0.0', 'tool:os': 'ubuntu-24.04', 'env:HOSTNAME': 'a' };
const manifest = buildManifest({
  env: SEALED_ENV,
  structuralKeys: ['tool:os'],
  claimDependencyMap: { 'node-builds': ['tool:node'], 'npm-ci-works': ['tool:npm'] },
});
const payload = { claims: { 'node-builds': 'npm run build passes', 'npm-ci-works': { exit: 0 } }, data: { note: 'x' } };

/** One sealed record (seq 0) with the claims layout reseal_write writes, and its own verification. */
async function sealedRecord(): Promise<{ record: SealedRecord; verification: ChainVerification }> {
  const { records } = await buildChain(1, { inputs: () => ({ payload, manifest }) });
  const record = records[0] as SealedRecord;
  return { record, verification: await verifyChain([record], { lineageId: TEST_LINEAGE_ID, anchor: testAnchor() }) };
}

function triaged(record: SealedRecord, currentEnv: Record<string, string>): TriageCompletedDetail {
  return {
    formatVersion: 1,
    requestId: 'req-1',
    lineageId: TEST_LINEAGE_ID,
    seq: record.header.monotonicSequenceNumber,
    residualId: record.header.residualId,
    outcome: 'TRIAGED',
    verification: { verdict: 'VERIFIED_INTACT', firstFailure: null },
    report: isolateDelta(record.manifest, currentEnv),
    refusalReason: null,
    refusalCode: null,
    completedAtMs: 1,
  };
}

const structured = (result: { structuredContent?: unknown }) => result.structuredContent as Record<string, unknown>;

describe('reseal_write answers: sealed, or a tool error with each reason and what to do', () => {
  const request = validWriteRequest({ lineageId: TEST_LINEAGE_ID, residualId: 'r-1' });

  it('SEALED → the checkpoint, the record place and where the snapshot came from (not an error)', async () => {
    const { record } = await sealedRecord();
    const result = writeOutcomeResult(request, { kind: 'SEALED', head: lineageHeadOf(record) }, SNAPSHOT);
    expect(result.isError).toBeUndefined();
    expect(structured(result)).toMatchObject({
      outcome: 'SEALED',
      seq: 0,
      checkpoint: { seq: 0, recordHash: record.recordHash },
      snapshot: { source: 'providers', keys: 1, notes: ['tool:git: not run'] },
    });
    expect(JSON.parse((result.content[1] as { text: string }).text)).toEqual(structured(result));
  });

  it('REJECTED STALE_STATE → WRITE_REJECTED with each rejected variable and its action', () => {
    const result = writeOutcomeResult(request, { kind: 'REJECTED', rejection: staleRejection('r-1') }, SNAPSHOT);
    expect(result.isError).toBe(true);
    expect(structured(result)).toMatchObject({
      error: ToolErrorCode.WRITE_REJECTED,
      stage: 'GUARD',
      reason: 'STALE_STATE',
      rejectedVariables: [{ name: 'targetResourceId', reason: 'UNVERIFIED_INHERITED' }],
    });
    const [variable] = structured(result).rejectedVariables as { action: string }[];
    expect(variable?.action).toMatch(/VERIFIED_INHERITED and reprobe/);
    expect(structured(result).action).toMatch(/re-probe/);
  });

  it('REJECTED RESIDUAL_ID_REUSED → WRITE_REJECTED telling to write under a new id', () => {
    const rejection = staleRejection('r-1', { stage: 'SEALER', reason: 'RESIDUAL_ID_REUSED', rejectedVariables: [] });
    const result = writeOutcomeResult(request, { kind: 'REJECTED', rejection }, SNAPSHOT);
    expect(structured(result)).toMatchObject({ error: 'WRITE_REJECTED', reason: 'RESIDUAL_ID_REUSED' });
    expect(structured(result).action).toMatch(/new residualId/);
  });

  it('CONFLICT STALE_EPOCH → WRITE_CONFLICT: fenced out, do not retry', () => {
    const result = writeOutcomeResult(request, { kind: 'CONFLICT', conflict: staleEpochConflict('r-1') }, SNAPSHOT);
    expect(structured(result)).toMatchObject({ error: 'WRITE_CONFLICT', reason: 'STALE_EPOCH' });
    expect(structured(result).action).toMatch(/do not retry/);
  });
});

describe('reseal_recall answers: claims kept with their content, claims to re-probe, or a tamper error', () => {
  it('PARTIAL_REPROBE_REQUIRED: the claim on the drifted key is to re-probe, the other kept with its content', async () => {
    const recalled = await sealedRecord();
    const detail = triaged(recalled.record, { ...SEALED_ENV, 'tool:node': 'v22.0.0', 'env:HOSTNAME': 'b' });
    const result = recallResult({ detail, recalled, checkpoint: null, snapshot: SNAPSHOT });
    expect(result.isError).toBeUndefined();
    expect(structured(result)).toMatchObject({
      outcome: 'TRIAGED',
      seq: 0,
      verification: { verdict: 'VERIFIED_INTACT', checkpoint: null },
      delta: { verdict: 'PARTIAL_REPROBE_REQUIRED', changed: ['env:HOSTNAME', 'tool:node'] },
      keptClaims: [{ claimId: 'npm-ci-works', causalKeys: ['tool:npm'], content: { exit: 0 } }],
      reprobeClaims: [
        {
          claimId: 'node-builds',
          causalKeys: ['tool:node'],
          driftedKeys: ['tool:node'],
          previousContent: 'npm run build passes',
        },
      ],
      data: { note: 'x' },
      supersedes: { seq: 0, recordHash: recalled.record.recordHash },
    });
  });

  it('a structural key drifted: FULL_RECONSTRUCTION_REQUIRED, every claim to re-probe', async () => {
    const recalled = await sealedRecord();
    const detail = triaged(recalled.record, { ...SEALED_ENV, 'tool:os': 'ubuntu-26.04' });
    const out = structured(recallResult({ detail, recalled, checkpoint: null, snapshot: SNAPSHOT }));
    expect(out.keptClaims).toEqual([]);
    expect((out.reprobeClaims as { claimId: string }[]).map((c) => c.claimId)).toEqual(['node-builds', 'npm-ci-works']);
    expect(out.nextStep).toMatch(/trust no claim/);
  });

  it('refused by triage with a broken chain → TAMPER_DETECTED (detected by triage)', async () => {
    const recalled = await sealedRecord();
    const detail: TriageCompletedDetail = {
      ...triaged(recalled.record, SEALED_ENV),
      outcome: 'REFUSED',
      report: null,
      verification: { verdict: 'HASH_MISMATCH', firstFailure: { seq: 0, verdict: 'HASH_MISMATCH', reason: 'edited' } },
      refusalReason: 'chain verification failed',
      refusalCode: 'VERIFICATION_FAILED',
    };
    const result = recallResult({ detail, recalled: null, checkpoint: null, snapshot: SNAPSHOT });
    expect(result.isError).toBe(true);
    expect(structured(result)).toMatchObject({
      error: 'TAMPER_DETECTED',
      verdict: 'HASH_MISMATCH',
      firstFailure: { seq: 0 },
      detectedBy: 'triage',
    });
    expect(structured(result).action).toMatch(/do not act on this memory/);
  });

  it('a triaged report whose record does not verify here → TAMPER_DETECTED (detected by the client), no content', async () => {
    const { record } = await sealedRecord();
    const edited = cloneRecord(record);
    (edited.payload as { claims: Record<string, unknown> }).claims['node-builds'] = 'nothing went wrong';
    const verification = await verifyChain([edited], { lineageId: TEST_LINEAGE_ID, anchor: testAnchor() });
    const result = recallResult({
      detail: triaged(record, SEALED_ENV),
      recalled: { record: edited, verification },
      checkpoint: null,
      snapshot: SNAPSHOT,
    });
    expect(structured(result)).toMatchObject({ error: 'TAMPER_DETECTED', detectedBy: 'client' });
    expect(JSON.stringify(structured(result))).not.toContain('nothing went wrong');
  });

  it('NOT_FOUND → a NOT_FOUND tool error', async () => {
    const recalled = await sealedRecord();
    const detail: TriageCompletedDetail = {
      ...triaged(recalled.record, SEALED_ENV),
      outcome: 'REFUSED',
      seq: null,
      residualId: null,
      report: null,
      verification: null,
      refusalReason: 'no such record',
      refusalCode: 'NOT_FOUND',
    };
    expect(structured(recallResult({ detail, recalled: null, checkpoint: null, snapshot: SNAPSHOT }))).toMatchObject({
      error: 'NOT_FOUND',
    });
  });
});

describe('reseal_verify answers and thrown errors', () => {
  it('intact → the verified head; not intact → TAMPER_DETECTED with the first failure', async () => {
    const { records } = await buildChain(2);
    const intact = await verifyChain(records, { lineageId: TEST_LINEAGE_ID, anchor: testAnchor() });
    expect(structured(verifyResult(TEST_LINEAGE_ID, intact, null))).toMatchObject({
      verdict: 'VERIFIED_INTACT',
      records: 2,
      head: { seq: 1 },
    });
    const truncated = await verifyChain(records.slice(0, 1), {
      lineageId: TEST_LINEAGE_ID,
      anchor: testAnchor(),
      checkpoint: { seq: 1, recordHash: (records[1] as SealedRecord).recordHash },
    });
    const result = verifyResult(TEST_LINEAGE_ID, truncated, {
      seq: 1,
      recordHash: (records[1] as SealedRecord).recordHash,
    });
    expect(result.isError).toBe(true);
    expect(structured(result)).toMatchObject({ error: 'TAMPER_DETECTED', verdict: 'TRUNCATION_DETECTED' });
  });

  it.each([
    [new TimeoutError('the outcome of residual r-1', 500), 'TIMEOUT'],
    [new InvalidInputError('tool arguments', [{ path: 'env', message: 'no env' }]), 'INVALID_INPUT'],
    [new LineageNotFoundError('lin-x'), 'NOT_FOUND'],
    [new UnverifiedOutcomeError('lin-1', 'r-1', 3, 'HASH_MISMATCH', 'edited'), 'TAMPER_DETECTED'],
    [new Error('boom'), 'UNEXPECTED'],
  ])('%s → %s', (error, code) => {
    const result = errorResult(error, { lineageId: 'lin-1' });
    expect(result.isError).toBe(true);
    expect(structured(result).error).toBe(code);
    expect(typeof structured(result).action).toBe('string');
  });

  it('INVALID_INPUT lists every issue', () => {
    const error = new InvalidInputError('x', [
      { path: 'claims.a.causalKeys.0', message: 'causal key "tool:git" is not in env' },
      { path: 'structuralKeys.0', message: 'not in env' },
    ]);
    expect(structured(errorResult(error)).issues).toHaveLength(2);
  });
});
