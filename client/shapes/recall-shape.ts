import { z } from 'zod';
import { isoTime } from '../../shared/iso-time';
import { RefusalCode } from '../../shared/pipeline/refusal-code';
import { HexDigest } from '../../shared/schemas/hex-digest';
import { Identifier } from '../../shared/schemas/identifier';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import { untrustedRecallText } from '../untrusted-recall-text';
import { RecallEnd, type VerifiedRecall } from '../verified-recall';
import { writtenByProven } from '../written-by';
import { DeltaShape, deltaShape } from './delta-shape';
import { DeploymentRollbackCheckOutput, deploymentRollbackCheckOutput } from './deployment-rollback-check-output';
import { FreshnessShape, freshnessShape } from './freshness-shape';
import { WrittenByOutput, writtenByOutput } from './written-by-output';

/** `format` of a {@link RecallShape}: bumped only when a field changes meaning or goes away. */
export const RECALL_FORMAT = 'reseal.recall/1';

/** The client's own verdict on the target record: `null` when it examined none (an unproven `NOT_FOUND`). */
export const RecallVerificationShape = z.object({
  verdict: z.enum(VerificationVerdict),
  /** The first failure, `null` when `VERIFIED_INTACT`. */
  firstFailure: z
    .object({ seq: NonNegativeInt.nullable(), verdict: z.enum(VerificationVerdict), reason: z.string() })
    .nullable(),
});

/**
 * A recall answer as its client decided it (docs/cli.md, `recall`; docs/mcp.md, `reseal_recall`;
 * docs/verifiable-log.md, "Recall"): the one shape `reseal recall --json` prints and
 * `reseal_recall` answers a triaged recall with (camelCase, `format` `reseal.recall/1`). Act only
 * on `end` `TRIAGED` with `verification.verdict` `VERIFIED_INTACT`, by `delta.verdict`; every
 * other end is a refusal (`refusalCode`, `refusalReason`). `untrusted` holds the stored answer's
 * own words when the client could not prove them (escaped by the producer), never acted on. A
 * producer may add fields of its own (the MCP tool its claims' content and next step); these
 * never change.
 */
export const RecallShape = z.object({
  format: z.literal(RECALL_FORMAT),
  requestId: Identifier,
  lineageId: Identifier,
  /** The proven record's seq, else the seq the answer names (diagnostic), else `null`. */
  seq: NonNegativeInt.nullable(),
  /** The proven record's residual id, else `null` (an unproven answer's is under `untrusted`). */
  residualId: Identifier.nullable(),
  /**
   * Who wrote the record the client proved (docs/cli.md, "Who wrote it"), never from the answer's
   * words; `null` when no record was proven.
   */
  writtenBy: WrittenByOutput.nullable(),
  end: z.enum(RecallEnd),
  outcome: z.enum(['TRIAGED', 'REFUSED']),
  verification: RecallVerificationShape.nullable(),
  /** Who found a record not intact: `client`, `triage` (the client could not prove it either), else `null`. */
  detectedBy: z.enum(['client', 'triage']).nullable(),
  /** The delta the client recomputed from the proven record and the environment now: the {@link DeltaShape} `reseal triage --json` prints. */
  delta: DeltaShape.nullable(),
  refusalCode: z.enum(RefusalCode).nullable(),
  refusalReason: z.string().nullable(),
  /** When triage answered (ISO 8601 UTC, from the stored answer: diagnostic). */
  completedAt: z.string(),
  /** Records in the signed checkpoint the record is proven in, `null` when none was. */
  checkpointSize: NonNegativeInt.nullable(),
  /** Records in the newest signed checkpoint the client read from the head item itself. */
  newestCheckpointSize: NonNegativeInt.nullable(),
  /**
   * Whether a rollback of the lineage was checked against lineage checkpoints only (kept or given:
   * `truncationCheckedAgainst` is not empty); `rollbackChecked` counts the deployment checkpoint too.
   */
  truncationChecked: z.boolean(),
  /** The lineage checkpoints only (kept or given) a rollback was checked against. */
  truncationCheckedAgainst: z.array(
    z.union([
      z.object({ kind: z.enum(['KEPT_CHECKPOINT', 'GIVEN_CHECKPOINT']), size: NonNegativeInt }),
      z.object({ kind: z.literal('GIVEN_HEAD'), seq: NonNegativeInt, recordHash: HexDigest }),
    ]),
  ),
  /**
   * The deployment checkpoint a rollback was checked against (kept in the checkpoint store, or
   * cosigned by the policy's witnesses), or `null` when it checked none: on a stack with unsigned
   * lineage checkpoints, the default, the only check besides the caller's `--checkpoint`.
   */
  rollbackCheckedAgainstDeployment: DeploymentRollbackCheckOutput.nullable(),
  /**
   * Whether a rollback was checked at all: `truncationChecked`, or `rollbackCheckedAgainstDeployment`
   * not `null` (what the proof line's "truncation checked against …" says).
   */
  rollbackChecked: z.boolean(),
  untrusted: z
    .object({
      note: z.string(),
      refusalReason: z.string().nullable(),
      residualId: z.string().nullable(),
      reason: z.string(),
    })
    .nullable(),
  freshness: FreshnessShape.nullable(),
});
/** Type of {@link RecallShape}. */
export type RecallShape = z.infer<typeof RecallShape>;

