import type { CallToolResult } from '@modelcontextprotocol/server';
import { type TimelineRow, timelineRows } from '../cli/format/timeline';
import { hintsFor } from '../cli/format/write-verdict';
import { RecallEnd, recallEnd } from '../cli/recall-exit';
import { StackOutputsError, TimeoutError, UnverifiedOutcomeError } from '../client/errors';
import type { WriteOutcome } from '../client/reseal-client';
import type { JsonValue } from '../shared/canonical/canonical-json';
import { InvalidInputError } from '../shared/errors';
import type { ResidualWriteRequest } from '../shared/guard/write-request';
import { type ConflictRecord, LineageNotFoundError, type RejectionRecord } from '../shared/ports/lineage-store';
import type { TriageCompletedDetail } from '../shared/schemas/messages';
import type { EnvSnapshot } from '../shared/schemas/primitives';
import type { ChainCheckpoint, ChainVerification } from '../shared/seal/chain-verification';
import type { SealedRecord } from '../shared/seal/sealed-record';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import type { DeltaIsolationReport, DeltaVerdict } from '../shared/triage/delta-isolator';
import {
  type InspectOutput,
  type RecallOutput,
  type SnapshotOutput,
  type ToolError,
  ToolErrorCode,
  type VerifyOutput,
  type WriteSealedOutput,
} from './tool-outputs';

/**
 * Every mapping from what the client returns to what an MCP tool answers (docs/mcp.md, "Tools"):
 * successes as `structuredContent` of the shapes in tool-outputs.ts, refusals and tamper
 * verdicts as tool errors (`isError: true`) whose `structuredContent` says what happened and what
 * to do. Each result also carries the same JSON as text, after a one-line summary, for clients
 * that only read `content`.
 */

/** The environment snapshot a write or recall used, and where it came from. */
export interface SnapshotUse {
  readonly source: SnapshotOutput['source'];
  readonly env: EnvSnapshot;
  readonly notes: readonly string[];
}

/** What the recall tool read and checked itself of the record a triage report names. */
export interface RecalledRecord {
  /** The record as stored (untrusted), or `null` when it could not be read. */
  readonly record: unknown;
  /** Its own verification (hash, link to its stated parent, MAC through the stack's key). */
  readonly verification: ChainVerification | null;
}

function result(summary: string, structured: Record<string, unknown>, isError = false): CallToolResult {
  return {
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: JSON.stringify(structured, null, 2) },
    ],
    structuredContent: structured,
    ...(isError ? { isError: true } : {}),
  };
}

/** A tool error: `{ error, message, action, …details }` as `structuredContent`, `isError: true`. */
export function toolError(
  error: ToolErrorCode,
  message: string,
  action: string,
  details: Record<string, unknown> = {},
): CallToolResult {
  const structured: ToolError = { error, message, action, ...details };
  return result(`${error}: ${message}\nwhat to do: ${action}`, structured, true);
}

const iso = (ms: number) => new Date(ms).toISOString();
const checkpointOf = (head: { seq: number; recordHash: string }): ChainCheckpoint => ({
  seq: head.seq,
  recordHash: head.recordHash,
});
const snapshotOutput = (snapshot: SnapshotUse): SnapshotOutput => ({
  source: snapshot.source,
  keys: Object.keys(snapshot.env).length,
  notes: [...snapshot.notes],
});

// --- reseal_write ---

