import { z } from 'zod';
import { RecordWriterSchema } from '../authorship/writer-block';
import { FORMAT_VERSION } from '../canonical/digest';
import { WriteVerdictSchema } from '../guard/verdict';
import { RecallProofSchema } from '../log/recall-proof';
import { EnvSnapshot } from '../schemas/env-snapshot';
import { EpochMillis } from '../schemas/epoch-millis';
import { HexDigest } from '../schemas/hex-digest';
import { Identifier } from '../schemas/identifier';
import { NonNegativeInt } from '../schemas/non-negative-int';
import { wellFormedString } from '../schemas/well-formed-string';
import { SupersedesSchema } from '../seal/record-header';
import { LineageHeadSchema } from '../seal/sealed-record';
import { VerificationVerdict } from '../seal/verification-verdict';
import { DeltaIsolationReportSchema } from '../triage/isolate-delta';
import { ResidualWriteRequestSchema } from '../write/write-request';

/**
 * Wire contract of the pipeline (docs/pipeline.md): the body of a `seal-requests` FIFO message
 * and the `detail` of each EventBridge event (source {@link EVENT_SOURCE}). Every schema is
 * strict: unknown fields are refused. camelCase JSON.
 */

/** EventBridge `source` of every Reseal event. */
export const EVENT_SOURCE = 'reseal';

/** EventBridge `detail-type` values (docs/pipeline.md). */
export const DetailType = {
  ResidualSealed: 'ResidualSealed',
  ResidualRejected: 'ResidualRejected',
  RecallRequested: 'RecallRequested',
  TriageCompleted: 'TriageCompleted',
} as const;
/** One of {@link DetailType}. */
export type DetailType = (typeof DetailType)[keyof typeof DetailType];

const ShortText = wellFormedString(4096);

/**
 * Body of a `seal-requests` FIFO message: a write the guard accepted.
 * `MessageGroupId` = `request.lineageId`; `MessageDeduplicationId` = SHA-256 hex of the RFC 8785 canonical write request (`deduplicationIdOf`).
 * The schema checks shape only: the sealer does not trust `verdict` and re-runs the guard
 * (functions/sealer/seal-request-check.ts) before sealing.
 */
export const SealRequestSchema = z.strictObject({
  formatVersion: z.literal(FORMAT_VERSION),
  request: ResidualWriteRequestSchema,
  verdict: WriteVerdictSchema.refine((v) => v.isSafe, { message: 'only safe verdicts may be sealed' }),
  /** When the guard accepted the write, ms since the Unix epoch. */
  acceptedAtMs: EpochMillis,
  /**
   * SQS `SenderId` of the original `residual-writes` message; `null` or absent when the queue gave
   * none (docs/authorship.md, "AWS identity").
   */
  senderId: RecordWriterSchema.shape.senderId.optional(),
});
/** Type of {@link SealRequestSchema}. */
export type SealRequest = z.infer<typeof SealRequestSchema>;

/**
 * A C2SP signed note as text (a signed checkpoint or outcome statement): well-formed, at most
 * 16 KiB. Only its signature makes it worth anything: parse it with `openCheckpoint`.
 */
const SignedNoteText = wellFormedString(16_384).min(1);

/**
 * The lineage tree head a sealed run stored (RFC 9162 tree size and root hash, hex): sealed,
 * awaiting integration. Nobody signed it: it is the sealer's word until the deployment index
 * commits to the lineage at that size or beyond (docs/deployment-log.md, "What changes for the sealer").
 */
const SealedTreeHeadSchema = z.strictObject({
  treeSize: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  rootHash: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex characters (SHA-256)'),
});
/** Type of {@link SealedTreeHeadSchema}. */
export type SealedTreeHead = z.infer<typeof SealedTreeHeadSchema>;

/**
 * `detail` of a `ResidualSealed` event: the record's residual id, the new head, and the lineage
 * tree head that holds the record, sealed and awaiting integration (`sealedTreeHead`; `null` only
 * when a redelivery found no authenticated head). `checkpoint` is what events carried before the
 * sealer stopped signing (a signed lineage checkpoint); the sealer now sends `null`. A write is
 * proven once integrated: the deployment chain, not this event, commits to it (docs/verifiable-log.md).
 */
export const ResidualSealedDetailSchema = LineageHeadSchema.extend({
  formatVersion: z.literal(FORMAT_VERSION),
  residualId: Identifier,
  sealedAtMs: EpochMillis,
  sealedTreeHead: SealedTreeHeadSchema.nullable(),
  checkpoint: SignedNoteText.nullable(),
});
/** Type of {@link ResidualSealedDetailSchema}. */
export type ResidualSealedDetail = z.infer<typeof ResidualSealedDetailSchema>;

