/**
 * The Reseal domain core: pure functions and schemas, no AWS, no network (STYLE.md §1).
 *
 * - Canonical form and hashing: RFC 8785 bytes, domain-separated SHA-256 (docs/canonical-form.md).
 * - Stale-state guard, seed 004 (docs/guard.md).
 * - Sealing and lineage verification, seed 003 (docs/sealing.md).
 * - Differential seal triage, seed 000 (docs/triage.md).
 * - Wire schemas of the pipeline's messages and the ports its adapters implement (docs/pipeline.md).
 *
 * One barrel with named exports; files inside `shared/` import each other directly.
 */

export {
  assertCanonicalizable,
  canonicalBytes,
  canonicalJson,
  type JsonValue,
  MAX_JSON_DEPTH,
} from './canonical/canonical-json';
export {
  FORMAT_VERSION,
  HashDomain,
  type HashDomainTag,
  HEX_DIGEST_PATTERN,
  type HexDigest,
  hashBytes,
  hashCanonical,
} from './canonical/digest';
export { CanonicalizationError, HeaderTooLargeError, type InputIssue, InvalidInputError, ResealError } from './errors';
export { StaleWriteError } from './guard/errors';
export { type GuardPolicy, GuardPolicySchema } from './guard/policy';
export { type FreshnessProbeReceipt, FreshnessProbeReceiptSchema, valueDigest } from './guard/receipts';
export { type SessionVariable, SessionVariableSchema, VariableFreshness } from './guard/session-variable';
export { assertWriteSafe, evaluateWrite } from './guard/stale-state-guard';
export {
  type RejectedVariable,
  RequestViolationReason,
  VariableRejectionReason,
  type WriteVerdict,
  WriteVerdictSchema,
} from './guard/verdict';
export {
  MAX_PAYLOAD_BYTES,
  type ResidualWriteRequest,
  ResidualWriteRequestSchema,
  type SessionSnapshotBoundary,
  SessionSnapshotBoundarySchema,
} from './guard/write-request';
export type { EventPublisher } from './ports/event-publisher';
export { DuplicateResidualError, type LineageStore, StaleHeadError } from './ports/lineage-store';
export { type AnchorSignature, MacAlgorithm, type MacAnchor } from './ports/mac-anchor';
export type { SealQueue } from './ports/seal-queue';
export {
  DetailType,
  EVENT_SOURCE,
  type RecallRequestedDetail,
  RecallRequestedDetailSchema,
  RefusalCode,
  RejectionReason,
  type ResidualRejectedDetail,
  ResidualRejectedDetailSchema,
  type ResidualSealedDetail,
  ResidualSealedDetailSchema,
  type SealRequest,
  SealRequestSchema,
  type TriageCompletedDetail,
  TriageCompletedDetailSchema,
} from './schemas/messages';
export { parseInput } from './schemas/parse';
export { Authority, AuthoritySchema, EnvSnapshot, Identifier } from './schemas/primitives';
export { assessAuthority } from './seal/authority';
export { type ChainVerification, ChainVerificationSchema } from './seal/chain-verification';
export { AnchorKeyMismatchError, AnchorUnavailableError, StaleEpochError } from './seal/errors';
export { verifyChain } from './seal/lineage-verifier';
export { LocalHmacAnchor } from './seal/local-hmac-anchor';
export { genesisParentHash, headerBytes, payloadHash, type RecordHeader, recordHashOf } from './seal/record-header';
export { type SealInput, sealRecord } from './seal/residual-sealer';
export { type LineageHead, LineageHeadSchema, type SealedRecord, SealedRecordSchema } from './seal/sealed-record';
export { VerificationVerdict } from './seal/verification-verdict';
export {
  type DeltaIsolationReport,
  DeltaIsolationReportSchema,
  DeltaVerdict,
  isolateDelta,
  triageReportDigest,
} from './triage/delta-isolator';
export { ManifestSealMismatchError } from './triage/errors';
export {
  type BuildManifestInput,
  buildManifest,
  type ClaimDependency,
  type ClaimKeys,
  compositeSeal,
  declaredAbsentKeys,
  envKeyHash,
  MANIFEST_FORMAT_VERSION,
  ManifestFormatVersion,
  manifestDigest,
  type SealedDependencyManifest,
  SealedDependencyManifestSchema,
  type SealedDependencyManifestV1,
  SealedDependencyManifestV1Schema,
  type SealedDependencyManifestV2,
  SealedDependencyManifestV2Schema,
} from './triage/manifest';