/** The refusal code a recall shows, by its end (`null` when triaged). */
export function recallRefusalCode(recall: VerifiedRecall): RefusalCode | null {
  switch (recall.end) {
    case RecallEnd.TRIAGED:
      return null;
    case RecallEnd.UNTRIAGEABLE:
      return RefusalCode.MANIFEST_UNTRIAGEABLE;
    case RecallEnd.NOT_FOUND:
      return RefusalCode.NOT_FOUND;
    case RecallEnd.INVALID_REQUEST:
      return RefusalCode.INVALID_REQUEST;
    case RecallEnd.NOT_INTACT:
      return RefusalCode.VERIFICATION_FAILED;
    case RecallEnd.AWAITING_INTEGRATION:
      // Triage answered; the client holds the record back until the index vouches for its tree.
      return null;
  }
}

/** The seq and residual id shown: the proven record's, else the seq the answer names (diagnostic; its residual id is untrusted). */
export function shownRecallRecord(recall: VerifiedRecall): { seq: number | null; residualId: string | null } {
  return {
    seq: recall.record?.header.monotonicSequenceNumber ?? recall.report.seq ?? null,
    residualId: recall.record?.header.residualId ?? null,
  };
}

/** The client's verification of the record: `null` when it examined none (an unproven `NOT_FOUND`). */
export function recallVerification(recall: VerifiedRecall): z.infer<typeof RecallVerificationShape> | null {
  if (recall.verdict === null) return null;
  if (recall.verdict === VerificationVerdict.VERIFIED_INTACT) return { verdict: recall.verdict, firstFailure: null };
  return {
    verdict: recall.verdict,
    firstFailure: {
      seq: shownRecallRecord(recall).seq,
      verdict: recall.verdict,
      reason: untrustedRecallText(recall).reason,
    },
  };
}

/**
 * What a recall's rollback was checked against besides lineage checkpoints (`rollbackChecked`,
 * `rollbackCheckedAgainstDeployment` of a {@link RecallShape}), for the MCP tool's refusals too.
 */
export function recallRollbackFields(
  recall: Pick<VerifiedRecall, 'checks' | 'truncationChecked'>,
): Pick<RecallShape, 'rollbackCheckedAgainstDeployment' | 'rollbackChecked'> {
  const rollbackCheckedAgainstDeployment = deploymentRollbackCheckOutput(recall.checks.deployment);
  return {
    rollbackCheckedAgainstDeployment,
    rollbackChecked: recall.truncationChecked || rollbackCheckedAgainstDeployment !== null,
  };
}

/**
 * The {@link RecallShape} of a recall the client decided. `untrustedNote` is the producer's
 * warning over the stored answer's own words (the CLI's and the MCP server's differ in wording).
 */
export function recallShape(recall: VerifiedRecall, untrustedNote: string): RecallShape {
  const shown = shownRecallRecord(recall);
  const text = untrustedRecallText(recall);
  return {
    format: RECALL_FORMAT,
    requestId: recall.requestId,
    lineageId: recall.lineageId,
    seq: shown.seq,
    residualId: shown.residualId,
    writtenBy: recall.record === null ? null : writtenByOutput(writtenByProven(recall.record)),
    end: recall.end,
    outcome: recall.end === RecallEnd.TRIAGED ? 'TRIAGED' : 'REFUSED',
    verification: recallVerification(recall),
    detectedBy: recall.detectedBy,
    delta: recall.delta && deltaShape(recall.delta),
    refusalCode: recallRefusalCode(recall),
    // The client's reason, with the stored answer's words it quotes redacted when unproven.
    refusalReason: recall.end === RecallEnd.TRIAGED ? null : text.reason,
    completedAt: isoTime(recall.report.completedAtMs),
    checkpointSize: recall.checks.checkpointSize,
    newestCheckpointSize: recall.checks.newestSize,
    truncationChecked: recall.truncationChecked,
    truncationCheckedAgainst: recall.checks.truncationCheckedAgainst.map((r) =>
      r.kind === 'GIVEN_HEAD' ? { kind: r.kind, seq: r.seq, recordHash: r.recordHash } : { kind: r.kind, size: r.size },
    ),
    ...recallRollbackFields(recall),
    untrusted: text.untrusted && {
      note: untrustedNote,
      refusalReason: text.untrusted.refusalReason,
      residualId: text.untrusted.residualId,
      reason: text.untrusted.reason,
    },
    freshness: freshnessShape(recall.freshness),
  };
}
