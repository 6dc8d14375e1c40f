import { z } from 'zod';
import type { RejectionReason } from '../shared/pipeline/rejection-reason';
import type { RejectionStage } from '../shared/pipeline/rejection-stage';
import type { RejectionRecord } from '../shared/ports/lineage-store';
import { type Item, itemOf } from './item';
import { LineageKeys } from './lineage-keys';
import { readJsonAs, readNumber, readString } from './read-attribute';

/** The item of a rejection record (JSON fields as JSON text; empty optional fields left out; docs/pipeline.md, "Data layout"). */
export function rejectionItem(rejection: RejectionRecord): Item {
  return itemOf({
    pk: LineageKeys.rejection(rejection.lineageId),
    sk: LineageKeys.rejectionSk(rejection.atMs, rejection.messageId),
    stage: rejection.stage,
    reason: rejection.reason,
    messageId: rejection.messageId,
    bodyDigest: rejection.bodyDigest,
    bodyPreview: rejection.bodyPreview || undefined,
    issues: JSON.stringify(rejection.issues),
    rejectedVariables: JSON.stringify(rejection.rejectedVariables),
    requestViolations: JSON.stringify(rejection.requestViolations),
    atMs: rejection.atMs,
    residualId: rejection.residualId || undefined,
    verdictDigest: rejection.verdictDigest || undefined,
    requestDigest: rejection.requestDigest || undefined,
    statement: rejection.statement || undefined,
  });
}

const IssueListSchema = z.array(z.looseObject({ path: z.string(), message: z.string() }));
const VariableListSchema = z.array(z.looseObject({ name: z.string(), reason: z.string(), detail: z.string() }));
const ViolationListSchema = z.array(z.looseObject({ field: z.string(), reason: z.string(), detail: z.string() }));

/**
 * A rejection item as a {@link RejectionRecord} (unverified; absent fields read as empty / null).
 * A list field that is present but not a list of the right shape reads as `[]` and is named in `unreadable`.
 */
export function rejectionOf(lineageId: string, item: Item): RejectionRecord {
  const unreadable: string[] = [];
  const record: RejectionRecord = {
    stage: (readString(item, 'stage') ?? '') as RejectionStage,
    reason: (readString(item, 'reason') ?? '') as RejectionReason,
    lineageId,
    residualId: readString(item, 'residualId') ?? null,
    messageId: readString(item, 'messageId') ?? '',
    verdictDigest: readString(item, 'verdictDigest') ?? null,
    bodyDigest: readString(item, 'bodyDigest') ?? '',
    bodyPreview: readString(item, 'bodyPreview') ?? '',
    issues: readJsonAs<RejectionRecord['issues']>(item, 'issues', IssueListSchema, [], unreadable),
    rejectedVariables: readJsonAs(item, 'rejectedVariables', VariableListSchema, [], unreadable),
    requestViolations: readJsonAs(item, 'requestViolations', ViolationListSchema, [], unreadable),
    atMs: readNumber(item, 'atMs') ?? 0,
    requestDigest: readString(item, 'requestDigest') ?? null,
    statement: readString(item, 'statement') ?? null,
  };
  return unreadable.length === 0 ? record : { ...record, unreadable: `unreadable ${unreadable.join(', ')}` };
}
