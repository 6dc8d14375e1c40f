/**
 * Public surface of the Reseal agent client (named exports only; files inside `client/` import
 * each other directly, never through this barrel).
 */

export { KmsWriterSigner } from '../adapters/kms-writer-signer';
export { LocalWriterSigner } from '../shared/authorship/local-writer-signer';
export { TenantMismatchError, TenantRequiredError } from '../shared/errors';
export type { ManifestCache } from '../shared/ports/manifest-cache';
export type { WriterSigner } from '../shared/ports/writer-signer';
export { DEFAULT_PAGE_SIZE } from '../shared/seal/lineage-pages';
export type { LineageProgress } from '../shared/seal/lineage-progress';
export { buildManifest } from '../shared/triage/build-manifest';
export type { BuildManifestInput } from '../shared/triage/build-manifest-input';
export type { CheckpointStore } from './checkpoint-store';
export { type ConnectOptions, connectToStack, type StackConnection } from './connect';
export {
  type DeploymentChainEvidence,
  DeploymentChainReader,
  type DeploymentChainReaderDeps,
  type FreshnessKeys,
} from './deployment-chain-reader';
export {
  CheckpointFileError,
  HiddenSealError,
  LogVerificationError,
  NotIntegratedError,
  PublishError,
  StackOutputsError,
  TimeoutError,
  UnverifiedOutcomeError,
} from './errors';
export { type CommandRun, type CommandRunner, execFileRunner } from './exec-file-runner';
export { CheckpointFileSchema, FileCheckpointStore } from './file-checkpoint-store';
export { FileManifestCache } from './file-manifest-cache';
export {
  DEFAULT_INTEGRATION_INTERVAL_SECONDS,
  DEFAULT_MAX_AGE_SECONDS,
  type DefaultPolicyWitness,
  defaultPolicyText,
  type FreshnessPolicy,
  freshnessPolicy,
  type PolicyWitnessing,
} from './freshness-policy';
export {
  type LineageExport,
  type LineageExportEnvelope,
  LineageExportEnvelopeSchema,
  LineageExportSchema,
} from './lineage-export';
export {
  LineageTreeHeads,
  type LineageTreeHeadsDeps,
  type ReadLineageTreeHead,
} from './lineage-tree-heads';
export { type LatestCheckpoint, LogReader, type ProvenRecord } from './log-reader';
export { MemoryCheckpointStore } from './memory-checkpoint-store';
export type { WaitOptions } from './poll';
export { PUBLISH_CLOCK_SKEW_MS, publishWaitSince } from './publish-wait-since';
export type { PublishedWrite, RecallRequest } from './publisher';
export {
  type LineageAuthentication,
  type LineageReader,
  ResealClient,
  type ResealClientDeps,
  type VerifyLineageOptions,
  type VerifyStoredLineageOptions,
} from './reseal-client';
export {
  DEFAULT_COMMAND_TIMEOUT_MS,
  type LoadedResealConfig,
  loadResealConfig,
  RESEAL_CONFIG_FILE,
  type ResealConfig,
  ResealConfigSchema,
  type SnapshotCommand,
  type SnapshotConfig,
  SnapshotConfigSchema,
} from './reseal-config';
export {
  SnapshotKeyPrefix,
  type SnapshotProviderOptions,
  type SnapshotSource,
  snapshotProviders,
  type TakenSnapshot,
} from './snapshot-providers';
export { soleWriterLineageId, soleWriterPolicy } from './sole-writer-policy';
export {
  clientOutputsFrom,
  DEFAULT_STACK_NAME,
  type ResealStackOutputs,
  resolveStackOutputs,
} from './stack-outputs';
export { UnavailableMacAnchor } from './unavailable-mac-anchor';
export { constantVariable, freshVariable, inheritedVariable, type ProbeInfo, reprobedVariable } from './variables';
export {
  decideRecall,
  type Freshness,
  type RecallChecks,
  RecallEnd,
  type RecallRefusal,
  type TruncationReference,
  type VerifiedRecall,
} from './verified-recall';
export { type VerifyRecordsOptions, verifyRecords } from './verify-records';
export { type WaitForOutcomeOptions, type WriteOutcome, WriteOutcomes } from './write-outcomes';
export { type WriteRequestInput, writeRequest } from './write-request';
export { writerKeyFile, writerKeyIdOfFile } from './writer-key-file';
export { type AdmittingKeyRole, type WrittenBy, writtenByOf, writtenByProven, writtenByText } from './written-by';