/** What the agent can do about one rejected variable, by the guard's reason (docs/guard.md). */
const VARIABLE_ACTIONS: Readonly<Record<string, string>> = {
  UNVERIFIED_INHERITED:
    'probe the value again in this session, then pass it with freshness VERIFIED_INHERITED and reprobe: { probe: "<what you checked>" }',
  MISSING_RECEIPT: 'add reprobe: { probe: "<what you checked>" } (or a receipt) to this VERIFIED_INHERITED variable',
  RECEIPT_PROBE_UNNAMED: 'name the probe that re-verified the value (reprobe.probe must not be blank)',
  RECEIPT_VALUE_MISMATCH: 'the probe saw another value: write the value the probe observed, or probe again',
  RECEIPT_WRONG_SESSION: 'probe again in the active session (the receipt must name this write sessionId)',
  RECEIPT_BEFORE_BOUNDARY: 'probe again now: the probe must run after the session boundary (boundaryAtMs)',
  RECEIPT_FROM_FUTURE: "probe again and stamp the receipt with this machine's clock",
  RECEIPT_EXPIRED: 'the probe is too old: probe again and write right away',
  UNDECLARED_IMMUTABLE_CONSTANT: 'declare the name in declaredImmutableConstants, or probe it as an inherited value',
  EPOCH_COLLAPSE: "a FRESH_GENERATED value carries this write's generationEpoch as its sourceEpoch",
  INHERITED_EPOCH_NOT_PAST: "an inherited value's sourceEpoch must be below this write's generationEpoch",
  INHERITED_EPOCH_AFTER_PREDECESSOR: "an inherited value's sourceEpoch must be at most predecessor.epoch",
  INHERITED_WITHOUT_PREDECESSOR: 'name the predecessor session and epoch, or drop the inherited values (cold start)',
};

/** What to do about a whole rejected write, by the pipeline's reason (docs/pipeline.md). */
const REJECTION_ACTIONS: Readonly<Record<string, string>> = {
  STALE_STATE: 're-probe the rejected variables (see rejectedVariables[].action), then call reseal_write again',
  RESIDUAL_ID_REUSED:
    'this residual id is already sealed in the lineage with other content: write under a new residualId (omit it to get one generated)',
  SCHEMA_VIOLATION: 'fix the fields named in issues, then write again',
  PAYLOAD_TOO_LARGE: 'shrink the payload and claims (at most 256 KiB of canonical JSON), then write again',
  SEAL_REFUSED: 'the record header could not be sealed (see issues): shorten the ids, then write again',
  VERDICT_MISMATCH: "the sealer did not get the guard's verdict: call reseal_write again",
  ACCEPTANCE_TIME_INVALID: 'call reseal_write again',
};

/** What to do about a conflict, by its reason. */
const CONFLICT_ACTIONS: Readonly<Record<string, string>> = {
  STALE_EPOCH:
    'fenced out: a newer generation owns this lineage; do not retry with this generationEpoch (recall the lineage first)',
  LOST_RACE: 'the head kept moving: call reseal_write again with the same arguments',
  LINEAGE_INCONSISTENT:
    "the lineage's stored head disagrees with its records: call reseal_verify; writing again cannot help",
};

function rejectionDetails(r: RejectionRecord) {
  return {
    stage: r.stage,
    reason: r.reason,
    lineageId: r.lineageId,
    residualId: r.residualId,
    rejectedAt: iso(r.atMs),
    rejectedVariables: r.rejectedVariables.map((v) => ({
      name: v.name,
      reason: v.reason,
      detail: v.detail,
      action: VARIABLE_ACTIONS[v.reason] ?? 'see docs/guard.md for this reason',
    })),
    requestViolations: r.requestViolations.map((v) => ({ field: v.field, reason: v.reason, detail: v.detail })),
    issues: r.issues.map((i) => ({ path: i.path, message: i.message })),
  };
}

/**
 * The answer of `reseal_write` for the outcome of its write: `SEALED` → the checkpoint and the
 * record's place; `REJECTED` → a `WRITE_REJECTED` tool error with each reason and what to do;
 * `CONFLICT` → a `WRITE_CONFLICT` tool error.
 */
