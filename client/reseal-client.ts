import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDeploymentLogStore } from '../adapters/dynamodb-deployment-log-store';
import { KMSMacAnchor } from '../adapters/kms-mac-anchor';
import { KMSNoteVerifierKey } from '../adapters/kms-note-verifier-key';
import type { LineagePolicy } from '../shared/authorship/lineage-policy';
import { InvalidInputError, LineageNotFoundError } from '../shared/errors';
import type { ChainReceipt } from '../shared/integrator/chain-receipt';
import { FreshnessState, type ReadDeploymentChain } from '../shared/integrator/record-freshness';
import type { LineageLogView, WalkTreeHead } from '../shared/log/lineage-log-view';
import { guardKeyName, sealerKeyName } from '../shared/log/log-names';
import type { NoteVerifierKey } from '../shared/log/note-key';
import type { Receipt } from '../shared/log/receipt';
import type { SeenSeal } from '../shared/log/seen-seal';
import { verifyLineageBySignedTree } from '../shared/log/signed-tree-walk';
import { verifyStoredLineage } from '../shared/log/stored-lineage';
import type { VerifiedCheckpoint } from '../shared/log/verified-checkpoint';
import { checkWalkAgainstLog, type WalkAgainstLog } from '../shared/log/walk-against-log';
import { planWalk } from '../shared/log/walk-plan';
import { walkedTreeFor } from '../shared/log/walked-records';
import type { TriageCompletedDetail } from '../shared/pipeline/triage-completed-detail';
import type { DeploymentLogReads } from '../shared/ports/deployment-log-reads';
import type { IndexNodeStore } from '../shared/ports/index-node-store';
import type { ConflictRecord, LineageStore, RejectionRecord } from '../shared/ports/lineage-store';
import type { MacAnchor } from '../shared/ports/mac-anchor';
import type { ManifestCache } from '../shared/ports/manifest-cache';
import type { WriterSigner } from '../shared/ports/writer-signer';
import { parseInput } from '../shared/schemas/parse';
import type { ChainVerification } from '../shared/seal/chain-verification';
import type { LineageHead } from '../shared/seal/lineage-head';
import type { LineageProgress } from '../shared/seal/lineage-progress';
import type { TrustedHead } from '../shared/seal/trusted-head';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import { verifyLineagePages } from '../shared/seal/verify-lineage-pages';
import { assertLineageOfTenant, TenantId } from '../shared/tenancy/tenants';
import type { ResidualWriteRequest, UnsignedWriteRequest } from '../shared/write/write-request';
import { buildChainReceipt } from './chain-receipts';
import type { CheckpointStore } from './checkpoint-store';
import { clientLineageStore } from './client-lineage-store';
import { clientTileCache } from './client-tile-cache';
import { DeploymentChainReader, type FreshnessKeys } from './deployment-chain-reader';
import { LogVerificationError } from './errors';
import { defaultPolicyText, type FreshnessPolicy, freshnessPolicy } from './freshness-policy';
import type { LineageExport } from './lineage-export';
import { lineageLogView } from './lineage-log-view';
import type { ReadLineageTreeHead } from './lineage-tree-heads';
import { checkLocalAdmission } from './local-admission';
import { type LatestCheckpoint, LogReader, type ProvenRecord } from './log-reader';
import type { WaitOptions } from './poll';
import { type PublishedWrite, type RecallRequest, StackPublisher } from './publisher';
import { type ReadExportOptions, readLineageExport } from './read-export';
import { Recalls } from './recalls';
import { SeenSeals } from './seen-seals';
import { soleWriterPolicy, withInceptionPolicy } from './sole-writer-policy';
import type { ResealStackOutputs } from './stack-outputs';
import type { Freshness, VerifiedRecall } from './verified-recall';
import { verifyRecords } from './verify-records';
import { type FreshVerification, walkFreshness } from './walk-freshness';
import { noteWalkPage, type WalkedPages, walkReads } from './walk-reads';
import { type Signed, type WaitForOutcomeOptions, type WriteOutcome, WriteOutcomes } from './write-outcomes';

/** The reads the client makes on the lineage table (the `LineageStore` port, read side). */
export type LineageReader = Pick<
  LineageStore,
  | 'head'
  | 'lastRecordSeq'
  | 'readChain'
  | 'getTriageReport'
  | 'readRecord'
  | 'findByResidualId'
  | 'listConflicts'
  | 'listRejections'
  | 'logHead'
  | 'readNodes'
>;

