import type { CallToolResult } from '@modelcontextprotocol/server';
import {
  CheckpointFileError,
  LogVerificationError,
  StackOutputsError,
  TimeoutError,
  UnverifiedOutcomeError,
} from '../client/errors';
import type { LatestCheckpoint } from '../client/log-reader';
import { staleStateHints } from '../client/stale-state-hints';
import { type TimelineRow, timelineRows } from '../client/timeline-rows';
import { RecallEnd, type VerifiedRecall } from '../client/verified-recall';
import type { Signed, WriteOutcome } from '../client/write-outcomes';
import type { JsonValue } from '../shared/canonical/canonical-json';
import { InvalidInputError, LineageNotFoundError } from '../shared/errors';
import { type Checkpoint, parseCheckpointBody } from '../shared/log/checkpoint';
import { parseSignedNote } from '../shared/log/signed-note';
import type { ConflictRecord, RejectionRecord } from '../shared/ports/lineage-store';
import { normalFormOf } from '../shared/schemas/normal-form';
import type { EnvSnapshot } from '../shared/schemas/primitives';
import type { ChainCheckpoint, ChainVerification } from '../shared/seal/chain-verification';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import type { DeltaVerdict } from '../shared/triage/delta-isolator';
import type { ResidualWriteRequest } from '../shared/write/write-request';
import { StackUnavailableError } from './stack-unavailable';
import {
  type HeadOutput,
  type InspectOutput,
  type RecallOutput,
  type SignedCheckpointOutput,
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

/** Why the signed log does not verify: the client's verdict and its reason (e.g. a rollback, a fork). */
export interface LogFailure {
  readonly verdict: VerificationVerdict;
  readonly reason: string;
}

/**
 * What the server learnt of a lineage's signed log before a walk (`reseal_verify`,
 * `reseal_inspect`): the latest signed checkpoint (verified, consistent with the kept one:
 * docs/verifiable-log.md, "Checkpoints the client keeps"), the head of its last record (proven
 * by inclusion), or why the log does not verify.
 */
export interface LogCheck {
  readonly latest: LatestCheckpoint | null;
  /** The last record of `latest`, proven by inclusion; `null` when not needed or not proven. */
  readonly signedHead: ChainCheckpoint | null;
  /** Why the signed log does not verify (rollback, fork, forged note, unprovable record), or `null`. */
  readonly failure: LogFailure | null;
  /** The log's verifier key, C2SP vkey. */
  readonly logKey: string;
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
function toolError(
  error: ToolErrorCode,
  message: string,
  action: string,
  details: Record<string, unknown> = {},
): CallToolResult {
  const structured: ToolError = { error, message, action, ...details };
  return result(`${error}: ${message}\nwhat to do: ${action}`, structured, true);
}

const iso = (ms: number) => new Date(ms).toISOString();
const headOf = (head: { seq: number; recordHash: string }): HeadOutput => ({
  seq: head.seq,
  recordHash: head.recordHash,
});

/** A checkpoint and its signed note as a tool answers them (root hash in hex). */
function signedCheckpointOutput(checkpoint: Checkpoint & { readonly note: string }): SignedCheckpointOutput {
  return {
    note: checkpoint.note,
    origin: checkpoint.origin,
    size: checkpoint.size,
    rootHash: Buffer.from(checkpoint.rootHash).toString('hex'),
  };
}

/** The fields of a signed checkpoint note the client already verified (its body, read again). */
function noteCheckpointOutput(note: string): SignedCheckpointOutput {
  return signedCheckpointOutput({ ...parseCheckpointBody(parseSignedNote(note).text), note });
}
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
 * The answer of `reseal_write` for the proven outcome of its write: `SEALED` → the record's
 * place, the signed checkpoint and its inclusion proof; `REJECTED` (signed by the guard or the
 * sealer) → a `WRITE_REJECTED` tool error with each reason and what to do; `CONFLICT` (signed by
 * the sealer) → a `WRITE_CONFLICT` tool error.
 */
export function writeOutcomeResult(
  request: ResidualWriteRequest,
  outcome: WriteOutcome,
  snapshot: SnapshotUse,
): CallToolResult {
  switch (outcome.kind) {
    case 'SEALED': {
      const { head, proof } = outcome;
      const checkpoint = noteCheckpointOutput(outcome.checkpoint);
      const sealed: WriteSealedOutput = {
        outcome: 'SEALED',
        lineageId: request.lineageId,
        residualId: request.residualId,
        seq: head.seq,
        recordHash: head.recordHash,
        generationEpoch: head.generationEpoch,
        checkpoint,
        proof: { leafIndex: proof.leafIndex, treeSize: proof.treeSize, inclusionProof: [...proof.inclusionProof] },
        supersedes: request.supersedes ? headOf(request.supersedes) : null,
        claims: Object.keys(request.manifest.claimDependencyMap).sort(),
        snapshot: snapshotOutput(snapshot),
      };
      return result(
        `SEALED ${request.residualId} as seq ${head.seq} of ${request.lineageId}, proven in the signed checkpoint of ${checkpoint.size} records`,
        sealed,
      );
    }
    case 'REJECTED': {
      const r = outcome.rejection;
      const hints = r.reason === 'STALE_STATE' ? staleStateHints({ isSafe: false, ...r }) : [];
      const action = [REJECTION_ACTIONS[r.reason] ?? 'see docs/pipeline.md for this reason', ...hints].join('; ');
      return toolError(
        ToolErrorCode.WRITE_REJECTED,
        `the ${r.stage === 'GUARD' ? 'guard' : 'sealer'} refused ${request.residualId}: ${r.reason}`,
        action,
        { ...rejectionDetails(r), statement: r.statement },
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
          statement: c.statement,
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

const TAMPER_ACTION =
  'do not act on this memory: treat every claim of the lineage as unverified, rebuild them from live ground truth, and report the lineage (reseal_inspect shows which record fails)';

/** A recall the client could not prove (`NOT_INTACT`): `TAMPER_DETECTED`, nothing of the record's content. */
function tamperFromRecall(recall: VerifiedRecall): CallToolResult {
  const verdict = recall.verdict ?? VerificationVerdict.UNVERIFIED_TAMPER_RISK;
  const seq =
    recall.record?.header.monotonicSequenceNumber ??
    recall.report.verification?.firstFailure?.seq ??
    recall.report.seq ??
    null;
  return toolError(
    ToolErrorCode.TAMPER_DETECTED,
    `lineage ${recall.lineageId} does not verify (${verdict}): ${recall.reason}`,
    verdict === VerificationVerdict.UNVERIFIED_TAMPER_RISK
      ? `${TAMPER_ACTION}; the answer could not be proven with the log's public key, which is not proof of tampering but is not to be trusted`
      : TAMPER_ACTION,
    {
      requestId: recall.requestId,
      lineageId: recall.lineageId,
      seq,
      residualId: recall.record?.header.residualId ?? recall.report.residualId,
      verdict,
      firstFailure: { seq, verdict, reason: recall.reason },
      refusalCode: recall.report.refusalCode,
      checkpointSize: recall.checks.checkpointSize,
      newestCheckpointSize: recall.checks.newestSize,
      truncationChecked: recall.truncationChecked,
      detectedBy: recall.detectedBy ?? 'client',
    },
  );
}

/** The caller's `{ seq, recordHash }` the client checked the recall against, if given. */
function callerHead(recall: VerifiedRecall): HeadOutput | null {
  for (const reference of recall.checks.truncationCheckedAgainst) {
    if (reference.kind === 'GIVEN_HEAD') return headOf(reference);
  }
  return null;
}

/**
 * The answer of `reseal_recall`, rendered from the recall as the server's client decided it
 * (`client.recall`, client/verified-recall.ts: the record proven in a signed checkpoint no older
 * than the newest one the client read, consistent with the kept one and with the caller's
 * `checkpoint`, and the delta recomputed from it; the stored report is never used as is):
 * - `TRIAGED` → the delta verdict, the claims kept with their content (from the proven record's
 *   payload) and the claims to re-probe (with the keys that drifted under them);
 * - `NOT_INTACT` → `TAMPER_DETECTED`;
 * - `NOT_FOUND` → `NOT_FOUND` (unproven: the signed log does not contradict it);
 * - `INVALID_REQUEST` → `INVALID_INPUT`;
 * - `UNTRIAGEABLE` → `UNTRIAGEABLE`.
 */
export function recallResult(input: {
  readonly recall: VerifiedRecall;
  readonly snapshot: SnapshotUse;
}): CallToolResult {
  const { recall, snapshot } = input;
  const { record, checkpoint, inclusion, delta } = recall;
  switch (recall.end) {
    case RecallEnd.NOT_FOUND:
      return toolError(
        ToolErrorCode.NOT_FOUND,
        recall.refusal?.reason || `no such record in lineage ${recall.lineageId}`,
        'check lineageId and target; a write is recallable only once reseal_write has returned SEALED',
        { requestId: recall.requestId, lineageId: recall.lineageId, proven: false },
      );
    case RecallEnd.INVALID_REQUEST:
      return toolError(
        ToolErrorCode.INVALID_INPUT,
        recall.refusal?.reason || recall.reason,
        'fix the arguments, then call again',
        { requestId: recall.requestId, lineageId: recall.lineageId, proven: false },
      );
    case RecallEnd.UNTRIAGEABLE: {
      const seq = record?.header.monotonicSequenceNumber ?? null;
      return toolError(
        ToolErrorCode.UNTRIAGEABLE,
        `record seq ${seq} of ${recall.lineageId} verified but cannot be triaged: ${recall.refusal?.reason ?? recall.reason}`,
        'rebuild this memory from live ground truth and write it again (supersedes the record)',
        {
          requestId: recall.requestId,
          lineageId: recall.lineageId,
          seq,
          residualId: record?.header.residualId ?? null,
          supersedes: record ? { seq: record.header.monotonicSequenceNumber, recordHash: record.recordHash } : null,
        },
      );
    }
    case RecallEnd.NOT_INTACT:
      return tamperFromRecall(recall);
    case RecallEnd.TRIAGED:
      break;
  }
  if (!record || !checkpoint || !inclusion || !delta) return tamperFromRecall(recall);
  const recordHead: HeadOutput = { seq: record.header.monotonicSequenceNumber, recordHash: record.recordHash };
  const claimKeys = record.manifest.claimDependencyMap;
  const contents = payloadClaims(record.payload);
  const contentOf = (claimId: string): JsonValue | null =>
    contents && Object.hasOwn(contents, claimId) ? (contents[claimId] as JsonValue) : null;
  // By normal form: a key declared absent that appeared in its other Unicode form drifts the claims
  // resting on the absence (docs/triage.md, "Keys declared absent"), so they name it too.
  const drifted = new Set(
    [...delta.driftedKeys.changed, ...delta.driftedKeys.vanished, ...delta.driftedKeys.appeared].map(normalFormOf),
  );
  const out: RecallOutput = {
    outcome: 'TRIAGED',
    requestId: recall.requestId,
    lineageId: recall.lineageId,
    seq: recordHead.seq,
    residualId: record.header.residualId,
    recordHash: recordHead.recordHash,
    sealedAt: iso(record.sealedAtMs),
    verification: {
      verdict: VerificationVerdict.VERIFIED_INTACT,
      checkpointSize: checkpoint.size,
      truncationChecked: recall.truncationChecked,
      checkpoint: signedCheckpointOutput(checkpoint),
      proof: {
        leafIndex: inclusion.leafIndex,
        treeSize: inclusion.treeSize,
        inclusionProof: [...inclusion.inclusionProof],
      },
      callerCheckpoint: callerHead(recall),
    },
    delta: {
      verdict: delta.verdict,
      sealIntact: delta.sealIntact,
      changed: delta.driftedKeys.changed,
      vanished: delta.driftedKeys.vanished,
      appeared: delta.driftedKeys.appeared,
      structuralDrift: delta.structuralDrift,
      unattributedKeys: delta.unattributedKeys,
      reason: delta.reason,
    },
    keptClaims: delta.retainedClaims.map((claimId) => ({
      claimId,
      causalKeys: claimKeys[claimId] ?? [],
      content: contentOf(claimId),
    })),
    reprobeClaims: delta.invalidatedClaims.map((claimId) => ({
      claimId,
      causalKeys: claimKeys[claimId] ?? [],
      driftedKeys: (claimKeys[claimId] ?? []).filter((key) => drifted.has(normalFormOf(key))),
      previousContent: contentOf(claimId),
    })),
    data: payloadData(record.payload),
    nextStep: NEXT_STEPS[delta.verdict],
    supersedes: recordHead,
    snapshot: snapshotOutput(snapshot),
  };
  return result(
    `${delta.verdict}: seq ${out.seq} of ${out.lineageId}, ${out.keptClaims.length} claim(s) kept, ${out.reprobeClaims.length} to re-probe; proven in the signed checkpoint of ${checkpoint.size} records (truncation ${out.verification.truncationChecked ? 'checked' : 'NOT checked: no kept checkpoint'})`,
    out,
  );
}

// --- reseal_verify and reseal_inspect ---

/** Where the walk's tail check came from (`tailCheckedAgainst.source` of the answer). */
export type TailSource = NonNullable<VerifyOutput['tailCheckedAgainst']>['source'];

/** The head a walk checks the stored tail against: the caller's, else the signed log's last record. */
export function tailCheckpoint(
  caller: ChainCheckpoint | undefined,
  log: LogCheck,
): { readonly head: ChainCheckpoint; readonly source: TailSource } | null {
  if (caller) return { head: caller, source: 'caller' };
  return log.signedHead ? { head: log.signedHead, source: 'signed-checkpoint' } : null;
}

function logFields(log: LogCheck, caller: ChainCheckpoint | undefined) {
  const tail = tailCheckpoint(caller, log);
  const trustedCheckpointSize = log.latest?.trusted?.size ?? null;
  return {
    checkpoint: log.latest ? signedCheckpointOutput(log.latest.checkpoint) : null,
    trustedCheckpointSize,
    tailCheckedAgainst: tail ? { ...headOf(tail.head), source: tail.source } : null,
    truncationChecked: caller !== undefined || trustedCheckpointSize !== null,
    logKey: log.logKey,
  };
}

/**
 * The verdict of a walk and of the signed log together: the walk's first failure wins (it names
 * a record); else the signed log's failure; else intact.
 */
function overall(verification: ChainVerification, log: LogCheck) {
  if (verification.verdict !== VerificationVerdict.VERIFIED_INTACT) {
    return { verdict: verification.verdict, firstFailure: verification.firstFailure, detectedBy: 'walk' as const };
  }
  if (log.failure) {
    return {
      verdict: log.failure.verdict,
      firstFailure: { seq: null, verdict: log.failure.verdict, reason: `signed log: ${log.failure.reason}` },
      detectedBy: 'log' as const,
    };
  }
  return { verdict: VerificationVerdict.VERIFIED_INTACT, firstFailure: null, detectedBy: null };
}

function tamperFromVerification(
  lineageId: string,
  found: ReturnType<typeof overall>,
  details: Record<string, unknown>,
): CallToolResult {
  return toolError(
    ToolErrorCode.TAMPER_DETECTED,
    `lineage ${lineageId} does not verify (${found.verdict}): ${found.firstFailure?.reason ?? 'no reason given'}`,
    found.verdict === VerificationVerdict.UNVERIFIED_TAMPER_RISK
      ? 'the MACs or the signed log could not be checked (KMS unreachable or another key): treat the lineage as unverified until it verifies'
      : 'do not act on this memory: treat every claim of the lineage as unverified, rebuild them from live ground truth, and report the lineage',
    { lineageId, verdict: found.verdict, firstFailure: found.firstFailure, detectedBy: found.detectedBy, ...details },
  );
}

/**
 * The answer of `reseal_verify`: the walk (every hash, link and MAC, the stored head, the tail
 * against `tailCheckedAgainst`) and the signed log (latest checkpoint consistent with the kept
 * one) both intact → the verified head and the signed checkpoint; anything else → `TAMPER_DETECTED`.
 */
export function verifyResult(
  lineageId: string,
  verification: ChainVerification,
  log: LogCheck,
  caller?: ChainCheckpoint,
): CallToolResult {
  const fields = logFields(log, caller);
  const found = overall(verification, log);
  if (found.verdict !== VerificationVerdict.VERIFIED_INTACT) {
    return tamperFromVerification(lineageId, found, { ...fields, logFailure: log.failure });
  }
  const verified: VerifyOutput = {
    lineageId,
    verdict: VerificationVerdict.VERIFIED_INTACT,
    records: verification.records.length,
    head: verification.head && headOf(verification.head),
    ...fields,
  };
  const at = verification.head ? ` through seq ${verification.head.seq}` : '';
  const signed = fields.checkpoint ? `; signed checkpoint of ${fields.checkpoint.size} records` : '';
  return result(
    `VERIFIED_INTACT: ${lineageId}, ${verified.records} record(s)${at}${signed}; truncation ${fields.truncationChecked ? 'checked' : 'NOT checked: no kept checkpoint'}`,
    verified,
  );
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
 * The answer of `reseal_inspect`: the timeline (each record with its own verdict), the lineage's
 * rejected and conflicting writes (as stored: diagnostic), each with whether its signed statement
 * checks (`signatureVerified`: an unsigned or edited item may be a forgery), and the signed log's checkpoint; a
 * chain or log that is not intact is a `TAMPER_DETECTED` tool error carrying the same timeline.
 */
export function inspectResult(
  lineageId: string,
  records: readonly unknown[],
  verification: ChainVerification,
  refusals: {
    readonly rejections: readonly (RejectionRecord & Signed)[];
    readonly conflicts: readonly (ConflictRecord & Signed)[];
  },
  log: LogCheck,
  caller?: ChainCheckpoint,
): CallToolResult {
  const found = overall(verification, log);
  const timeline: InspectOutput = {
    lineageId,
    verdict: found.verdict,
    firstFailure: found.firstFailure,
    records: timelineRows(records, verification).map(timelineRecord),
    rejections: refusals.rejections.map((r) => {
      const { lineageId: _lineage, ...details } = rejectionDetails(r);
      return { ...details, signatureVerified: r.signatureVerified && !r.unreadable, unreadable: r.unreadable ?? null };
    }),
    conflicts: refusals.conflicts.map((c) => ({
      reason: c.reason,
      detail: c.detail,
      residualId: c.residualId,
      conflictedAt: iso(c.atMs),
      signatureVerified: c.signatureVerified && !c.unreadable,
      unreadable: c.unreadable ?? null,
    })),
    ...logFields(log, caller),
  };
  if (found.verdict !== VerificationVerdict.VERIFIED_INTACT) {
    return tamperFromVerification(lineageId, found, { ...timeline, logFailure: log.failure });
  }
  return result(
    `${lineageId}: ${timeline.records.length} record(s), VERIFIED_INTACT; ${timeline.rejections.length} rejection(s), ${timeline.conflicts.length} conflict(s)`,
    timeline,
  );
}

// --- errors thrown by the client ---

/** What a tool error for a thrown error also says of the call: its lineage, write and snapshot notes. */
export interface ErrorContext {
  readonly lineageId?: string;
  readonly residualId?: string;
  /** The snapshot providers' notes (a causal key missing from the snapshot: a tool that did not run). */
  readonly snapshotNotes?: string[];
}

/**
 * A tool error for what a tool's operation threw (docs/mcp.md, "Errors"): invalid arguments
 * (`INVALID_INPUT` with each issue), an unknown lineage (`NOT_FOUND`), a wait that ran out
 * (`TIMEOUT`), a sealed record or a signed log that does not verify (`TAMPER_DETECTED`), an
 * unreachable stack (`UNAVAILABLE` with `missing`, `stackName`, `outputsFile`, `region`,
 * `endpoint`) or an unreadable checkpoint store (`UNAVAILABLE`), anything else
 * (`UNEXPECTED`). `context` follows the error's own details, and wins over them; an outcome
 * that cannot be proven (`UnverifiedOutcomeError`) carries only its own.
 */
export function errorResult(error: unknown, context: ErrorContext = {}): CallToolResult {
  const known = (code: ToolErrorCode, thrown: Error, action: string, details: Record<string, unknown> = {}) =>
    toolError(code, thrown.message, action, { ...details, ...context });
  if (error instanceof LogVerificationError) {
    return known(
      ToolErrorCode.TAMPER_DETECTED,
      error,
      "do not act on this memory: the lineage's signed log does not verify against the checkpoint this server kept (a rollback, a fork or a forged note); call reseal_inspect and report the lineage",
      {
        lineageId: error.lineageId,
        verdict: error.verdict,
        firstFailure: { seq: null, verdict: error.verdict, reason: error.reason },
        detectedBy: 'client',
      },
    );
  }
  if (error instanceof CheckpointFileError) {
    return known(
      ToolErrorCode.UNAVAILABLE,
      error,
      "the server's checkpoint store (RESEAL_CHECKPOINTS) cannot be read: repair or restore the file; never delete it to get going again (it is what catches a rolled-back lineage)",
      { checkpointStore: error.path },
    );
  }
  if (error instanceof UnverifiedOutcomeError) {
    return toolError(
      ToolErrorCode.TAMPER_DETECTED,
      error.message,
      'do not rely on this write: the record marked as its seal cannot be proven in the signed log; call reseal_inspect and report the lineage',
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
    return known(
      ToolErrorCode.TIMEOUT,
      error,
      'the pipeline may still complete: call reseal_inspect on the lineage, or repeat the call with a longer timeoutMs (the same write is idempotent under its residualId)',
      { waitedFor: error.waitedFor, timeoutMs: error.timeoutMs },
    );
  }
  if (error instanceof LineageNotFoundError) {
    return known(ToolErrorCode.NOT_FOUND, error, 'check lineageId; a lineage exists once its first write is sealed');
  }
  if (error instanceof InvalidInputError) {
    return known(ToolErrorCode.INVALID_INPUT, error, 'fix the fields named in issues, then call again', {
      issues: error.issues.map((i) => ({ path: i.path, message: i.message })),
    });
  }
  if (error instanceof StackUnavailableError) {
    return known(ToolErrorCode.UNAVAILABLE, error, error.fix, { missing: error.missing, ...error.place });
  }
  if (error instanceof StackOutputsError) {
    return known(
      ToolErrorCode.UNAVAILABLE,
      error,
      'the Reseal stack cannot be found: check the server configuration (RESEAL_STACK, RESEAL_STACK_OUTPUTS, region, endpoint)',
    );
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return toolError(ToolErrorCode.UNEXPECTED, message, 'retry later; if it persists, report it with the message', {
    ...context,
  });
}

/**
 * What `run` answers, or {@link errorResult} with `context` for what it throws: a tool answers
 * every failure as a tool error (`isError: true`), never as a JSON-RPC error.
 */
export async function withErrorResult(
  context: ErrorContext,
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    return errorResult(error, context);
  }
}