export function writeOutcomeResult(
  request: ResidualWriteRequest,
  outcome: WriteOutcome,
  snapshot: SnapshotUse,
): CallToolResult {
  switch (outcome.kind) {
    case 'SEALED': {
      const { head } = outcome;
      const sealed: WriteSealedOutput = {
        outcome: 'SEALED',
        lineageId: request.lineageId,
        residualId: request.residualId,
        seq: head.seq,
        recordHash: head.recordHash,
        generationEpoch: head.generationEpoch,
        checkpoint: checkpointOf(head),
        supersedes: request.supersedes ? checkpointOf(request.supersedes) : null,
        claims: Object.keys(request.manifest.claimDependencyMap).sort(),
        snapshot: snapshotOutput(snapshot),
      };
      return result(
        `SEALED ${request.residualId} as seq ${head.seq} of ${request.lineageId} (checkpoint ${head.seq}:${head.recordHash})`,
        sealed,
      );
    }
    case 'REJECTED': {
      const r = outcome.rejection;
      const hints = r.reason === 'STALE_STATE' ? hintsFor({ isSafe: false, ...r }) : [];
      const action = [REJECTION_ACTIONS[r.reason] ?? 'see docs/pipeline.md for this reason', ...hints].join('; ');
      return toolError(
        ToolErrorCode.WRITE_REJECTED,
        `the ${r.stage === 'GUARD' ? 'guard' : 'sealer'} refused ${request.residualId}: ${r.reason}`,
        action,
        rejectionDetails(r),
      );
    }
    case 'CONFLICT': {
      const c = outcome.conflict;
      return toolError(
        ToolErrorCode.WRITE_CONFLICT,
        `${request.residualId} was not appended to ${request.lineageId}: ${c.reason}: ${c.detail}`,
        CONFLICT_ACTIONS[c.reason] ?? 'call reseal_verify before writing again',
        {
          reason: c.reason,
          detail: c.detail,
          lineageId: c.lineageId,
          residualId: c.residualId,
          observedHead: c.observedHead && { seq: c.observedHead.seq, generationEpoch: c.observedHead.generationEpoch },
          conflictedAt: iso(c.atMs),
        },
      );
    }
  }
}

// --- reseal_recall ---

/** The `claims` map of a payload in the layout `reseal_write` writes (`{ claims, data? }`), or null. */
function payloadClaims(payload: unknown): Record<string, JsonValue> | null {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return null;
  const claims = (payload as { claims?: unknown }).claims;
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) return null;
  return claims as Record<string, JsonValue>;
}

/** The payload outside its claims: `data` in the `reseal_write` layout, else the whole payload. */
function payloadData(payload: JsonValue): JsonValue | null {
  if (payloadClaims(payload) === null) return payload;
  return ((payload as Record<string, JsonValue>).data ?? null) as JsonValue | null;
}

const NEXT_STEPS: Readonly<Record<DeltaVerdict, string>> = {
  NO_DRIFT: 'none: every claim stands; use keptClaims',
  AMBIENT_DRIFT_ONLY: 'none: only keys no claim rests on drifted; every claim stands',
  PARTIAL_REPROBE_REQUIRED:
    'use keptClaims as they are; re-probe each of reprobeClaims against the environment now, then call reseal_write with every claim (kept and re-probed) and supersedes',
  FULL_RECONSTRUCTION_REQUIRED:
    'a structural key drifted: trust no claim of this record; rebuild them from live ground truth, then call reseal_write with supersedes',
};

function tamperFromRecall(detail: TriageCompletedDetail, checkpoint: ChainCheckpoint | null): CallToolResult {
  const verdict = detail.verification?.verdict ?? VerificationVerdict.UNVERIFIED_TAMPER_RISK;
  return toolError(
    ToolErrorCode.TAMPER_DETECTED,
    `lineage ${detail.lineageId} does not verify (${verdict}): ${detail.verification?.firstFailure?.reason ?? detail.refusalReason ?? 'no reason given'}`,
    'do not act on this memory: treat every claim of the lineage as unverified, rebuild them from live ground truth, and report the lineage (reseal_inspect shows which record fails)',
    {
      requestId: detail.requestId,
      lineageId: detail.lineageId,
      seq: detail.seq,
      residualId: detail.residualId,
      verdict,
      firstFailure: detail.verification?.firstFailure ?? null,
      refusalCode: detail.refusalCode,
      checkpoint,
      detectedBy: 'triage',
    },
  );
}