/** Why a write was not sealed. Each value is a permanent outcome: the message is not retried. */
export const RejectionReason = {
  /** The SQS body is not JSON. */
  MALFORMED_JSON: 'MALFORMED_JSON',
  /** The body is JSON but not a valid `ResidualWriteRequest` (or `SealRequest`). */
  SCHEMA_VIOLATION: 'SCHEMA_VIOLATION',
  /** The body is larger than the guard accepts. */
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  /** The stale-state guard refused the write (docs/guard.md). */
  STALE_STATE: 'STALE_STATE',
  /** The sealer could not build a record from an accepted write (e.g. header over 4,096 bytes). */
  SEAL_REFUSED: 'SEAL_REFUSED',
  /** The write's generation epoch is older than the lineage head's (fencing token). */
  STALE_EPOCH: 'STALE_EPOCH',
  /** The write kept losing the append race; a conflict record names it. */
  LOST_RACE: 'LOST_RACE',
  /**
   * The sealer re-ran the guard (`evaluateWrite` at `acceptedAtMs`) and the carried verdict is not
   * what it gives: the write is unsafe, or the `verdictDigest` differs (a forged or altered
   * seal request, e.g. one sent to `seal-requests` without passing the guard).
   */
  VERDICT_MISMATCH: 'VERDICT_MISMATCH',
  /** The seal request's `acceptedAtMs` lies in the future or before the `seal-requests` retention. */
  ACCEPTANCE_TIME_INVALID: 'ACCEPTANCE_TIME_INVALID',
  /**
   * The lineage's head item is behind its records (rewound or deleted): the next seq is taken
   * although the head held. A conflict record names it; retrying cannot help.
   */
  LINEAGE_INCONSISTENT: 'LINEAGE_INCONSISTENT',
  /** The residual id is already sealed in this lineage with other content (payload, manifest, …). */
  RESIDUAL_ID_REUSED: 'RESIDUAL_ID_REUSED',
  /**
   * The writer's signature does not verify over the request, or `signedAtMs` is too old or too far
   * ahead (docs/authorship.md). Recorded without a KMS signature: an honest writer checks its own.
   */
  WRITER_SIGNATURE_INVALID: 'WRITER_SIGNATURE_INVALID',
  /**
   * The writer's key may not extend this lineage under its authenticated write policy, or the
   * lineage is a read-only legacy one (docs/authorship.md). Decided before any epoch check;
   * recorded without a KMS signature, naming neither the tip's epoch nor its head.
   */
  WRITER_NOT_ADMITTED: 'WRITER_NOT_ADMITTED',
  /**
   * The lineage head the sealer would extend is behind the head the deployment index holds for
   * the lineage (fewer records, an older epoch, another root at the same size, or a larger head
   * that does not extend it): the table was rolled back or forked (docs/sealing.md, "The index
   * floor"). The whole run is refused and nothing sealed; recorded without a KMS signature.
   */
  LINEAGE_BEHIND_INDEX: 'LINEAGE_BEHIND_INDEX',
  /**
   * The sealer could not read the deployment index it checks every run against: the deployment
   * head does not authenticate with the log key, or an index node is missing or edited
   * (docs/sealing.md, "The index floor"). Nothing sealed; recorded without a KMS signature.
   */
  INDEX_UNVERIFIABLE: 'INDEX_UNVERIFIABLE',
  /**
   * The write came from a tenant's `residual-writes` queue (the event source AWS names) and its
   * lineage id does not begin with that tenant's `<tenant>/`, or from a queue of no tenant in a
   * stack with tenants (docs/authorship.md, "Tenancy"). Decided by the guard before the writer
   * signature is checked; recorded without a KMS signature.
   */
  TENANT_MISMATCH: 'TENANT_MISMATCH',
} as const;
/** One of {@link RejectionReason}. */
export type RejectionReason = (typeof RejectionReason)[keyof typeof RejectionReason];

/** Where a write was refused. */
export const RejectionStage = { GUARD: 'GUARD', SEALER: 'SEALER' } as const;
/** One of {@link RejectionStage}. */
export type RejectionStage = (typeof RejectionStage)[keyof typeof RejectionStage];

/** `detail` of a `ResidualRejected` event. Ids are `null` when the body could not be read. */
export const ResidualRejectedDetailSchema = z.strictObject({
  formatVersion: z.literal(FORMAT_VERSION),
  stage: z.enum(RejectionStage),
  reason: z.enum(RejectionReason),
  lineageId: Identifier.nullable(),
  residualId: Identifier.nullable(),
  /** The guard's verdict digest, when a verdict was reached. */
  verdictDigest: HexDigest.nullable(),
  /** SHA-256 (plain, hex) of the raw SQS body. */
  bodyDigest: HexDigest,
  /** SQS message id of the refused message. */
  messageId: wellFormedString(256),
  rejectedVariables: z.array(z.strictObject({ name: ShortText, reason: ShortText, detail: ShortText })),
  requestViolations: z.array(z.strictObject({ field: ShortText, reason: ShortText, detail: ShortText })),
  /** Schema or parse problems, each naming its field. */
  issues: z.array(z.strictObject({ path: ShortText, message: ShortText })),
  rejectedAtMs: EpochMillis,
});
/** Type of {@link ResidualRejectedDetailSchema}. */
export type ResidualRejectedDetail = z.infer<typeof ResidualRejectedDetailSchema>;

