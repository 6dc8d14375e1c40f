/**
 * The Reseal domain core: pure functions and schemas, no AWS, no network (checked by
 * test/unit/repository/layers.test.ts).
 *
 * - Canonical form and hashing: RFC 8785 bytes, domain-separated SHA-256 (docs/canonical-form.md).
 * - Stale-state guard (docs/guard.md).
 * - Sealing and lineage verification (docs/sealing.md).
 * - Differential seal triage (docs/triage.md).
 * - Verifiable log per lineage: RFC 9162 Merkle tree, C2SP checkpoints and signed notes (docs/verifiable-log.md).
 * - Witness and client policy: C2SP tlog-witness, cosignature/v1, tlog-policy with a maximum age (docs/witness.md).
 * - Verifiable index: the sparse Merkle map of lineage heads and residual ids, its proofs and batched updates (docs/verifiable-index.md).
 * - Wire schemas of the pipeline's messages and the ports its adapters implement (docs/pipeline.md).
 *
 * One barrel with named exports; files inside `shared/` import each other directly.
 */

export { assertCanonicalizable } from './canonical/assert-canonicalizable';
export { canonicalBytes, canonicalJson, type JsonValue, MAX_JSON_DEPTH } from './canonical/canonical-json';
export { HEX_DIGEST_PATTERN, type HexDigest } from './canonical/digest';
export { hashBytes } from './canonical/hash-bytes';
export { hashCanonical } from './canonical/hash-canonical';
export { FORMAT_VERSION, HashDomain, type HashDomainTag } from './canonical/hash-domain';
export { StrictJsonError, StrictJsonFailure } from './canonical/strict-json-error';
export {
  AnchorKeyMismatchError,
  AnchorUnavailableError,
  CanonicalizationError,
  CheckpointFormatError,
  CheckpointOriginMismatchError,
  DuplicateResidualError,
  HeaderTooLargeError,
  IndexNodeMissingError,
  IndexProofFormatError,
  type InputIssue,
  InvalidInputError,
  LineageInconsistentError,
  LineageNotFoundError,
  LogStateError,
  ManifestSealMismatchError,
  MerkleNodeMissingError,
  NoteFormatError,
  NoteVerificationError,
  OutcomeVerificationError,
  PolicyFormatError,
  type ReportedHead,
  ResealError,
  type ResidualLocation,
  SessionHistoryError,
  SignerUnavailableError,
  StaleEpochError,
  StaleHeadError,
  StaleWriteError,
  TenantMismatchError,
  TenantRequiredError,
  WitnessRequestFormatError,
} from './errors';
export { assertWriteSafe } from './guard/assert-write-safe';
export { evaluateWrite } from './guard/evaluate-write';
export { type GuardPolicy, GuardPolicySchema } from './guard/policy';
export { RequestViolationReason } from './guard/request-violation';
export { type RejectedVariable, VariableRejectionReason } from './guard/variable-rejection';
export { type WriteVerdict, WriteVerdictSchema } from './guard/verdict';
export { applyIndexUpdates, type IndexUpdateResult } from './index/apply-index-updates';
export { CachedIndexNodeStore, INDEX_TILE_CACHE_TILES } from './index/cached-index-node-store';
export {
  checkIndexAbsence,
  checkIndexPresence,
  type IndexProofFinding,
  IndexProofFindingCode,
} from './index/check-index';
export {
  entryDigest,
  entryKey,
  type IndexEntry,
  IndexEntrySchema,
  type LineageIndexValue,
  LineageIndexValueSchema,
  parseIndexEntry,
  type ResidualIndexValue,
  ResidualIndexValueSchema,
} from './index/index-entry';
export {
  emptyIndexHash,
  INDEX_HASH_BYTES,
  indexLeafHash,
  indexNodeHash,
  isEmptyIndexHash,
} from './index/index-hash';
export {
  type IndexKey,
  IndexKeySchema,
  indexKeyPath,
  KEY_PATH_BITS,
  type LineageIndexKey,
  parseIndexKey,
  RESIDUAL_SHARED_PATH_BITS,
  type ResidualIndexKey,
} from './index/index-key';
export { IndexNodeReader } from './index/index-node-reader';
export {
  assertIndexProofWellFormed,
  decodeIndexProof,
  encodeIndexProof,
  type IndexProof,
  type IndexProofJson,
  IndexProofJsonSchema,
  indexProofFromJson,
  indexProofToJson,
} from './index/index-proof';
export {
  type CheckedIndexNode,
  type DecodedIndexTile,
  decodeIndexTile,
  encodeIndexNodeTile,
  encodeIndexTile,
  INDEX_TILE_LEVELS,
  INDEX_TILE_VERSION,
} from './index/index-tile';
export {
  admitUpdate,
  type IndexUpdate,
  type IndexUpdateFinding,
  IndexUpdateSchema,
  parseIndexUpdates,
} from './index/index-update';
export { MemoryIndexNodeStore } from './index/memory-index-node-store';
export { type IndexKeyProof, proveIndexKey } from './index/prove-index-key';
export {
  type ChainReceipt,
  type ChainReceiptOptions,
  ChainReceiptSchema,
  type ChainReceiptVerification,
  verifyChainReceipt,
} from './integrator/chain-receipt';
export { decideAbsence } from './integrator/decide-absence';
export { decideRecordFreshness, type RecordFreshnessInput } from './integrator/decide-record-freshness';
export {
  type AcceptedDeploymentCheckpoint,
  type AnchoredDeploymentCheckpoint,
  type DeploymentAnchorInput,
  type DeploymentChainAbsent,
  type DeploymentChainFinding,
  type DeploymentChainInput,
  type DeploymentChainProven,
  DeploymentChainRefusal,
  type DeploymentChainRefused,
  type IndexClaim,
  verifyDeploymentAnchor,
  verifyDeploymentChain,
} from './integrator/deployment-chain';
export {
  checkKeptDeploymentCheckpoint,
  type KeptCheckpointFinding,
  type KeptCheckpointInput,
} from './integrator/kept-deployment-checkpoint';
export {
  checkReAnchorStatement,
  formatReAnchorStatement,
  parseReAnchorStatement,
  RE_ANCHOR_HEADER,
  type ReAnchorKeys,
  type ReAnchorNotice,
  type ReAnchorStatement,
  reAnchorNotice,
  reAnchorStatementHash,
  type TreeHead,
  type VerifiedReAnchor,
  verifyReAnchorStatement,
} from './integrator/re-anchor-statement';
export { deploymentLeafHashIn, reAnchoredLeaf } from './integrator/re-anchored-leaf';
export { FreshnessState, type ReadDeploymentChain, type RecordFreshness } from './integrator/record-freshness';
export { isRetryable } from './is-retryable';
export { addNoteSignature } from './log/add-note-signature';
export { type AppendResult, appendLeaf } from './log/append-leaf';
export { type Checkpoint, checkpointBody, parseCheckpointBody } from './log/checkpoint';
export { lineageOrigin } from './log/checkpoint-origin';
export { consistencyProofRefs, proveConsistency } from './log/consistency-proof';
export { EMPTY_ROOT } from './log/empty-root';
export { frontierRoot } from './log/frontier-root';
export { inclusionProofRefs, proveInclusion } from './log/inclusion-proof';
export { ED25519_SEED_BYTES, LocalEd25519Signer } from './log/local-ed25519-signer';
export { logKeyName } from './log/log-names';
export { MemoryMerkleTree } from './log/memory-tree';
export { HASH_BYTES, leafHash, nodeHash } from './log/merkle-hash';
export type { NodeRef, NodeSource, TreeNode } from './log/node-ref';
export {
  assertVerifierKey,
  ED25519_PUBLIC_KEY_BYTES,
  ED25519_SIGNATURE_BYTES,
  ED25519_SIGNATURE_TYPE,
  ed25519KeyHash,
  formatVerifierKey,
  isValidKeyName,
  KEY_HASH_BYTES,
  type NoteVerifierKey,
  noteVerifierKey,
  parseVerifierKey,
} from './log/note-key';
export { publicKeyFromSpki } from './log/public-key-from-spki';
export { rangeRoot } from './log/range-root';
export { signCheckpoint } from './log/sign-checkpoint';
export { formatSignatureLine } from './log/signature-line';
export {
  formatSignedNote,
  MAX_NOTE_BYTES,
  MAX_NOTE_SIGNATURES,
  type NoteSignature,
  parseSignedNote,
  signNote,
  verifyNote,
} from './log/signed-note';
export { subtreeRefs } from './log/subtree-refs';
export { verifyCheckpoint } from './log/verified-checkpoint';
export { type ConsistencyCheck, verifyConsistency } from './log/verify-consistency';
export { verifyEd25519 } from './log/verify-ed25519';
export { type InclusionCheck, verifyInclusion } from './log/verify-inclusion';
export { DetailType, EVENT_SOURCE } from './pipeline/detail-type';
export { type RecallRequestedDetail, RecallRequestedDetailSchema } from './pipeline/recall-requested-detail';
export { RefusalCode } from './pipeline/refusal-code';
export { RejectionReason } from './pipeline/rejection-reason';
export { type ResidualRejectedDetail, ResidualRejectedDetailSchema } from './pipeline/residual-rejected-detail';
export { type ResidualSealedDetail, ResidualSealedDetailSchema } from './pipeline/residual-sealed-detail';
export { residualSealedDetails } from './pipeline/residual-sealed-details';
export {
  MAX_SEALED_RUN_RESIDUALS,
  type ResidualSealedRun,
  ResidualSealedRunSchema,
  type SealedResidual,
} from './pipeline/residual-sealed-run';
export { type SealRequest, SealRequestSchema } from './pipeline/seal-request';
export { sealedRunHead } from './pipeline/sealed-run-head';
export { type SealedTreeHead, SealedTreeHeadSchema } from './pipeline/sealed-tree-head';
export { type TriageCompletedDetail, TriageCompletedDetailSchema } from './pipeline/triage-completed-detail';
export type { EventPublisher } from './ports/event-publisher';
export type { IndexNode, IndexNodeStore, IndexTile } from './ports/index-node-store';
export type { LineageStore } from './ports/lineage-store';
export { type AnchorSignature, MacAlgorithm, type MacAnchor } from './ports/mac-anchor';
export type { NoteSigner } from './ports/note-signer';
export type { SealQueue } from './ports/seal-queue';
export { Authority, AuthoritySchema } from './schemas/authority';
export { EnvSnapshot } from './schemas/env-snapshot';
export { Identifier } from './schemas/identifier';
export { parseInput } from './schemas/parse';
export { type ChainVerification, ChainVerificationSchema } from './seal/chain-verification';
export { genesisParentHash } from './seal/genesis-parent-hash';
export { type LineageHead, LineageHeadSchema } from './seal/lineage-head';
export { LocalHmacAnchor } from './seal/local-hmac-anchor';
export { payloadHash } from './seal/payload-hash';
export { headerBytes, type RecordHeader, recordHashOf } from './seal/record-header';
export type { SealInput } from './seal/seal-input';
export { sealRecord } from './seal/seal-record';
export { type SealedRecord, SealedRecordSchema } from './seal/sealed-record';
export { VerificationVerdict } from './seal/verification-verdict';
export { verifyChain } from './seal/verify-chain';
export {
  foldSessionHistory,
  isSessionPayload,
  type LiveSessionItem,
  SESSION_ITEM_FORMAT,
  type SessionAddPayload,
  type SessionItem,
  SessionOp,
  type SessionPayload,
  type SessionRecordView,
  type SessionRemovalPayload,
  sessionAddPayload,
  sessionRemovalPayload,
} from './session/session-history';
export { buildManifest } from './triage/build-manifest';
export type { BuildManifestInput, ClaimDependency, ClaimKeys } from './triage/build-manifest-input';
export { compositeSeal } from './triage/composite-seal';
export { declaredAbsentKeys } from './triage/declared-absent-keys';
export { type DeltaIsolationReport, DeltaIsolationReportSchema, DeltaVerdict } from './triage/delta-isolation-report';
export { envKeyHash } from './triage/env-key-hash';
export { isolateDelta } from './triage/isolate-delta';
export { manifestDigest } from './triage/manifest-digest';
export { MANIFEST_FORMAT_VERSION, ManifestFormatVersion } from './triage/manifest-format-version';
export {
  type SealedDependencyManifest,
  SealedDependencyManifestSchema,
  type SealedDependencyManifestV1,
  SealedDependencyManifestV1Schema,
  type SealedDependencyManifestV2,
  SealedDependencyManifestV2Schema,
} from './triage/sealed-dependency-manifest';
export { triageReportDigest } from './triage/triage-report-digest';
export {
  type AddCheckpointRequest,
  formatAddCheckpointRequest,
  MAX_PROOF_LINES,
  MAX_REQUEST_BYTES,
  parseAddCheckpointRequest,
} from './witness/add-checkpoint-request';
export { type AdmittedCheckpoint, admitCheckpoint } from './witness/admit-checkpoint';
export { attachCosignatures } from './witness/attach-cosignatures';
export { parseConflictSize } from './witness/conflict-size';
export { cosign } from './witness/cosign';
export {
  COSIGNATURE_V1_BYTES,
  cosignatureMessage,
  verifyCosignature,
} from './witness/cosignature';
export {
  COSIGNATURE_V1_TYPE,
  type CosignerKey,
  claimsCosigner,
  cosignerKey,
  cosignerKeyHash,
  formatCosignerKey,
  parseCosignerKey,
} from './witness/cosigner-key';
export { type CosignDecision, decideAddCheckpoint } from './witness/decide-add-checkpoint';
export { decideReAnchor } from './witness/decide-re-anchor';
export {
  checkPolicy,
  type PolicyAccepted,
  type PolicyCheckInput,
  PolicyRefusal,
  type PolicyRefused,
} from './witness/policy-check';
export { quorumMet } from './witness/quorum-met';
export {
  formatReAnchorRequest,
  parseReAnchorRequest,
  RE_ANCHOR_PATH,
  type ReAnchorRequest,
} from './witness/re-anchor-request';
export { parseRecoveryKeys } from './witness/recovery-keys';
export { type PolicyWitness, parsePolicy, type QuorumRule, type TlogPolicy } from './witness/tlog-policy';
export { parseTrustedLogs, type TrustedLogs } from './witness/trusted-logs';
export type { WitnessRefusal } from './witness/witness-refusal';
export {
  conflictResponse,
  cosignedResponse,
  refusalResponse,
  TLOG_SIZE_CONTENT_TYPE,
  type WitnessResponse,
  WitnessStatus,
} from './witness/witness-response';
export type { WitnessState } from './witness/witness-state';
export { MAX_PAYLOAD_BYTES } from './write/json-payload';
export { type FreshnessProbeReceipt, FreshnessProbeReceiptSchema } from './write/receipts';
export { type SessionSnapshotBoundary, SessionSnapshotBoundarySchema } from './write/session-boundary';
export { type SessionVariable, SessionVariableSchema, VariableFreshness } from './write/session-variable';
export { valueDigest } from './write/value-digest';
export { type ResidualWriteRequest, ResidualWriteRequestSchema } from './write/write-request';