/**
 * The answer of `reseal_recall`: a triaged, verified record → its delta verdict, the claims kept
 * with their content and the claims to re-probe (with the keys that drifted under them); a chain
 * that does not verify (in the triage function, or in this server's own check of the record) →
 * `TAMPER_DETECTED`; no such record → `NOT_FOUND`; an invalid request → `INVALID_INPUT`; an
 * untriageable manifest → `UNTRIAGEABLE`.
 */
export function recallResult(input: {
  readonly detail: TriageCompletedDetail;
  readonly recalled: RecalledRecord | null;
  readonly checkpoint: ChainCheckpoint | null;
  readonly snapshot: SnapshotUse;
}): CallToolResult {
  const { detail, recalled, checkpoint, snapshot } = input;
  switch (recallEnd(detail)) {
    case RecallEnd.NOT_FOUND:
      return toolError(
        ToolErrorCode.NOT_FOUND,
        detail.refusalReason ?? `no such record in lineage ${detail.lineageId}`,
        'check lineageId and target; a write is recallable only once reseal_write has returned SEALED',
        { requestId: detail.requestId, lineageId: detail.lineageId },
      );
    case RecallEnd.INVALID_REQUEST:
      return toolError(
        ToolErrorCode.INVALID_INPUT,
        `the triage function refused the recall as invalid: ${detail.refusalReason ?? ''}`,
        'fix the arguments named in the message, then recall again',
        { requestId: detail.requestId, lineageId: detail.lineageId, issues: [] },
      );
    case RecallEnd.UNTRIAGEABLE:
      return toolError(
        ToolErrorCode.UNTRIAGEABLE,
        `record seq ${detail.seq} of ${detail.lineageId} verified but cannot be triaged: ${detail.refusalReason ?? ''}`,
        'rebuild this memory from live ground truth and write it again (supersedes the record)',
        { requestId: detail.requestId, lineageId: detail.lineageId, seq: detail.seq, residualId: detail.residualId },
      );
    case RecallEnd.NOT_INTACT:
      return tamperFromRecall(detail, checkpoint);
    case RecallEnd.TRIAGED:
      break;
  }
  const report = detail.report as DeltaIsolationReport;
  const record = recalled?.record as SealedRecord | null | undefined;
  const own = recalled?.verification;
  const matches =
    record?.header?.residualId === detail.residualId && record?.header?.monotonicSequenceNumber === detail.seq;
  if (!record || own?.verdict !== VerificationVerdict.VERIFIED_INTACT || !matches) {
    const verdict = own && own.verdict !== VerificationVerdict.VERIFIED_INTACT ? own.verdict : 'LINEAGE_BROKEN';
    const reason = !record
      ? 'the record the triage report names cannot be read'
      : (own?.firstFailure?.reason ??
        (matches ? 'not verified' : `the table holds another record at seq ${detail.seq}`));
    return toolError(
      ToolErrorCode.TAMPER_DETECTED,
      `record seq ${detail.seq} of ${detail.lineageId} does not verify here (${verdict}): ${reason}`,
      'do not act on this memory: the triage report and the stored record disagree; rebuild the claims from live ground truth and report the lineage',
      {
        requestId: detail.requestId,
        lineageId: detail.lineageId,
        seq: detail.seq,
        residualId: detail.residualId,
        verdict,
        firstFailure: own?.firstFailure ?? null,
        checkpoint,
        detectedBy: 'client',
      },
    );
  }
  const claimKeys = record.manifest.claimDependencyMap;
  const contents = payloadClaims(record.payload);
  const contentOf = (claimId: string): JsonValue | null =>
    contents && Object.hasOwn(contents, claimId) ? (contents[claimId] as JsonValue) : null;
  const drifted = new Set([
    ...report.driftedKeys.changed,
    ...report.driftedKeys.vanished,
    ...report.driftedKeys.appeared,
  ]);
  const recall: RecallOutput = {
    outcome: 'TRIAGED',
    requestId: detail.requestId,
    lineageId: detail.lineageId,
    seq: record.header.monotonicSequenceNumber,
    residualId: record.header.residualId,
    recordHash: record.recordHash,
    sealedAt: iso(record.sealedAtMs),
    verification: { verdict: VerificationVerdict.VERIFIED_INTACT, checkpoint },
    delta: {
      verdict: report.verdict,
      sealIntact: report.sealIntact,
      changed: report.driftedKeys.changed,
      vanished: report.driftedKeys.vanished,
      appeared: report.driftedKeys.appeared,
      structuralDrift: report.structuralDrift,
      unattributedKeys: report.unattributedKeys,
      reason: report.reason,
    },
    keptClaims: report.retainedClaims.map((claimId) => ({
      claimId,
      causalKeys: claimKeys[claimId] ?? [],
      content: contentOf(claimId),
    })),
    reprobeClaims: report.invalidatedClaims.map((claimId) => ({
      claimId,
      causalKeys: claimKeys[claimId] ?? [],
      driftedKeys: (claimKeys[claimId] ?? []).filter((key) => drifted.has(key)),
      previousContent: contentOf(claimId),
    })),
    data: payloadData(record.payload),
    nextStep: NEXT_STEPS[report.verdict],
    supersedes: { seq: record.header.monotonicSequenceNumber, recordHash: record.recordHash },
    snapshot: snapshotOutput(snapshot),
  };
  return result(
    `${report.verdict}: seq ${recall.seq} of ${recall.lineageId}, ${recall.keptClaims.length} claim(s) kept, ${recall.reprobeClaims.length} to re-probe`,
    recall,
  );
}