/** Which record a recall asks for: a seq, a residual id, or the latest. */
export const RecallTargetSchema = z.union([
  z.strictObject({ seq: NonNegativeInt }),
  z.strictObject({ residualId: Identifier }),
  z.strictObject({ latest: z.literal(true) }),
]);
/** Type of {@link RecallTargetSchema}. */
export type RecallTarget = z.infer<typeof RecallTargetSchema>;

/** `detail` of a `RecallRequested` event (docs/pipeline.md). */
export const RecallRequestedDetailSchema = z.strictObject({
  requestId: Identifier,
  lineageId: Identifier,
  target: RecallTargetSchema,
  /** The environment now (an `EnvSnapshot`). */
  currentEnv: EnvSnapshot,
  /** A head the caller trusts (e.g. from a `ResidualSealed` event): detects tail truncation. */
  checkpoint: SupersedesSchema.optional(),
  /**
   * A signed checkpoint the caller keeps: triage proves the latest checkpoint consistent with it
   * (RFC 9162 §2.1.4), so a rollback or a fork shows.
   */
  trustedCheckpoint: SignedNoteText.optional(),
});
/** Type of {@link RecallRequestedDetailSchema}. */
export type RecallRequestedDetail = z.infer<typeof RecallRequestedDetailSchema>;

/** Outcome of a recall: triaged, or refused before triage. */
export const TriageOutcome = { TRIAGED: 'TRIAGED', REFUSED: 'REFUSED' } as const;
/** One of {@link TriageOutcome}. */
export type TriageOutcome = (typeof TriageOutcome)[keyof typeof TriageOutcome];

/**
 * Machine-readable kind of a `REFUSED` triage (`refusalCode`); `refusalReason` is for humans
 * and may change wording, the code does not.
 */
export const RefusalCode = {
  /** No record of the lineage has the requested seq / residual id, or the lineage is empty. */
  NOT_FOUND: 'NOT_FOUND',
  /**
   * The chain is not `VERIFIED_INTACT` (hash, MAC, truncation, or a stored head inconsistent
   * with the records); `verification.verdict` says which. No triage.
   */
  VERIFICATION_FAILED: 'VERIFICATION_FAILED',
  /** The `RecallRequested` detail was invalid; `refusalReason` names every bad field. */
  INVALID_REQUEST: 'INVALID_REQUEST',
  /** The record verified but its manifest cannot be triaged (delta isolation refused it). */
  MANIFEST_UNTRIAGEABLE: 'MANIFEST_UNTRIAGEABLE',
} as const;
/** One of {@link RefusalCode}. */
export type RefusalCode = (typeof RefusalCode)[keyof typeof RefusalCode];

/**
 * `detail` of a `TriageCompleted` event, also stored as the triage report
 * (pk `TRIAGE#<lineageId>`, sk `<requestId>`). `verification` is `null` only when no record was
 * found; `report` is set iff `outcome` is `TRIAGED`; `refusalReason` and `refusalCode` iff
 * `REFUSED` (both `null` iff `TRIAGED`).
 */
export const TriageCompletedDetailSchema = z.strictObject({
  formatVersion: z.literal(FORMAT_VERSION),
  requestId: Identifier,
  lineageId: Identifier,
  seq: NonNegativeInt.nullable(),
  residualId: Identifier.nullable(),
  outcome: z.enum(TriageOutcome),
  verification: z
    .strictObject({
      verdict: z.enum(VerificationVerdict),
      firstFailure: z
        .strictObject({ seq: NonNegativeInt.nullable(), verdict: z.enum(VerificationVerdict), reason: z.string() })
        .nullable(),
    })
    .nullable(),
  report: DeltaIsolationReportSchema.nullable(),
  /**
   * What the client checks the answer with, set whenever a record was proven: the latest signed
   * checkpoint, the record's leaf, its inclusion proof and, given a `trustedCheckpoint`, the
   * consistency proof from it. A client recomputes the delta from the proven record and its own
   * environment, so this report is never trusted as stored.
   */
  proof: RecallProofSchema.nullable(),
  refusalReason: ShortText.nullable(),
  /** Why the triage was refused, machine-readable; `null` iff `outcome` is `TRIAGED`. */
  refusalCode: z.enum(RefusalCode).nullable(),
  completedAtMs: EpochMillis,
});
/** Type of {@link TriageCompletedDetailSchema}. */
export type TriageCompletedDetail = z.infer<typeof TriageCompletedDetailSchema>;