/** Optional collaborators of {@link ResealClient}; each defaults to an AWS SDK client from the environment. */
export interface ResealClientDeps {
  readonly sqs?: Pick<SQSClient, 'send'>;
  readonly eventBridge?: Pick<EventBridgeClient, 'send'>;
  /** Reads of the lineage table; default `clientLineageStore` over `dynamodb` (it keeps the manifests it read). */
  readonly store?: LineageReader;
  /**
   * Where the default `store` keeps the manifests it proved (`clientLineageStore`; default the
   * last 64 in memory): a `FileManifestCache` keeps them across processes, as the CLI does.
   * Unused with a `store` of your own.
   */
  readonly manifestCache?: ManifestCache;
  /** The lineage table's client; a `DynamoDBClient` itself, as the SDK's paginators require. */
  readonly dynamodb?: DynamoDBClient;
  /** Anchor that checks MACs; default `KMSMacAnchor` over `kms` with the stack's key ARN. */
  readonly anchor?: MacAnchor;
  readonly kms?: Pick<KMSClient, 'send'>;
  /**
   * The log's verifier key, pinned (e.g. parsed with `parseVerifierKey` from a trusted copy);
   * default: read once with KMS `GetPublicKey` of the stack's `LogKeyArn`.
   */
  readonly logKey?: NoteVerifierKey;
  /** The guard's verifier key, pinned; default: KMS `GetPublicKey` of `GuardKeyArn`. */
  readonly guardKey?: NoteVerifierKey;
  /** The sealer's verifier key (its refusals), pinned; default: KMS `GetPublicKey` of `SealerKeyArn`. */
  readonly sealerKey?: NoteVerifierKey;
  /**
   * Where the last verified checkpoint per lineage, and the newest authenticated deployment
   * checkpoint, are kept (e.g. a `FileCheckpointStore`); every read is checked consistent with
   * them (docs/verifiable-log.md, "Checkpoints the client keeps"). Without one, a rollback of the
   * table cannot be seen.
   */
  readonly checkpointStore?: CheckpointStore;
  /**
   * The writer key that signs every published write (docs/authorship.md, "Signed writes"): a
   * `LocalWriterSigner` (PKCS #8 PEM) or a `KmsWriterSigner`. Without one, only requests already
   * signed are published.
   */
  readonly writer?: WriterSigner;
  /**
   * The policy a lineage's first write sets when the request names none (docs/authorship.md,
   * "Self-certifying lineage ids"); default `soleWriterPolicy(writer)`. It is added only when the
   * lineage id certifies it and the lineage has no head yet.
   */
  readonly inceptionPolicy?: LineagePolicy;
  /**
   * The tenant this client acts for, in a stack with tenants (docs/authorship.md, "Tenancy"):
   * its recalls are put with the tenant's source `reseal.tenant.<id>`, the only one IAM lets the
   * tenant's principals put and the one triage scopes a recall by (docs/triage.md, "Tenants").
   * A write, a wait or a recall naming a lineage outside `<tenantId>/` is refused
   * `TenantMismatchError` before anything is read, signed or sent (docs/authorship.md, "Tenancy",
   * "Refused at the caller"). Checked as a tenant id. @default none: one tenant, source `reseal`
   */
  readonly tenantId?: string;
  /**
   * The deployment log's reads (docs/deployment-log.md, "Clients"); default
   * `DynamoDBDeploymentLogStore` over `dynamodb` when `store` is not given. A client given a
   * `store` but no `deploymentLog` checks no freshness (`freshness: null`).
   */
  readonly deploymentLog?: DeploymentLogReads;
  /**
   * The verifiable index's nodes; default `DynamoDBIndexNodeStore` over `dynamodb`, as
   * `deploymentLog`, behind a cache of the tiles read ({@link clientTileCache}).
   */
  readonly indexNodes?: IndexNodeStore;
  /**
   * The C2SP tlog-policy deployment checkpoints must meet, with its maximum age and the stack's
   * integration interval (`freshnessPolicy(text, maxAgeSeconds, intervalSeconds)`); default
   * `defaultPolicyText(logKey)`: the log alone, `UNWITNESSED`. When the outputs name the stack's
   * interval (`integrationIntervalSeconds`), the client uses that one, not the policy's: the
   * freshness window is maximum age + the stack's real interval (docs/deployment-log.md).
   */
  readonly policy?: FreshnessPolicy;
  /** Clock, ms since the Unix epoch (default `Date.now`). */
  readonly nowMs?: () => number;
  /** Waits `ms` milliseconds (default `setTimeout`). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** A walk tied to the signed log ({@link WalkAgainstLog}), its head placed against the deployment log. */
export type FreshWalk = WalkAgainstLog & {
  readonly verification: FreshVerification;
  /** The head's freshness (docs/deployment-log.md, "Clients"); `null` when not checked. */
  readonly freshness: Freshness | null;
};

/** Options of {@link ResealClient.verifyLineage}. */
export interface VerifyLineageOptions {
  /** A head the caller trusts (e.g. from a `ResidualSealed` event): detects truncation and rewrites. */
  readonly checkpoint?: TrustedHead;
  /** Called after each page of records is verified. */
  readonly onProgress?: (progress: LineageProgress) => void;
  /** Records per page (default 500). */
  readonly pageSize?: number;
}

/** How {@link ResealClient.verifyStoredLineage} authenticates the records (docs/verifiable-log.md, "Verifying a whole lineage"). */
export type LineageAuthentication = 'signed-tree' | 'macs';

/** Options of {@link ResealClient.verifyStoredLineage}. */
export interface VerifyStoredLineageOptions extends VerifyLineageOptions {
  /**
   * `macs`: one KMS `VerifyMac` per record (the audit); `signed-tree`: no MAC call, every record
   * proven a leaf of the lineage's tree head, vouched for by its index entry under the deployment
   * checkpoint (a head the sealer MAC'd) or by a signed lineage checkpoint (a head stored before the
   * sealer stopped signing; `verifyLineageBySignedTree`). @default 'macs'
   */
  readonly authentication?: LineageAuthentication;
}

/**
 * The agent-side client of a deployed Reseal stack: publishes residual writes to SQS, requests
 * recalls on EventBridge, waits for triage reports, and reads, exports and verifies lineages.
 * One facade over one collaborator per concept: {@link StackPublisher} (what is sent),
 * {@link Recalls} (recalls, checked), {@link WriteOutcomes} (what became of a write),
 * {@link LogReader} (the signed log), `readLineageExport` and the verifiers.
 *
 * Every answer it returns for action is checked with public keys alone (docs/verifiable-log.md):
 * outcomes and recalls are proven in the head item's tree, which the index entry under a deployment
 * checkpoint meeting the policy vouches for (a head the sealer MAC'd: until then, awaiting
 * integration) or a signed lineage checkpoint (heads stored before the sealer stopped signing);
 * the newest of each is kept in `checkpointStore`, with the seals seen awaiting integration.
 *
 * @example
 * const outputs = await resolveStackOutputs('ResealStack', new CloudFormationClient({}));
 * const client = new ResealClient(outputs, { checkpointStore: new FileCheckpointStore('.reseal/checkpoints.json') });
 * const published = await client.publishWrite(request);
 * const outcome = await client.waitForOutcome(request.lineageId, request.residualId, {
 *   request: published.request,
 *   sinceMs: publishWaitSince(published),
 * });
 * const recall = await client.recall({ lineageId, target: { latest: true }, currentEnv });
 * if (recall.verdict === 'VERIFIED_INTACT') keep(recall.delta?.retainedClaims);
 */
export class ResealClient {
  readonly outputs: ResealStackOutputs;
  readonly #store: LineageReader;
  readonly #anchor: MacAnchor;
  readonly #log: LogReader;
  /** The log key and checkpoint store `#log` reads with, for a walk's own reader ({@link ResealClient.verifyStoredLineage}). */
  readonly #logKey: () => Promise<NoteVerifierKey>;
  readonly #checkpoints: CheckpointStore | null;
  readonly #publisher: StackPublisher;
  readonly #recalls: Recalls;
  readonly #outcomes: WriteOutcomes;
  readonly #seen: SeenSeals;
  readonly #nowMs: () => number;
  readonly #inceptionPolicy: LineagePolicy | null;
  readonly #guardKey: () => Promise<NoteVerifierKey>;
  readonly #sealerKey: () => Promise<NoteVerifierKey>;
  readonly #freshness: DeploymentChainReader | null;
  readonly #tenantId: string | undefined;