// --- reseal_verify and reseal_inspect ---

function tamperFromVerification(
  lineageId: string,
  verification: ChainVerification,
  checkpoint: ChainCheckpoint | null,
  details: Record<string, unknown> = {},
): CallToolResult {
  return toolError(
    ToolErrorCode.TAMPER_DETECTED,
    `lineage ${lineageId} does not verify (${verification.verdict}): ${verification.firstFailure?.reason ?? 'no reason given'}`,
    verification.verdict === VerificationVerdict.UNVERIFIED_TAMPER_RISK
      ? 'the MACs could not be checked (KMS unreachable or another key): treat the lineage as unverified until it verifies'
      : 'do not act on this memory: treat every claim of the lineage as unverified, rebuild them from live ground truth, and report the lineage',
    { lineageId, verdict: verification.verdict, firstFailure: verification.firstFailure, checkpoint, ...details },
  );
}

/** The answer of `reseal_verify`: intact → the verified head; anything else → `TAMPER_DETECTED`. */
export function verifyResult(
  lineageId: string,
  verification: ChainVerification,
  checkpoint: ChainCheckpoint | null,
): CallToolResult {
  if (verification.verdict !== VerificationVerdict.VERIFIED_INTACT) {
    return tamperFromVerification(lineageId, verification, checkpoint);
  }
  const verified: VerifyOutput = {
    lineageId,
    verdict: VerificationVerdict.VERIFIED_INTACT,
    records: verification.records.length,
    head: verification.head && checkpointOf(verification.head),
    checkpoint,
  };
  const at = verification.head ? ` through seq ${verification.head.seq}` : '';
  return result(`VERIFIED_INTACT: ${lineageId}, ${verified.records} record(s)${at}`, verified);
}

function timelineRecord(r: TimelineRow) {
  return {
    seq: r.seq,
    generationEpoch: r.generationEpoch,
    authority: r.authority,
    sessionId: r.sessionId,
    residualId: r.residualId,
    sealedAt: r.sealedAtMs === null ? null : iso(r.sealedAtMs),
    supersedes: r.supersedes,
    verification: r.verification,
  };
}

