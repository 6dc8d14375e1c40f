import { z } from 'zod';
import { isoTime } from '../../shared/iso-time';
import { RejectionStage } from '../../shared/pipeline/rejection-stage';
import { HexDigest } from '../../shared/schemas/hex-digest';
import { Identifier } from '../../shared/schemas/identifier';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';
import type { WriteOutcome } from '../write-outcomes';
import { FreshnessShape, freshnessShape } from './freshness-shape';
import { HeadOutput } from './head-output';
import { InclusionProofOutput } from './inclusion-proof-output';
import { SignedCheckpointOutput } from './signed-checkpoint-output';

/** `format` of a {@link WriteOutcomeShape}: bumped only when a field changes meaning or goes away. */
export const WRITE_OUTCOME_FORMAT = 'reseal.write-outcome/1';

const common = {
  format: z.literal(WRITE_OUTCOME_FORMAT),
  lineageId: Identifier,
  residualId: Identifier,
};

/** A sealed write: its record's place, the signed checkpoint it is proven in, the proof, and its freshness. */
export const WriteSealedShape = z.object({
  ...common,
  outcome: z.literal('SEALED'),
  seq: NonNegativeInt,
  recordHash: HexDigest,
  generationEpoch: NonNegativeInt,
  /** The tree the record is proven in: a signed checkpoint (`note`), or a head the sealer MAC'd (`note` `null`, vouched for by `freshness`); keep `seq:recordHash` for `--checkpoint`. */
  checkpoint: SignedCheckpointOutput,
  /** The record's RFC 9162 inclusion proof in `checkpoint` (leaf `seq`). */
  proof: InclusionProofOutput,
  /** Where the record stands against the deployment log; `null`: the client checked none. */
  freshness: FreshnessShape.nullable(),
});

/** A write the guard or the sealer refused, in a statement signed by that function. */
export const WriteRejectedShape = z.object({
  ...common,
  outcome: z.literal('REJECTED'),
  stage: z.enum(RejectionStage),
  reason: z.string(),
  /** ISO 8601 UTC, or `(invalid time <ms>)` for a time no `Date` holds. */
  rejectedAt: z.string(),
  rejectedVariables: z.array(z.object({ name: z.string(), reason: z.string(), detail: z.string() })),
  requestViolations: z.array(z.object({ field: z.string(), reason: z.string(), detail: z.string() })),
  issues: z.array(z.object({ path: z.string(), message: z.string() })),
});

/** A write that could not be appended (`STALE_EPOCH`, `LOST_RACE`, `LINEAGE_INCONSISTENT`), signed by the sealer. */
export const WriteConflictShape = z.object({
  ...common,
  outcome: z.literal('CONFLICT'),
  reason: z.string(),
  detail: z.string(),
  /** The head the sealer found, when the conflict carries one. */
  observedHead: HeadOutput.extend({ generationEpoch: NonNegativeInt }).nullable(),
  /** ISO 8601 UTC, or `(invalid time <ms>)` for a time no `Date` holds. */
  conflictedAt: z.string(),
});

/** No proven outcome within the wait (the write may still be in flight). */
export const WriteTimeoutShape = z.object({
  ...common,
  outcome: z.literal('TIMEOUT'),
  waitedSeconds: NonNegativeInt,
});

/**
 * What became of a published write (docs/cli.md, `publish --wait`; docs/mcp.md, `reseal_write`):
 * the one shape `reseal publish --wait --json` prints and `reseal_write` answers a seal with
 * (camelCase, `format` `reseal.write-outcome/1`), by `outcome`. Every outcome is proven with public
 * keys alone (docs/verifiable-log.md, "Signed outcomes"). A producer may add fields of its own
 * (the CLI its `messageId`, the MCP tool its `claims` and `snapshot`); these never change.
 */
export const WriteOutcomeShape = z.discriminatedUnion('outcome', [
  WriteSealedShape,
  WriteRejectedShape,
  WriteConflictShape,
  WriteTimeoutShape,
]);
/** Type of {@link WriteOutcomeShape}. */
export type WriteOutcomeShape = z.infer<typeof WriteOutcomeShape>;
/** Type of {@link WriteSealedShape}. */
export type WriteSealedShape = z.infer<typeof WriteSealedShape>;

/** The {@link WriteOutcomeShape} of the proven outcome of the write `residualId` on `lineageId`. */
export function writeOutcomeShape(lineageId: string, residualId: string, outcome: WriteOutcome): WriteOutcomeShape {
  const ids = { format: WRITE_OUTCOME_FORMAT, lineageId, residualId } as const;
  switch (outcome.kind) {
    case 'SEALED':
      return writeSealedShape(lineageId, residualId, outcome);
    case 'REJECTED': {
      const r = outcome.rejection;
      return {
        ...ids,
        outcome: 'REJECTED',
        stage: r.stage,
        reason: r.reason,
        rejectedAt: isoTime(r.atMs),
        rejectedVariables: r.rejectedVariables.map((v) => ({ name: v.name, reason: v.reason, detail: v.detail })),
        requestViolations: r.requestViolations.map((v) => ({ field: v.field, reason: v.reason, detail: v.detail })),
        issues: r.issues.map((i) => ({ path: i.path, message: i.message })),
      };
    }
    case 'CONFLICT': {
      const c = outcome.conflict;
      return {
        ...ids,
        outcome: 'CONFLICT',
        reason: c.reason,
        detail: c.detail,
        observedHead: c.observedHead && {
          seq: c.observedHead.seq,
          recordHash: c.observedHead.recordHash,
          generationEpoch: c.observedHead.generationEpoch,
        },
        conflictedAt: isoTime(c.atMs),
      };
    }
  }
}

/** The {@link WriteSealedShape} of a `SEALED` outcome (the checkpoint's fields read from its note, which the client verified). */
export function writeSealedShape(
  lineageId: string,
  residualId: string,
  outcome: Extract<WriteOutcome, { kind: 'SEALED' }>,
): WriteSealedShape {
  const { head, proof } = outcome;
  const body = outcome.treeHead;
  return {
    format: WRITE_OUTCOME_FORMAT,
    lineageId,
    residualId,
    outcome: 'SEALED',
    seq: head.seq,
    recordHash: head.recordHash,
    generationEpoch: head.generationEpoch,
    checkpoint: {
      note: outcome.checkpoint,
      origin: body.origin,
      size: body.size,
      rootHash: Buffer.from(body.rootHash).toString('hex'),
    },
    proof: { leafIndex: proof.leafIndex, treeSize: proof.treeSize, inclusionProof: [...proof.inclusionProof] },
    freshness: freshnessShape(outcome.freshness),
  };
}

/** The {@link WriteOutcomeShape} of a wait that found no proven outcome in `waitedSeconds`. */
export function writeTimeoutShape(lineageId: string, residualId: string, waitedSeconds: number): WriteOutcomeShape {
  return { format: WRITE_OUTCOME_FORMAT, lineageId, residualId, outcome: 'TIMEOUT', waitedSeconds };
}