  constructor(outputs: ResealStackOutputs, deps: ResealClientDeps = {}) {
    this.outputs = outputs;
    this.#store =
      deps.store ?? clientLineageStore(deps.dynamodb ?? new DynamoDBClient({}), outputs.tableName, deps.manifestCache);
    const kms = deps.kms ?? new KMSClient({});
    this.#anchor = deps.anchor ?? new KMSMacAnchor(kms, outputs.macKeyArn);
    this.#nowMs = deps.nowMs ?? Date.now;
    this.#inceptionPolicy = deps.inceptionPolicy ?? (deps.writer ? soleWriterPolicy(deps.writer) : null);
    this.#tenantId = deps.tenantId === undefined ? undefined : parseInput(TenantId, deps.tenantId, 'tenantId');
    const clock = {
      nowMs: this.#nowMs,
      sleep: deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
    };
    const pinned = (key: NoteVerifierKey | undefined, keyId: string, name: string) => {
      if (key) return async () => key;
      const fromKms = new KMSNoteVerifierKey(kms, keyId, name);
      return () => fromKms.get();
    };
    // The chain reader reads the log key through #log only when first asked (its default policy).
    this.#freshness = this.#chainReader(deps);
    this.#logKey = pinned(deps.logKey, outputs.logKeyArn, outputs.logName);
    this.#checkpoints = deps.checkpointStore ?? null;
    this.#log = new LogReader(this.#store, this.#logKey, this.#checkpoints, this.#freshness);
    this.#publisher = new StackPublisher({
      outputs,
      sqs: deps.sqs ?? new SQSClient({}),
      eventBridge: deps.eventBridge ?? new EventBridgeClient({}),
      nowMs: this.#nowMs,
      ...(deps.writer ? { writer: deps.writer } : {}),
      ...(this.#tenantId === undefined ? {} : { tenantId: this.#tenantId }),
    });
    // The seals seen awaiting integration live in the checkpoint store, keyed by lineage origin.
    const seen = new SeenSeals(this.#checkpoints, async () => (await this.#logKey()).name, this.#nowMs);
    this.#seen = seen;
    this.#recalls = new Recalls({
      store: this.#store,
      log: this.#log,
      publisher: this.#publisher,
      freshness: this.#freshness,
      seen,
      ...clock,
    });
    this.#guardKey = pinned(deps.guardKey, outputs.guardKeyArn, guardKeyName(outputs.logName));
    this.#sealerKey = pinned(deps.sealerKey, outputs.sealerKeyArn, sealerKeyName(outputs.logName));
    this.#outcomes = new WriteOutcomes({
      store: this.#store,
      log: this.#log,
      guardKey: this.#guardKey,
      sealerKey: this.#sealerKey,
      logName: outputs.logName,
      freshness: this.#freshness,
      seen,
      ...clock,
    });
  }

  /** The deployment chain's reader: the given or default adapters, or `null` (a custom `store` without `deploymentLog`). */
  #chainReader(deps: ResealClientDeps): DeploymentChainReader | null {
    const dynamodb = deps.dynamodb ?? new DynamoDBClient({});
    const log =
      deps.deploymentLog ?? (deps.store ? null : new DynamoDBDeploymentLogStore(dynamodb, this.outputs.tableName));
    const index = deps.indexNodes ?? (deps.store ? null : clientTileCache(dynamodb, this.outputs.tableName));
    if (!log || !index) return null;
    // The window is stated with the stack's own interval when its outputs name one: a policy read
    // with the default 2 s would overstate the freshness of a stack deployed with a longer interval.
    const interval = this.outputs.integrationIntervalSeconds;
    const given =
      deps.policy && interval !== undefined && deps.policy.intervalSeconds !== interval
        ? freshnessPolicy(deps.policy.text, deps.policy.maxAgeSeconds, interval)
        : deps.policy;
    let policy: Promise<FreshnessPolicy> | null = given ? Promise.resolve(given) : null;
    return new DeploymentChainReader({
      log,
      index,
      nowMs: this.#nowMs,
      // The store keeps the newest deployment checkpoint too: a table rolled back behind it is refused.
      kept: deps.checkpointStore ?? null,
      policy: () => {
        policy ??= this.#log.key().then((key) => freshnessPolicy(defaultPolicyText(key), undefined, interval));
        // A failed key read is retried on the next call rather than remembered.
        return policy.catch((error: unknown) => {
          policy = null;
          throw error;
        });
      },
    });
  }

  // --- publish (StackPublisher) ---

  /**
   * Signs a residual write with the client's writer key and sends it to the `residual-writes`
   * queue (the guard Lambda consumes it). The request is validated with the core schema first,
   * so a malformed write never leaves the agent; the body is its RFC 8785 canonical JSON. An
   * honest client checks its own signature and admission first (docs/authorship.md, "Two
   * refusals, in order"): those refusals are recorded unsigned, so they could never be proven.
   *
   * @returns the SQS `MessageId`, the client's clock before sending (`publishedAtMs`) and the
   *   signed request: pass that request and {@link publishWaitSince} of it to
   *   {@link ResealClient.waitForOutcome}
   * @throws {InvalidInputError} naming each bad field, an unsigned request without a writer key,
   *   a bad signature, or a writer the lineage's policy visibly does not admit
   * @throws {TenantMismatchError} when the lineage is not of the client's tenant (nothing read, signed or sent)
   * @throws {TenantRequiredError} on a stack with tenants, when the client names none of them (nothing read, signed or sent)
   * @throws {PublishError} when SQS returns no message id
   */
  async publishWrite(request: UnsignedWriteRequest | ResidualWriteRequest): Promise<PublishedWrite> {
    if (typeof request.lineageId === 'string') assertLineageOfTenant(request.lineageId, this.#tenantId);
    this.#publisher.writeQueueUrl(); // a caller of no tenant of a stack with tenants: nothing read
    const prepared = this.#inceptionPolicy
      ? await withInceptionPolicy(this.#store, request, this.#inceptionPolicy)
      : request;
    const signed = await this.#publisher.signedRequest(prepared);
    await checkLocalAdmission(this.#store, signed);
    return this.#publisher.publishSigned(signed);
  }

  /**
   * Puts a `RecallRequested` event (source `reseal`) on the stack's bus; the triage Lambda
   * answers with a report stored under `TRIAGE#<lineageId>` / `<requestId>`.
   *
   * @returns the request id (the one given, or a generated `recall-<uuid>`)
   * @throws {InvalidInputError} naming each bad field of the detail, or (at `currentEnv`) an
   *   entry over EventBridge's PutEvents limit (`MAX_EVENT_ENTRY_BYTES`), before anything is sent
   * @throws {TenantMismatchError} when the lineage is not of the client's tenant (nothing put)
   * @throws {TenantRequiredError} on a stack with tenants, when the client names none of them (nothing put)
   * @throws {PublishError} when EventBridge refuses the entry
   */
  requestRecall(detail: RecallRequest): Promise<string> {
    return this.#publisher.requestRecall(detail);
  }

  // --- recall (Recalls) ---

  /**
   * Polls the table until the triage report of a recall appears.
   *
   * @throws {TimeoutError} naming the report when it does not appear within `timeoutMs`
   * @throws {TenantMismatchError} when the lineage is not of the client's tenant (nothing read)
   */
  async waitForTriageReport(
    lineageId: string,
    requestId: string,
    options: WaitOptions = {},
  ): Promise<TriageCompletedDetail> {
    assertLineageOfTenant(lineageId, this.#tenantId);
    return this.#recalls.waitForTriageReport(lineageId, requestId, options);
  }

  /**
   * Requests a recall, waits for triage's answer and checks it with public keys alone
   * (`checkRecallAnswer`): the record proven in the head item's tree, consistent with the kept
   * one (sent as `trustedCheckpoint`), and vouched for by the lineage's index entry under the
   * deployment checkpoint (a head the sealer MAC'd; else the recall ends awaiting integration) or
   * by its signed lineage checkpoint (heads stored before the sealer stopped signing); and the delta
   * recomputed from the proven record and `currentEnv`. A proven newer signed checkpoint is kept.
   * The stored answer is never acted on as is (docs/verifiable-log.md, "Recall").
   *
   * @throws {TimeoutError} when no answer appears within `timeoutMs` (default 60,000)
   * @throws {LogVerificationError} when the kept checkpoint does not verify
   * @throws {TenantMismatchError} when the lineage is not of the client's tenant (nothing read or put)
   */
  async recall(request: RecallRequest, options: WaitOptions = {}): Promise<VerifiedRecall> {
    if (typeof request.lineageId === 'string') assertLineageOfTenant(request.lineageId, this.#tenantId);
    return this.#recalls.recall(request, options);
  }

  /**
   * A recall the client proves itself, without triage's event round trip (docs/verifiable-log.md,
   * "Recall", "Without triage"): the record (the latest, a seq, or a residual id's) proven in the
   * head item's tree, consistent with the kept checkpoint, vouched for by the lineage's index entry
   * under the deployment checkpoint meeting the policy (else awaiting integration) or by its signed
   * lineage checkpoint, and the delta computed from the proven record and `currentEnv`: the same
   * checks and the same {@link VerifiedRecall} as {@link recall}, with no `RecallRequested` put and
   * no triage report stored (`report` is the client's own answer). For an agent that needs the
   * record, not triage's event for orchestration.
   *
   * @throws {InvalidInputError} naming each bad field of the request, or a `trustedCheckpoint` that does not verify
   * @throws {LogVerificationError} when the kept checkpoint does not verify
   * @throws {TenantMismatchError} when the lineage is not of the client's tenant (nothing read)
   * @example
   * const recall = await client.recallDirect({ lineageId, target: { latest: true }, currentEnv });
   * if (recall.verdict === 'VERIFIED_INTACT' && recall.freshness?.state === 'PROVEN') keep(recall.delta);
   */
  async recallDirect(request: RecallRequest): Promise<VerifiedRecall> {
    if (typeof request.lineageId === 'string') assertLineageOfTenant(request.lineageId, this.#tenantId);
    return this.#recalls.recallDirect(request);
  }

  // --- outcomes (WriteOutcomes), proven with public keys alone (docs/verifiable-log.md) ---

  /**
   * Polls the table until the write `residualId` on `lineageId` has a proven outcome: its record
   * proven by inclusion in the head item's tree (a signed lineage checkpoint, or a head the sealer
   * MAC'd, which only the index vouches for: `freshness`) consistent with the kept one (and binding
   * `options.request`'s content), or a refusal signed by the function that decided it and naming
   * this write. Unsigned or forged items are ignored. A newer verified checkpoint is kept. A
   * `SEALED` outcome carries `freshness` (docs/deployment-log.md, "Clients"): `PROVEN` once the
   * deployment log's index covers the record; with `untilProven` the wait goes on until then, and
   * a seal still awaiting integration at the deadline is returned as `SEALED_AWAITING_INTEGRATION`.
   *
   * @throws {TimeoutError} naming the write when nothing proven appears within `timeoutMs` (default 60,000)
   * @throws {UnverifiedOutcomeError} when the marker names a record that cannot be proven
   * @throws {HiddenSealError} when nothing came but this write's seal is proven without a marker
   * @throws {InvalidInputError} when `options.request` names another lineage or residual id
   * @throws {TenantMismatchError} when the lineage is not of the client's tenant (nothing read)
   * @example
   * const published = await client.publishWrite(request);
   * const outcome = await client.waitForOutcome(request.lineageId, request.residualId, {
   *   request,
   *   sinceMs: publishWaitSince(published),
   *   timeoutMs: 30_000,
   * });
   * if (outcome.kind === 'SEALED') console.log(outcome.head.seq, outcome.checkpoint);
   */
  async waitForOutcome(
    lineageId: string,
    residualId: string,
    options: WaitForOutcomeOptions = {},
  ): Promise<WriteOutcome> {
    // Another tenant's partitions are not this client's to read (docs/authorship.md, "Tenancy", "Reads").
    assertLineageOfTenant(lineageId, this.#tenantId);
    return this.#outcomes.waitFor(lineageId, residualId, options);
  }

  /**
   * The rejection and conflict records filed under a lineage, oldest first (from the table,
   * diagnostic: they are not part of the sealed chain), each marked `signatureVerified` when its
   * signed statement checks; an unmarked one may be a forgery. Rejections of bodies too broken to
   * name their lineage are not among them.
   */
  readRefusals(
    lineageId: string,
  ): Promise<{ rejections: (RejectionRecord & Signed)[]; conflicts: (ConflictRecord & Signed)[] }> {
    return this.#outcomes.readRefusals(lineageId);
  }

  // --- freshness (the deployment log, docs/deployment-log.md, "Clients") ---

  /**
   * Reads and verifies the freshness chain of a lineage (and one of its residual ids) from the
   * table: the published deployment checkpoint against the policy, its last leaf's index root,
   * and the index proofs, each node re-hashed.
   *
   * @returns the chain (`PROVEN` with the index entries, `ABSENT` as of the checkpoint,
   *   `REFUSED` with its code, or `UNPUBLISHED`) and the policy it was checked against
   * @throws {InvalidInputError} when this client reads no deployment log (built on a custom
   *   `store` without `deploymentLog` and `indexNodes`)
   */
  async proveFreshness(keys: FreshnessKeys): Promise<{ chain: ReadDeploymentChain; policy: FreshnessPolicy }> {
    const reader = this.#requireFreshness();
    return { chain: await reader.read(keys), policy: await reader.policy() };
  }

  /**
   * The policy this client checks deployment checkpoints against (the one given, or the stack's
   * default from its log key), with the stack's integration interval when its outputs name one.
   * @throws {InvalidInputError} when this client reads no deployment log
   */
  freshnessPolicy(): Promise<FreshnessPolicy> {
    return this.#requireFreshness().policy();
  }

  #requireFreshness(): DeploymentChainReader {
    if (this.#freshness) return this.#freshness;
    throw new InvalidInputError('freshness', [
      {
        path: 'deploymentLog',
        message: 'this client was built on a custom store without deploymentLog and indexNodes',
      },
    ]);
  }

  // --- the signed log (LogReader) ---

  /**
   * The head item's tree of a lineage: its signed lineage checkpoint (heads stored before the
   * sealer stopped signing), verified and consistent with the kept one (which it then replaces), or
   * the tree a head the sealer MAC'd claims (`note` `null`: the sealer's word, which only the index
   * entry under the deployment checkpoint vouches for, `lineageTreeHead`; never kept), or `null` for
   * an unknown lineage.
   * @throws {LogVerificationError} on a rollback, a fork, or a checkpoint that does not verify
   */
  latestCheckpoint(lineageId: string): Promise<LatestCheckpoint | null> {
    return this.#log.latestKept(lineageId);
  }

  /**
   * Whether this client keeps checkpoints (`checkpointStore`): the signed lineage checkpoints and
   * the deployment checkpoint it authenticates (docs/verifiable-log.md, "Checkpoints the client keeps").
   */
  get keepsCheckpoints(): boolean {
    return this.#checkpoints !== null;
  }

  /**
   * The signed checkpoint kept for a lineage in the checkpoint store, verified again, or `null`
   * (no store, or nothing kept yet): what a rollback is checked against.
   * @throws {LogVerificationError} when the kept note does not verify
   */
  keptCheckpoint(lineageId: string): Promise<VerifiedCheckpoint | null> {
    return this.#log.trusted(lineageId);
  }

  /**
   * The lineage's tree head a whole-lineage walk is tied to (`LineageTreeHeads.read`: the index
   * entry under the deployment checkpoint this client verifies against its policy, a signed lineage
   * checkpoint only where the index does not contradict it; docs/deployment-log.md, "Clients"), or
   * `UNAVAILABLE` when this client reads no deployment log.
   * @throws what the table reads throw (an outage)
   */
  async readLineageTreeHead(lineageId: string): Promise<WalkTreeHead> {
    if (this.#freshness === null) return { kind: 'UNAVAILABLE', reason: 'this client reads no deployment log' };
    return this.lineageTreeHead(lineageId);
  }

  /** The log a walk of this client is tied to: the signed lineage log, the kept checkpoint and the index. */
  #lineageLog(): LineageLogView {
    return lineageLogView(this.#log, (lineageId) => this.readLineageTreeHead(lineageId));
  }

  /**
   * Ties a walked lineage ({@link ResealClient.verifyLineage}, {@link ResealClient.verifyExport})
   * to its log (`checkWalkAgainstLog`, shared/log/walk-against-log.ts; docs/verifiable-log.md,
   * "Verifying a whole lineage"): the head item's signed lineage checkpoint (kept), covering
   * exactly the walked records; or, for a head without one, the tree head the index holds, whose
   * root the walked records' must be, the records past it awaiting integration. The tree head is
   * read now, after the walk: {@link ResealClient.readVerifiedLineage} reads it first.
   *
   * @param records - the walked records in seq order (read again from the table when not given)
   * @returns the verification (its verdict and first failure updated when the log disagrees) and
   *   what the log showed, or `log: null` when there is nothing to compare
   */
  async checkWalkAgainstLog(
    lineageId: string,
    verification: ChainVerification,
    records?: readonly unknown[],
  ): Promise<FreshWalk> {
    const view = this.#lineageLog();
    const seals = await this.#seen.load(lineageId);
    const plan = await planWalk(view, this.#store, lineageId);
    const tree = walkedTreeFor(plan);
    const walkedRecords =
      plan.by === 'index' || seals.length > 0 ? (records ?? (await this.exportLineage(lineageId)).records) : [];
    if (plan.by === 'index') tree.add(walkedRecords);
    const walked = await checkWalkAgainstLog(view, this.#store, lineageId, verification, { plan, tree });
    const headSize =
      plan.by === 'index' ? (plan.storedHead === null ? null : plan.storedHead.seq + 1) : (walked.log?.size ?? null);
    return this.#fresh(lineageId, walked, walkedSeals(seals, headSize, walkedRecords));
  }

  /**
   * Reads a whole lineage ({@link ResealClient.exportLineage}), verifies it with this client's
   * anchor ({@link ResealClient.verifyExport}) and ties it to its log as
   * {@link ResealClient.checkWalkAgainstLog} does, the tree head read before the records (so a
   * write integrated meanwhile is never taken for a rollback); its head then placed against the
   * deployment log. What `reseal inspect --lineage` and `reseal report --lineage` show.
   *
   * @throws {LineageNotFoundError} when the lineage has neither records nor a head, and nothing this client reads knows it
   * @throws {LogVerificationError} when it has neither but this client knows it: `TRUNCATION_DETECTED` (a kept
   *   checkpoint), `UNVERIFIED_TAMPER_RISK` (the index holds it, or a seal kept of it; {@link ResealClient.wipedLineageFinding})
   */
  async readVerifiedLineage(
    lineageId: string,
    options: ReadExportOptions & { readonly checkpoint?: TrustedHead } = {},
  ): Promise<{ readonly exported: LineageExport; readonly walked: FreshWalk }> {
    const view = this.#lineageLog();
    const seals = await this.#seen.load(lineageId);
    const plan = await planWalk(view, this.#store, lineageId);
    const exported = await this.exportLineage(lineageId, options.onProgress ? { onProgress: options.onProgress } : {});
    const tree = walkedTreeFor(plan);
    tree.add(exported.records);
    const verification = await this.verifyExport(
      exported,
      options.checkpoint ? { checkpoint: options.checkpoint } : {},
    );
    const walked = await checkWalkAgainstLog(view, this.#store, lineageId, verification, { plan, tree });
    // The seals are held against the head the export read with the records: no second head read.
    const headSize = exported.head === null ? null : exported.head.seq + 1;
    return {
      exported,
      walked: await this.#fresh(lineageId, walked, walkedSeals(seals, headSize, exported.records)),
    };
  }

  /**
   * A walk tied to the log, its head then placed against the deployment log
   * ({@link ResealClient.lineageFreshness}), and held against the seals this client kept
   * (`seen`: what the walk itself read of them).
   */
  async #fresh(lineageId: string, walked: WalkAgainstLog, seen: SealsInWalk): Promise<FreshWalk> {
    const verification = this.#unlessSeenRolledBack(
      await this.lineageFreshness(lineageId, walked.verification, walked),
      seen,
    );
    await this.#settleSeals(lineageId, walked, seen);
    return { ...walked, verification, freshness: verification.freshness };
  }

  /**
   * Forgets the seals a walk found the index covering, as a recall does (docs/verifiable-log.md,
   * "Seals seen awaiting integration"): after the walk held them against what it read (a
   * contradiction of one reported this once), the seals below the index's size for the lineage are
   * settled by the index, which the kept deployment checkpoint then guards. Only an intact walk the
   * index vouches for (`PROVEN`: it holds exactly the walked records; `SEALED_AWAITING_INTEGRATION`:
   * it holds them up to the first seq awaiting) settles anything.
   */
  async #settleSeals(lineageId: string, walked: Pick<WalkAgainstLog, 'verification' | 'indexed'>, seen: SealsInWalk) {
    if (seen.seals.length === 0 || walked.verification.verdict !== VerificationVerdict.VERIFIED_INTACT) return;
    const indexed = walked.indexed;
    const size =
      indexed?.state === FreshnessState.PROVEN
        ? seen.walkedSize
        : indexed?.state === FreshnessState.SEALED_AWAITING_INTEGRATION
          ? indexed.awaitingFromSeq
          : null;
    if (size !== null) await this.#seen.prune(lineageId, size);
  }

  /**
   * A walk whose lineage no longer holds a seal this client saw awaiting integration (its tree
   * smaller than the seal's seq, or another record there) is a rollback (docs/verifiable-log.md,
   * "Seals seen awaiting integration"): `UNVERIFIED_TAMPER_RISK`, freshness `NOT_NEWEST`. The seals
   * are held against what the walk read (`seen`: the head item's tree size as the walk read it, the
   * walked records), never a second read of the head. A walk already failed otherwise (other than
   * awaiting integration) is left as is.
   */
  #unlessSeenRolledBack(verification: FreshVerification, seen: SealsInWalk): FreshVerification {
    const awaiting = verification.freshness?.state === FreshnessState.SEALED_AWAITING_INTEGRATION;
    if (verification.verdict !== VerificationVerdict.VERIFIED_INTACT && !awaiting) return verification;
    const found = this.#seen.contradictionInWalk(seen.seals, seen);
    if (!found) return verification;
    const verdict = VerificationVerdict.UNVERIFIED_TAMPER_RISK;
    return {
      ...verification,
      verdict,
      firstFailure: { seq: found.seen.seq, verdict, reason: found.reason },
      freshness: verification.freshness && {
        ...verification.freshness,
        state: FreshnessState.NOT_NEWEST,
        reason: found.reason,
      },
    };
  }

  /**
   * A format-1 receipt (a signed lineage checkpoint): no longer produced for new records
   * (docs/verifiable-log.md, "Receipts"): export format 2 ({@link ResealClient.chainReceipt}).
   * Format-1 receipts already held still verify (`verifyReceipt`).
   * @throws {InvalidInputError} always, naming format 2
   */
  receipt(lineageId: string, seq: number): Promise<Receipt> {
    return this.#log.receipt(lineageId, seq);
  }

  /**
   * The lineage's tree head and what vouches for it (`decideLineageTreeHead`,
   * shared/integrator/lineage-tree-head.ts; docs/deployment-log.md, "Clients"): the lineage's entry
   * in the index under the deployment checkpoint verified against the policy, or a signed lineage
   * checkpoint where the index holds none or it extends the indexed head; `UNVOUCHED` when nothing
   * does yet (awaiting integration), `REFUSED` when the chain does not verify or the two disagree.
   * @throws what the table reads throw; never for a forged item
   */
  lineageTreeHead(lineageId: string): Promise<ReadLineageTreeHead> {
    return this.#log.treeHead(lineageId);
  }

  /**
   * Record `seq`, read from the table and proven by inclusion in the lineage's head tree, checked
   * against the kept checkpoint (which a newer signed one then replaces). The tree is a signed
   * lineage checkpoint, or a head the sealer MAC'd (`checkpoint.note` `null`), which only the
   * deployment index vouches for ({@link ResealClient.proveFreshness}; docs/deployment-log.md, "Clients").
   * @throws {LogVerificationError} when the log or the record does not verify, or `seq` is past the head
   */
  async provenRecord(lineageId: string, seq: number): Promise<ProvenRecord> {
    const proven = await this.#log.proveRecord(lineageId, seq);
    await this.#log.keep(lineageId, proven.checkpoint, proven.trusted);
    return proven;
  }

  /**
   * A receipt with the whole freshness chain for record `seq` (formatVersion 2,
   * docs/verifiable-log.md, "Receipts"): the record, its inclusion in the lineage head the index
   * holds, the index proofs, the index root's leaf proof and the cosigned deployment checkpoint;
   * `verifyChainReceipt` checks it offline with a tlog-policy. Needs no lineage checkpoint.
   *
   * @throws {NotIntegratedError} when the record is not integrated yet (retry after the integration interval)
   * @throws {LogVerificationError} when the record or the chain does not verify
   * @throws {InvalidInputError} when this client reads no deployment log
   */
  chainReceipt(lineageId: string, seq: number): Promise<ChainReceipt> {
    return buildChainReceipt(
      { store: this.#store, reader: this.#requireFreshness(), nowMs: this.#nowMs },
      lineageId,
      seq,
    );
  }

  /** The log's verifier key (pinned, or read once from KMS); print it with `formatVerifierKey` to pin it elsewhere. */
  logKey(): Promise<NoteVerifierKey> {
    return this.#log.key();
  }

  /** The guard's verifier key (pinned, or read once from KMS), which checks the guard's signed refusals. */
  guardKey(): Promise<NoteVerifierKey> {
    return this.#guardKey();
  }

  /** The sealer's verifier key (pinned, or read once from KMS), which checks the sealer's signed refusals. */
  sealerKey(): Promise<NoteVerifierKey> {
    return this.#sealerKey();
  }

  // --- reads, export and verification ---

  /** The lineage's head item as stored (not a trusted checkpoint), or `null` before its first record. */
  readHead(lineageId: string): Promise<LineageHead | null> {
    return this.#store.head(lineageId);
  }

  /**
   * Reads a whole lineage, page by page, into a {@link LineageExport} (`readLineageExport`): every
   * stored record up to the last one (or up to the head's seq when that is later), whatever the
   * head claims, as stored, unverified: verify it with `reseal verify --export`, or
   * {@link ResealClient.verifyExport}.
   *
   * @throws {LineageNotFoundError} when the lineage has neither records nor a head, and nothing this client reads knows it
   * @throws {LogVerificationError} when it has neither but this client knows it: `TRUNCATION_DETECTED` (a kept
   *   checkpoint), `UNVERIFIED_TAMPER_RISK` (the index holds it, or a seal kept of it; {@link ResealClient.wipedLineageFinding})
   */
  async exportLineage(lineageId: string, options: ReadExportOptions = {}): Promise<LineageExport> {
    try {
      return await readLineageExport(this.#store, lineageId, this.#nowMs(), options);
    } catch (error) {
      // Nothing stored, yet this client kept a checkpoint of it: the table was wiped (docs/sealing.md).
      const found = error instanceof LineageNotFoundError ? await this.wipedLineageFinding(lineageId) : null;
      if (found) throw new LogVerificationError(lineageId, found.verdict, found.reason);
      throw error;
    }
  }

  /**
   * Why a lineage with neither records nor a head item was wiped, not unknown (docs/verifiable-log.md,
   * "Verifying a whole lineage"): this client kept a checkpoint of it (`TRUNCATION_DETECTED`); the
   * index holds it, as recall says it (`UNVERIFIED_TAMPER_RISK`, `NOT_NEWEST`; or the index's own
   * finding when its chain does not verify); or this client kept seals of it
   * (`UNVERIFIED_TAMPER_RISK`, a rollback). `null`: nothing this client reads knows the lineage.
   * @throws what the table and deployment-log reads throw (an outage)
   */
  async wipedLineageFinding(
    lineageId: string,
  ): Promise<{ readonly verdict: Exclude<VerificationVerdict, 'VERIFIED_INTACT'>; readonly reason: string } | null> {
    const kept = await this.#log.trusted(lineageId);
    if (kept)
      return {
        verdict: VerificationVerdict.TRUNCATION_DETECTED,
        reason: `the lineage has no records, but the kept checkpoint covers ${kept.size}`,
      };
    const treeHead = await this.readLineageTreeHead(lineageId);
    if (treeHead.kind === 'REFUSED') return { verdict: treeHead.verdict, reason: treeHead.reason };
    if (treeHead.kind === 'VOUCHED' && treeHead.head.size > 0) {
      const at =
        treeHead.head.deploymentCheckpointSize === null
          ? 'no deployment checkpoint published'
          : `deployment checkpoint ${treeHead.head.deploymentCheckpointSize}`;
      return {
        verdict: VerificationVerdict.UNVERIFIED_TAMPER_RISK,
        reason: `NOT_NEWEST: the table shows no head item and no records of the lineage, but the index holds ${treeHead.head.size} records of it as of ${at} (lineage deleted)`,
      };
    }
    const seals = await this.#seen.load(lineageId);
    const found = this.#seen.contradictionInWalk(seals, { headSize: null, walkedSize: 0, recordHashes: new Map() });
    return found ? { verdict: VerificationVerdict.UNVERIFIED_TAMPER_RISK, reason: found.reason } : null;
  }

  /**
   * Verifies a stored lineage (docs/sealing.md, "Verification"): every hash and link offline, every MAC through the
   * anchor (KMS `VerifyMac`), the tail against `checkpoint`, and the stored head item against the
   * records (it is a claim: records past it, another hash at its seq or no head at all →
   * `LINEAGE_BROKEN`; records ending before it → `TRUNCATION_DETECTED`). A MAC that cannot be
   * checked gives `UNVERIFIED_TAMPER_RISK` (fail closed); a definite finding wins over it.
   *
   * A lineage with neither that this client kept a checkpoint of was wiped: `TRUNCATION_DETECTED`.
   * An intact walk's head is then placed against the deployment log ({@link ResealClient.lineageFreshness}):
   * a rolled-back lineage behind the index is not intact.
   *
   * @throws {LineageNotFoundError} when the lineage has neither records nor a head and nothing knows it (no
   *   checkpoint given or kept, no index entry, no seal kept); known, the walk reports it instead
   */
  async verifyLineage(lineageId: string, options: VerifyLineageOptions = {}): Promise<FreshVerification> {
    const { store, seen } = await this.#walkWithSeals(lineageId);
    const verification = await this.#unlessWiped(
      lineageId,
      () => verifyLineagePages(store, this.#walkOptions(lineageId, options)),
      (verification) => verification,
    );
    return this.#unlessSeenRolledBack(await this.lineageFreshness(lineageId, verification), await seen());
  }

  /**
   * Holds a walk another reader made (the OpenAI Agents session's history walk) against the seals
   * this client kept of its own waited writes (docs/verifiable-log.md, "Seals seen awaiting
   * integration"): `records`, the raw records the walk read and proved, in seq order; a seal they
   * contradict is a rollback (`UNVERIFIED_TAMPER_RISK`, `NOT_NEWEST`).
   *
   * @param headSize - the head item's tree size as the walk read it (`null`: no head item)
   * @returns `verification`, or the rollback it hides
   */
  async checkWalkAgainstSeals(
    lineageId: string,
    verification: FreshVerification,
    records: readonly unknown[],
    headSize: number | null,
  ): Promise<FreshVerification> {
    const seals = await this.#seen.load(lineageId);
    return this.#unlessSeenRolledBack(verification, walkedSeals(seals, headSize, records));
  }

  /**
   * Places a walked lineage's verified head against the deployment log (`walkFreshness`,
   * docs/deployment-log.md, "Clients"): a head older than the one the index holds (a rolled-back
   * lineage) is `NOT_NEWEST` and no longer `VERIFIED_INTACT`; `freshness: null` when this client
   * reads no deployment log or the walk is not intact. `tied`: what the walk was tied to
   * (`checkWalkAgainstLog`): the head is then proven in that tree head, and a walk tied to the
   * index shows where it stands there (records awaiting integration, `NOT_NEWEST`, refused).
   */
  lineageFreshness(
    lineageId: string,
    verification: ChainVerification,
    tied: Pick<WalkAgainstLog, 'log' | 'indexed'> | null = null,
  ): Promise<FreshVerification> {
    return walkFreshness(
      { store: this.#store, log: this.#log, freshness: this.#freshness },
      lineageId,
      verification,
      tied,
    );
  }

  /**
   * Verifies a stored lineage and ties it to the signed log (`verifyStoredLineage`,
   * shared/log/stored-lineage.ts; `reseal verify --lineage`): {@link ResealClient.verifyLineage},
   * then {@link ResealClient.checkWalkAgainstLog}.
   *
   * With `authentication: 'signed-tree'`, no MAC call: `verifyLineageBySignedTree`.
   *
   * @returns the verification and what the log showed (`log: null`: nothing to compare)
   * @throws {LineageNotFoundError} when the lineage has neither records nor a head and nothing knows it (no
   *   checkpoint given or kept, no index entry, no seal kept); known, the walk reports it instead
   */
  async verifyStoredLineage(lineageId: string, options: VerifyStoredLineageOptions = {}): Promise<FreshWalk> {
    const walk = this.#walkOptions(lineageId, options);
    // One read of the head item (and of each record read by seq) for the whole walk: plan, walk,
    // tie to the log, freshness and the seals kept (docs/verifiable-log.md, "Verifying a whole lineage").
    const { store, seen: walkedSeals } = await this.#walkWithSeals(lineageId);
    const log = new LogReader(store, this.#logKey, this.#checkpoints, this.#freshness);
    const view = lineageLogView(log, async (id) =>
      this.#freshness === null
        ? { kind: 'UNAVAILABLE', reason: 'this client reads no deployment log' }
        : log.treeHead(id),
    );
    const walked = await this.#unlessWiped(
      lineageId,
      () =>
        options.authentication === 'signed-tree'
          ? verifyLineageBySignedTree(store, view, { ...walk, macKeyId: this.outputs.macKeyArn })
          : verifyStoredLineage(store, view, walk),
      (verification) => ({ verification, log: null, indexed: null }),
    );
    const seen = await walkedSeals();
    const verification = this.#unlessSeenRolledBack(
      await walkFreshness({ store, log, freshness: this.#freshness }, lineageId, walked.verification, walked),
      seen,
    );
    await this.#settleSeals(lineageId, walked, seen);
    return { ...walked, verification, freshness: verification.freshness };
  }

  /**
   * The table as one walk reads it (`walkReads`: the head item read once, the pages of records read
   * noted) and, once the walk is done, the seals this client kept held against those reads
   * (docs/verifiable-log.md, "Seals seen awaiting integration"): never a second read of the head.
   */
  async #walkWithSeals(
    lineageId: string,
  ): Promise<{ readonly store: LineageReader; readonly seen: () => Promise<SealsInWalk> }> {
    const seals = await this.#seen.load(lineageId);
    const pages: WalkedPages = { seqs: new Set(seals.map((seen) => seen.seq)), recordHashes: new Map(), size: 0 };
    const store = walkReads(this.#store, pages);
    const seen = async (): Promise<SealsInWalk> => {
      const head = await store.logHead(lineageId); // the walk's own read (walkReads keeps it)
      return {
        seals,
        headSize: head === null ? null : head.head.seq + 1,
        walkedSize: pages.size,
        recordHashes: pages.recordHashes,
      };
    };
    return { store, seen };
  }

  #walkOptions(lineageId: string, options: VerifyLineageOptions) {
    return {
      lineageId,
      anchor: this.#anchor,
      ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
      ...(options.pageSize ? { pageSize: options.pageSize } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    };
  }

  /** Runs a walk; a lineage with neither records nor a head that this client kept a checkpoint of was wiped: `TRUNCATION_DETECTED`. */
  async #unlessWiped<T>(
    lineageId: string,
    walk: () => Promise<T>,
    wiped: (verification: ChainVerification) => T,
  ): Promise<T> {
    try {
      return await walk();
    } catch (error) {
      const found = error instanceof LineageNotFoundError ? await this.wipedLineageFinding(lineageId) : null;
      if (!found) throw error;
      const { verdict, reason } = found;
      return wiped({
        verdict,
        records: [],
        firstFailure: { seq: 0, verdict, reason },
        head: null,
        linkedThrough: null,
      });
    }
  }

  /**
   * Verifies a {@link LineageExport} read by {@link ResealClient.exportLineage} with this client's
   * anchor: its records, and its `head` (read from the same table) checked against them as
   * {@link ResealClient.verifyLineage} does.
   */
  async verifyExport(
    exported: Pick<LineageExport, 'lineageId' | 'head' | 'records'>,
    options: { checkpoint?: TrustedHead } = {},
  ): Promise<ChainVerification> {
    return verifyRecords(exported.records, {
      lineageId: exported.lineageId,
      anchor: this.#anchor,
      storedHead: exported.head,
      ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
    });
  }

  /**
   * Verifies records already read with this client's anchor (no head check: see
   * {@link ResealClient.verifyExport} for a whole exported lineage).
   */
  async verifyRecords(
    lineageId: string,
    records: unknown[],
    options: { checkpoint?: TrustedHead } = {},
  ): Promise<ChainVerification> {
    return verifyRecords(records, {
      lineageId,
      anchor: this.#anchor,
      ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
    });
  }
}

/** The seals kept for a lineage and what a walk read of them (`SeenSeals.contradictionInWalk`). */
interface SealsInWalk {
  readonly seals: readonly SeenSeal[];
  /** The head item's tree size as the walk read it (`null`: no head item). */
  readonly headSize: number | null;
  /** One past the largest seq the walk read. */
  readonly walkedSize: number;
  /** The walked record hashes (hex) at the seals' seqs. */
  readonly recordHashes: ReadonlyMap<number, string>;
}

/** {@link SealsInWalk} from the raw records a walk read (in seq order) and the head size it read. */
function walkedSeals(seals: readonly SeenSeal[], headSize: number | null, records: readonly unknown[]): SealsInWalk {
  const pages: WalkedPages = { seqs: new Set(seals.map((seen) => seen.seq)), recordHashes: new Map(), size: 0 };
  noteWalkPage(pages, records);
  return { seals, headSize, walkedSize: pages.size, recordHashes: pages.recordHashes };
}