/**
 * The answer of `reseal_inspect`: the timeline (each record with its own verdict), then the
 * lineage's rejected and conflicting writes; a chain that is not intact is a `TAMPER_DETECTED`
 * tool error carrying the same timeline.
 */
export function inspectResult(
  lineageId: string,
  records: readonly unknown[],
  verification: ChainVerification,
  refusals: { readonly rejections: readonly RejectionRecord[]; readonly conflicts: readonly ConflictRecord[] },
  checkpoint: ChainCheckpoint | null,
): CallToolResult {
  const timeline: InspectOutput = {
    lineageId,
    verdict: verification.verdict,
    firstFailure: verification.firstFailure,
    records: timelineRows(records, verification).map(timelineRecord),
    rejections: refusals.rejections.map((r) => {
      const { lineageId: _lineage, ...details } = rejectionDetails(r);
      return details;
    }),
    conflicts: refusals.conflicts.map((c) => ({
      reason: c.reason,
      detail: c.detail,
      residualId: c.residualId,
      conflictedAt: iso(c.atMs),
    })),
  };
  if (verification.verdict !== VerificationVerdict.VERIFIED_INTACT) {
    return tamperFromVerification(lineageId, verification, checkpoint, { ...timeline });
  }
  return result(
    `${lineageId}: ${timeline.records.length} record(s), VERIFIED_INTACT; ${timeline.rejections.length} rejection(s), ${timeline.conflicts.length} conflict(s)`,
    timeline,
  );
}

// --- errors thrown by the client ---

/**
 * A tool error for what a tool's operation threw: invalid arguments (`INVALID_INPUT` with each
 * issue), an unknown lineage (`NOT_FOUND`), a wait that ran out (`TIMEOUT`), a sealed record that
 * does not verify (`TAMPER_DETECTED`), an unreachable stack (`UNAVAILABLE`), anything else
 * (`UNEXPECTED`).
 */
export function errorResult(
  error: unknown,
  context: { readonly lineageId?: string; readonly residualId?: string; readonly snapshotNotes?: string[] } = {},
): CallToolResult {
  if (error instanceof UnverifiedOutcomeError) {
    return toolError(
      ToolErrorCode.TAMPER_DETECTED,
      error.message,
      'keep no checkpoint from this write: the record marked as its seal does not verify; call reseal_inspect and report the lineage',
      {
        lineageId: error.lineageId,
        residualId: error.residualId,
        seq: error.seq,
        verdict: error.verdict,
        firstFailure: { seq: error.seq, verdict: error.verdict, reason: error.reason },
        detectedBy: 'client',
      },
    );
  }
  if (error instanceof TimeoutError) {
    return toolError(
      ToolErrorCode.TIMEOUT,
      error.message,
      'the pipeline may still complete: call reseal_inspect on the lineage, or repeat the call with a longer timeoutMs (the same write is idempotent under its residualId)',
      { waitedFor: error.waitedFor, timeoutMs: error.timeoutMs, ...context },
    );
  }
  if (error instanceof LineageNotFoundError) {
    return toolError(
      ToolErrorCode.NOT_FOUND,
      error.message,
      'check lineageId; a lineage exists once its first write is sealed',
      { ...context },
    );
  }
  if (error instanceof InvalidInputError) {
    return toolError(ToolErrorCode.INVALID_INPUT, error.message, 'fix the fields named in issues, then call again', {
      issues: error.issues.map((i) => ({ path: i.path, message: i.message })),
      ...context,
    });
  }
  if (error instanceof StackOutputsError) {
    return toolError(
      ToolErrorCode.UNAVAILABLE,
      error.message,
      'the Reseal stack cannot be found: check the server configuration (RESEAL_STACK, RESEAL_STACK_OUTPUTS, region, endpoint)',
      { ...context },
    );
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return toolError(ToolErrorCode.UNEXPECTED, message, 'retry later; if it persists, report it with the message', {
    ...context,
  });
}
