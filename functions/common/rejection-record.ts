import { createHash } from 'node:crypto';
import type { InputIssue } from '../../shared/errors';
import type { RejectionReason } from '../../shared/pipeline/rejection-reason';
import type { RejectionStage } from '../../shared/pipeline/rejection-stage';
import type { RejectionRecord } from '../../shared/ports/lineage-store';
import { clipText } from '../../shared/schemas/clip-text';
import { escapeLoneSurrogates } from '../../shared/schemas/escape-lone-surrogates';
import type { QueueMessage } from './queue-message';

/** Bytes of the raw body kept in a rejection record, as data. */
export const BODY_PREVIEW_BYTES = 1024;
/** Most issues a rejection record keeps. */
const MAX_ISSUES = 50;
/** Longest issue path or message kept, in UTF-16 units: the `ResidualRejected` detail's bound, so the event repeats it unclipped. */
const MAX_ISSUE_TEXT = 4096;
/** Stored issue text at most, in JSON characters: a rejection must fit one DynamoDB item (400 KB). */
const MAX_ISSUES_JSON = 64 * 1024;

/** What the guard or the sealer knows of a refused message; {@link rejectionRecord} makes the record of it. */
export interface RefusedMessage {
  readonly stage: RejectionStage;
  readonly reason: RejectionReason;
  readonly message: QueueMessage;
  /** The lineage and residual the body names (when they are valid identifiers), else `null`. */
  readonly lineageId: string | null;
  readonly residualId: string | null;
  readonly verdictDigest?: string | null;
  /** `requestDigest` of the parsed write, `null` when the body did not parse as one. */
  readonly requestDigest?: string | null;
  readonly issues?: readonly InputIssue[];
  readonly rejectedVariables?: readonly RejectionRecord['rejectedVariables'][number][];
  readonly requestViolations?: readonly RejectionRecord['requestViolations'][number][];
}

/**
 * The unsigned rejection record of a refused queue message, built one way for the guard and the
 * sealer (docs/pipeline.md, the rejection item): `bodyDigest` the SHA-256 of the raw body's
 * UTF-8, `bodyPreview` its first {@link BODY_PREVIEW_BYTES} bytes cut on a character boundary
 * only for a body named by no `requestDigest` (one that did not parse as a write: `''` otherwise,
 * so a refused signed request is never handed to a table writer, docs/pipeline.md),
 * every text with its lone surrogates escaped (so the signed content digest survives UTF-8
 * storage unchanged), issues bounded (at most 50, each text at most 4,096 units, all within 64 KiB
 * of JSON), `atMs` the message's SQS `SentTimestamp`, `statement` `null` (the recorder signs it).
 */
export function rejectionRecord(refused: RefusedMessage): RejectionRecord {
  const { message } = refused;
  const clean = (text: string) => clipText(escapeLoneSurrogates(text), MAX_ISSUE_TEXT);
  return {
    stage: refused.stage,
    reason: refused.reason,
    lineageId: refused.lineageId,
    residualId: refused.residualId,
    messageId: message.messageId,
    verdictDigest: refused.verdictDigest ?? null,
    bodyDigest: createHash('sha256').update(message.body, 'utf8').digest('hex'),
    // A parsed write is named by its request digest; its body (the whole signed request when small)
    // is what a table writer would need to build a record of it, so it is not kept.
    bodyPreview: refused.requestDigest ? '' : previewOf(message.body),
    issues: boundedIssues((refused.issues ?? []).map((i) => ({ path: clean(i.path), message: clean(i.message) }))),
    rejectedVariables: (refused.rejectedVariables ?? []).map((v) => ({
      name: escapeLoneSurrogates(v.name),
      reason: v.reason,
      detail: escapeLoneSurrogates(v.detail),
    })),
    requestViolations: (refused.requestViolations ?? []).map((v) => ({
      field: escapeLoneSurrogates(v.field),
      reason: v.reason,
      detail: escapeLoneSurrogates(v.detail),
    })),
    atMs: message.sentAtMs,
    requestDigest: refused.requestDigest ?? null,
    statement: null,
  };
}

/** At most {@link MAX_ISSUES} issues, and the whole within {@link MAX_ISSUES_JSON}. */
function boundedIssues(issues: { path: string; message: string }[]): { path: string; message: string }[] {
  const kept = issues.slice(0, MAX_ISSUES);
  while (kept.length > 1 && JSON.stringify(kept).length > MAX_ISSUES_JSON) kept.pop();
  return kept;
}

/** First {@link BODY_PREVIEW_BYTES} bytes, cut on a character boundary. */
function previewOf(body: string): string {
  const bytes = Buffer.from(body, 'utf8').subarray(0, BODY_PREVIEW_BYTES);
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes).replace(/\uFFFD$/, '');
}
