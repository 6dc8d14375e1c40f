import { randomUUID } from 'node:crypto';
import {
  DeploymentLogConflictError,
  IntegrationLeaseHeldError,
  InvalidInputError,
  LogStateError,
  ResealError,
  WitnessUnavailableError,
} from '../../shared/errors';
import type { LineageIndexValue } from '../../shared/index/index-entry';
import { authenticatePublished } from '../../shared/integrator/authenticate-published';
import { authenticateDeploymentHead } from '../../shared/integrator/deployment-head';
import { type DeploymentLogState, deploymentCheckpoint } from '../../shared/integrator/deployment-log-state';
import { type CachedFrontier, FrontierCache } from '../../shared/integrator/frontier-cache';
import { checkFrontierExtension } from '../../shared/integrator/frontier-extension';
import { type CandidateRecord, integrate, type LineageCandidate } from '../../shared/integrator/integrate';
import type { IntegrationEvidence } from '../../shared/integrator/integration-evidence';
import { noticeVouchedHeads } from '../../shared/integrator/notice-vouched-heads';
import { carriedReAnchorChain } from '../../shared/integrator/re-anchor-chain';
import type { VerifiedReAnchor } from '../../shared/integrator/re-anchor-statement';
import { readHeldLineagesApart } from '../../shared/integrator/read-held-lineages';
import type { SealedRunNotice } from '../../shared/integrator/sealed-run-notice';
import { storedReAnchor } from '../../shared/integrator/stored-re-anchor';
import { checkpointOrigin } from '../../shared/log/checkpoint-origin';
import { authenticateHeadState, type LogState } from '../../shared/log/log-state';
import type { NodeSource } from '../../shared/log/node-ref';
import { nodeSourceOf } from '../../shared/log/node-source';
import { type NoteVerifierKey, noteVerifierKey } from '../../shared/log/note-key';
import { proveRecord } from '../../shared/log/record-proof';
import { signCheckpoint } from '../../shared/log/sign-checkpoint';
import { proveTreeConsistency } from '../../shared/log/tree-consistency';
import type { DeploymentLogStore, StoredDeploymentHead } from '../../shared/ports/deployment-log-store';
import type { IndexNodeStore } from '../../shared/ports/index-node-store';
import { INTEGRATION_LEASE_MS, type IntegrationLease } from '../../shared/ports/integration-lease';
import type { LineageStore } from '../../shared/ports/lineage-store';
import type { MacAnchor } from '../../shared/ports/mac-anchor';
import type { NoteSigner } from '../../shared/ports/note-signer';
import type { NoticeKeyOpener } from '../../shared/ports/notice-key';
import { isIntact } from '../../shared/seal/is-intact';
import { checkRecordIntegrity } from '../../shared/seal/record-integrity';
import { VerifyOnceMacAnchor } from '../../shared/seal/verify-once-mac-anchor';
import { formatAddCheckpointRequest } from '../../shared/witness/add-checkpoint-request';
import { parseConflictSize } from '../../shared/witness/conflict-size';
import { MetricName } from '../common/metric-name';
import type { PipelineMetrics } from '../common/pipeline-metrics';
import type { ServiceLogger } from '../common/service-logger';
import { authenticatedNotices } from './authenticated-notices';
import { publishedSize } from './published-size';
import { type ReAnchorReport, reAnchorDeploymentLog } from './re-anchor';
import { type IntegratorWitness, submitToWitness } from './witness-submission';

/** Dependencies of {@link IntegratorService}, injected. */
export interface IntegratorDeps {
  /** The lineage table, read side: heads, records and tree nodes. */
  readonly lineages: Pick<LineageStore, 'logHead' | 'readNodes' | 'readChain'>;
  readonly deployment: DeploymentLogStore;
  readonly index: IndexNodeStore;
  /** The log key (KMS Ed25519); its key name `reseal/<stackName>` is the deployment log's origin. */
  readonly signer: NoteSigner;
  /** `null`: no witness configured, the signed checkpoint is published as it is. */
  readonly witness: IntegratorWitness | null;
  /**
   * The records' HMAC key (KMS `VerifyMac`), to authenticate a lineage head by the sealer's
   * head-state MAC (docs/verifiable-log.md, "Appending") when no notice of the batch names it
   * (docs/deployment-log.md, "Integration", step 2). Absent: only heads a notice names, heads with
   * a signed lineage checkpoint (older heads) or exactly the indexed head authenticate.
   */
  readonly anchor: MacAnchor | null;
  /**
   * The notice key (`kms:Decrypt` only): a notice vouches for the head it names only when its
   * `auth` verifies under it (docs/deployment-log.md, "Integration", step 2), and a head's
   * head-key MAC only when its blob opens and the MAC verifies (docs/verifiable-log.md,
   * "Appending"). Absent: no notice nor head-key MAC vouches, every head not indexed goes through `anchor`.
   */
  readonly noticeKey?: NoticeKeyOpener | null;
  readonly metrics: PipelineMetrics;
  readonly logger: ServiceLogger;
  readonly clock: () => number;
  /**
   * The operator's floor (`DEPLOYMENT_MIN_SIZE`, leaves; default 0): a cold integrator never
   * extends a deployment head smaller than this (docs/deployment-log.md, "Cold start"). Without a
   * witness it is the only rollback protection a cold start has.
   */
  readonly minSize?: number;
  /**
   * The operator's recovery keys (`RECOVERY_KEYS`): a re-anchor statement must carry a signature by
   * one of them before the log key signs it (docs/deployment-log.md, "Re-anchor"). None: every
   * re-anchor is refused.
   */
  readonly recoveryKeys?: readonly NoteVerifierKey[];
  /**
   * The integration lease (docs/deployment-log.md, "One integration at a time"): taken before the
   * head is read, so no other integration signs from the same head. Absent: no lease (a single
   * caller, as in-process tests and the index rebuild are).
   */
  readonly lease?: IntegrationLease;
  /**
   * This instance's memory of each lineage's compact range (docs/deployment-log.md, "Integration",
   * "A warm integrator"); default a new {@link FrontierCache} of 10,000 lineages. Injected by tests
   * that edit it.
   */
  readonly frontiers?: FrontierCache;
}

/**
 * A lease this close to its expiry (ms) is not signed under: the `Sign` and the commit must land
 * while it still stands, else a new holder may read the head this integration is about to move.
 */
export const LEASE_SIGN_MARGIN_MS = 10_000;

/**
 * How long, ms, an integrator finds the lease held before it integrates without it: twice the
 * longest lease an integrator takes (`INTEGRATION_LEASE_MS`), measured by its own clock (and the
 * queue's first receipt of the batch), never by the expiry the table shows. A table writer who
 * keeps re-putting a plausible lease delays integrations by at most this (docs/deployment-log.md,
 * "One integration at a time"); the lease is an efficiency device, the head's conditional commit
 * keeps integrations safe.
 */
export const LEASE_OVERRIDE_AFTER_MS = 2 * INTEGRATION_LEASE_MS;

/** What one integration did. */
export interface IntegrationReport {
  /** The signed deployment checkpoint, or `null` when the index did not change. */
  readonly checkpoint: string | null;
  /** The note published by this integration (with cosignatures when a witness is configured), or `null`. */
  readonly published: string | null;
  readonly integrated: readonly string[];
  readonly unchanged: readonly string[];
  readonly evidence: readonly IntegrationEvidence[];
  /** What the witness answered: `null` without a witness or a checkpoint; else the HTTP status, or `UNREACHABLE`. */
  readonly witnessStatus: number | 'UNREACHABLE' | null;
}

/**
 * One integration per batch of sealed-run notices (docs/deployment-log.md, "Integration"): the
 * deployment head authenticated, every noticed lineage read from its own table and proven
 * (consistency from the indexed head, inclusion of each new record), the pure decision
 * (`integrate`), one signed checkpoint for every lineage at once, committed by conditional
 * write, then submitted to the witness and published only when the policy's quorum is met.
 *
 * Throws on an infrastructure failure or a deployment head that does not authenticate (logged
 * first), so the batch is retried; evidence about a lineage is a value, recorded, never thrown.
 */
export class IntegratorService {
  readonly #deps: IntegratorDeps;
  #key: NoteVerifierKey | null = null;
  /**
   * The smallest deployment head this instance may extend, leaves: `null` while cold; then the
   * floor established at cold start (not from the table), raised to each size it commits.
   */
  #floor: number | null = null;
  /** The statement hash (hex) of the history `#floor` belongs to: `null` for a log never re-anchored. */
  #history: string | null = null;
  /**
   * When (this instance's clock, ms) it first found the lease held with no integration of its own
   * since: remembered warm across invocations; `null` once it takes the lease.
   */
  #leaseHeldSinceMs: number | null = null;
  /** When this instance last found the lease held: a hold is measured only while seen without a gap of a lease's length. */
  #leaseLastHeldMs: number | null = null;
  /**
   * The compact range of each lineage's head as the index holds it after this instance's
   * integrations: filled after a commit only, and for heads the index already held.
   */
  readonly #frontiers: FrontierCache;

  constructor(deps: IntegratorDeps) {
    const { minSize = 0 } = deps;
    if (!Number.isSafeInteger(minSize) || minSize < 0) {
      throw new InvalidInputError('integrator', [
        { path: 'minSize', message: `expected a whole number of leaves ≥ 0, got ${minSize}` },
      ]);
    }
    this.#deps = deps;
    this.#frontiers = deps.frontiers ?? new FrontierCache();
  }

  async #verifierKey(): Promise<NoteVerifierKey> {
    this.#key ??= noteVerifierKey(this.#deps.signer.keyName, await this.#deps.signer.publicKey());
    return this.#key;
  }

  /**
   * One integration, under the integration lease when one is configured (docs/deployment-log.md,
   * "One integration at a time"): the lease is taken with one conditional write before the head is
   * read, and released after the commit. A lease found held since {@link LEASE_OVERRIDE_AFTER_MS}
   * or longer (since this instance first found it held, with no gap of a lease's length between two
   * sightings, or since `waitingSinceMs`, whichever is earlier) is overridden: the integration runs without it, logged at warn. Each try counts
   * metric `IntegrationLease` (`outcome`: `TAKEN`, `HELD`, `OVERRIDDEN`).
   *
   * @param waitingSinceMs when the batch was first received (ms since the Unix epoch, the queue's
   *   `ApproximateFirstReceiveTimestamp`), so a batch passed between instances is not held longer
   * @throws {IntegrationLeaseHeldError} when another integration holds the lease (not yet long
   *   enough to override), or this one's lapsed before the signature: nothing signed, integrate again later
   * @throws on an infrastructure failure, an unauthenticated or rolled-back deployment head, or a lost commit
   */
  async integrate(notices: readonly SealedRunNotice[], waitingSinceMs?: number): Promise<IntegrationReport> {
    const { lease, clock, logger, metrics } = this.#deps;
    if (!lease) return this.#integrate(notices, null);
    const holder = randomUUID();
    const nowMs = clock();
    const untilMs = nowMs + INTEGRATION_LEASE_MS;
    if (!(await lease.take(holder, nowMs, untilMs))) {
      // A hold last seen a whole lease ago or more has ended since: a new one is measured from now.
      if (this.#leaseLastHeldMs !== null && nowMs - this.#leaseLastHeldMs >= INTEGRATION_LEASE_MS) {
        this.#leaseHeldSinceMs = null;
      }
      this.#leaseHeldSinceMs ??= nowMs;
      this.#leaseLastHeldMs = nowMs;
      const sinceMs = Math.min(this.#leaseHeldSinceMs, waitingSinceMs ?? nowMs);
      if (nowMs - sinceMs < LEASE_OVERRIDE_AFTER_MS) {
        metrics.count(MetricName.IntegrationLease, { outcome: 'HELD' });
        throw new IntegrationLeaseHeldError('another integration holds it; nothing was signed');
      }
      metrics.count(MetricName.IntegrationLease, { outcome: 'OVERRIDDEN' });
      logger.warn('the integration lease has been held too long; integrating without it', {
        heldForMs: nowMs - sinceMs,
        overrideAfterMs: LEASE_OVERRIDE_AFTER_MS,
      });
      return this.#integrate(notices, null);
    }
    this.#leaseHeldSinceMs = null;
    this.#leaseLastHeldMs = null;
    metrics.count(MetricName.IntegrationLease, { outcome: 'TAKEN' });
    try {
      return await this.#integrate(notices, untilMs);
    } finally {
      try {
        await lease.release(holder);
      } catch (error) {
        // The lease then lapses on its own, within INTEGRATION_LEASE_MS.
        logger.warn('the integration lease could not be released; it lapses on its own', { error });
      }
    }
  }

  async #integrate(notices: readonly SealedRunNotice[], leaseUntilMs: number | null): Promise<IntegrationReport> {
    const { deployment, index, signer, logger, metrics, clock } = this.#deps;
    const key = await this.#verifierKey();
    // The log key's name is `reseal/<stackName>`: the deployment log's origin (docs/deployment-log.md).
    const origin = signer.keyName;
    const read = await deployment.readHead();
    const previous = authenticateDeploymentHead(read, key, origin);
    const stored = read && this.#checkedPublished(read, previous, key, origin);
    const reAnchor = read ? storedReAnchor(read, key, origin) : null;
    const anchor = typeof reAnchor === 'string' ? null : reAnchor; // authenticated above: never a reason here
    const history = previous.reAnchor ? hex(previous.reAnchor) : null;
    if (this.#floor !== null && history !== this.#history) await this.#historyChanged(anchor, origin);
    this.#floor ??= await this.#coldFloor(read, stored, previous, origin);
    this.#history = history;
    if (previous.size < this.#floor) {
      throw new LogStateError(
        'deployment',
        `the head holds ${previous.size} leaves but this integrator may not extend fewer than ${this.#floor}: rolled back`,
      );
    }
    const lineageIds = [...new Set(notices.map((n) => n.lineageId))].sort();
    const { held, missing } = await readHeldLineagesApart(index, previous.indexRoot, lineageIds);
    const readable = lineageIds.filter((id) => held.has(id));
    // A head an authenticated notice of the batch names needs no MAC; for the others, one
    // `VerifyMac` per distinct head-state MAC in this integration (a sealer invocation's batch MAC
    // vouches for several of its heads), remembered for this integration only, never a `false`.
    const macAnchor = this.#deps.anchor && new VerifyOnceMacAnchor(this.#deps.anchor);
    const heads = new Map<string, CachedFrontier>();
    const vouching = await authenticatedNotices(notices, this.#deps.noticeKey ?? null, logger);
    const candidates = await Promise.all(
      readable.map((id) =>
        this.#candidate(
          id,
          held.get(id) ?? null,
          key,
          notices.filter((n) => n.lineageId === id),
          vouching,
          macAnchor,
          heads,
        ),
      ),
    );
    const integrated = await integrate({ store: index, previous, origin, candidates, notices, held });
    const result = { ...integrated, evidence: [...missing, ...integrated.evidence] };
    // The index held these heads already: their frontiers are of committed trees.
    this.#rememberFrontiers(result.unchanged, heads);
    const atMs = clock();
    for (const evidence of result.evidence) {
      logger.error('lineage left out of the integration with evidence', { evidence });
      metrics.count(MetricName.IntegrationEvidence, { kind: evidence.kind });
      await deployment.recordEvidence(evidence, atMs);
    }
    if (!result.next || !result.checkpoint) {
      return { checkpoint: null, published: null, ...outcome(result), witnessStatus: null };
    }
    if (leaseUntilMs !== null && clock() >= leaseUntilMs - LEASE_SIGN_MARGIN_MS) {
      throw new IntegrationLeaseHeldError('the lease lapsed before the signature; nothing was signed');
    }
    const note = await signCheckpoint(result.checkpoint, signer);
    const { state } = result.next;
    const next: StoredDeploymentHead = {
      size: state.size,
      checkpoint: note,
      frontier: previous.frontier.map(hex),
      indexRoot: hex(state.indexRoot),
      published: this.#deps.witness ? (stored?.published ?? null) : note,
      ...(anchor ? { reAnchor: anchor.note, ...carriedReAnchorChain(read, key, origin) } : {}),
    };
    const leaf = {
      index: state.size - 1,
      indexRoot: hex(state.indexRoot),
      nodes: [...result.next.completed].sort((a, b) => a.level - b.level).map((n) => hex(n.hash)),
    };
    if (!(await deployment.append(stored, next, leaf))) {
      throw new DeploymentLogConflictError('the head changed during the integration; the batch is retried');
    }
    this.#floor = state.size;
    // Only now: a lost commit leaves no frontier of a tree the index does not hold (which could not
    // matter either: a frontier is offered only for the size and root the index holds).
    this.#rememberFrontiers(result.integrated, heads);
    let published = this.#deps.witness ? null : note;
    let witnessStatus: IntegrationReport['witnessStatus'] = null;
    if (this.#deps.witness) {
      ({ published, witnessStatus } = await submitToWitness({
        witness: this.#deps.witness,
        note,
        state,
        publishedSize: publishedSize(stored?.published ?? null),
        deployment,
        logger,
        clock,
      }));
      if (published) await deployment.publish(state.size, note, published);
    }
    metrics.count(MetricName.Integrated, { published: String(published !== null) });
    // How many lineages were proven by a kept frontier (no tree node read): the warm share the cost model assumes.
    const warm = candidates.filter((c) => 'extendedFrom' in c && c.extendedFrom !== undefined).length;
    logger.info('integrated', {
      size: state.size,
      integrated: result.integrated.length,
      provenByFrontier: warm,
      witnessStatus,
    });
    return { checkpoint: note, published, ...outcome(result), witnessStatus };
  }

  /**
   * Re-anchors the deployment log on the operator's statement (docs/deployment-log.md,
   * "Re-anchor"); see `reAnchorDeploymentLog`. This instance's floor is then the re-anchored size,
   * in the new history.
   */
  async reAnchor(statement: string): Promise<ReAnchorReport> {
    const report = await reAnchorDeploymentLog(this.#deps, await this.#verifierKey(), statement);
    this.#floor = report.size;
    this.#history = report.reAnchor.statementHash;
    return report;
  }

  /**
   * A warm instance found the head in another history than the one its floor belongs to
   * (docs/deployment-log.md, "Re-anchor", "Cold start"): a re-anchor statement whose lost checkpoint
   * covers the floor explains it, and the instance becomes cold again (its floor is re-established
   * from outside the table); anything else is a rollback.
   */
  async #historyChanged(anchor: VerifiedReAnchor | null, origin: string): Promise<void> {
    const floor = this.#floor ?? 0;
    if (anchor && anchor.statement.lost.size >= floor) {
      this.#deps.logger.warn('the deployment log was re-anchored; this integrator starts cold in the new history', {
        floor,
        restored: anchor.statement.restored.size,
        lost: anchor.statement.lost.size,
      });
      this.#floor = null;
      return;
    }
    const reason = anchor
      ? `the head's re-anchor statement names ${anchor.statement.lost.size} lost leaves, below the ${floor} this integrator committed`
      : `the head is of another history than the re-anchored one this integrator extends (floor ${floor})`;
    await this.#rollback(origin, reason);
    throw new LogStateError('deployment', reason);
  }

  /** The head as read, its `published` note dropped (and logged) when it does not authenticate. */
  #checkedPublished(
    read: StoredDeploymentHead,
    previous: DeploymentLogState,
    key: NoteVerifierKey,
    origin: string,
  ): StoredDeploymentHead {
    const published = authenticatePublished(read.published, previous, key, origin);
    if (published === read.published) return read;
    this.#deps.logger.error("the head item's published checkpoint does not authenticate; it is not carried forward", {
      size: previous.size,
    });
    return { ...read, published };
  }

  /**
   * The floor of a cold integrator, before its first signature (docs/deployment-log.md, "Cold
   * start"): the operator's minimum, and with a witness the size the witness last cosigned, asked
   * with the stored head as `add-checkpoint` from its own size (an empty log sends its signed
   * empty checkpoint). A witness larger than the head, or holding the head's size with another
   * root, is a rollback: `DEPLOYMENT_ROLLBACK` is recorded and the floor it sets refuses the head,
   * unless the head item moved while the witness was asked (another integration committed and
   * submitted a larger checkpoint meanwhile): then the check is made again from the new head.
   *
   * @throws {DeploymentLogConflictError} when the head item moved during the check (retry at once)
   * @throws {WitnessUnavailableError} when the witness cannot be reached or answers neither 200
   *   nor a 409 with a size: the batch fails and is retried, nothing signed
   */
  async #coldFloor(
    read: StoredDeploymentHead | null,
    stored: StoredDeploymentHead | null,
    previous: DeploymentLogState,
    origin: string,
  ): Promise<number> {
    const { witness, logger, signer, deployment } = this.#deps;
    // The operator's pin always applies, in whatever history the head is: a re-anchor never lifts
    // it, else a table writer's put-back of an early head of the new history would be signed again.
    // The operator lowers it when re-anchoring (docs/deployment-log.md, "Re-anchor").
    const minSize = this.#deps.minSize ?? 0;
    if (previous.size < minSize) {
      await this.#rollback(
        origin,
        `the deployment head holds ${previous.size} leaves, below the operator's minimum ${minSize}`,
      );
      return minSize;
    }
    if (!witness) return Math.max(minSize, previous.size);
    const note = stored?.checkpoint ?? (await signCheckpoint(deploymentCheckpoint(origin, previous), signer));
    let answer: { status: number; body: string };
    try {
      answer = await witness.client.addCheckpoint(
        formatAddCheckpointRequest({ oldSize: previous.size, proof: [], note }),
      );
    } catch (error) {
      logger.error('a cold integrator cannot reach its witness; it signs nothing until it can (fail closed)', {
        error,
      });
      throw new WitnessUnavailableError(`the witness is unreachable: ${(error as Error)?.message ?? error}`);
    }
    const witnessSize = answer.status === 409 ? parseConflictSize(answer.body) : null;
    if (answer.status === 200 || (witnessSize !== null && witnessSize < previous.size)) {
      return Math.max(minSize, previous.size);
    }
    if (witnessSize !== null) {
      // The witness's answer is newer than the head read before asking it: a head that moved in
      // between was extended by another integration, whose checkpoint the witness now holds. That
      // is no rollback; only a head that still stands as read is compared with the witness.
      const again = await deployment.readHead();
      if (again?.size !== read?.size || again?.checkpoint !== read?.checkpoint) {
        logger.warn('the deployment head moved during the cold-start check; it is made again from the new head', {
          read: read?.size ?? 0,
          now: again?.size ?? 0,
          witnessSize,
        });
        throw new DeploymentLogConflictError('the head moved during the cold-start check; checked again');
      }
      await this.#rollback(
        origin,
        witnessSize > previous.size
          ? `the witness cosigned ${witnessSize} leaves but the deployment head holds ${previous.size}`
          : `the witness cosigned another root at the head's size ${witnessSize}`,
      );
      return witnessSize + (witnessSize === previous.size ? 1 : 0);
    }
    logger.error('a cold integrator could not ask its witness for its size; it signs nothing (fail closed)', {
      status: answer.status,
      body: answer.body.slice(0, 512),
    });
    throw new WitnessUnavailableError(`the witness answered ${answer.status} to the cold-start check`);
  }

  /** Keeps the frontier of each of `lineageIds`' heads as read in this integration. */
  #rememberFrontiers(lineageIds: readonly string[], heads: ReadonlyMap<string, CachedFrontier>): void {
    for (const lineageId of lineageIds) {
      const tree = heads.get(lineageId);
      if (tree) this.#frontiers.remember(lineageId, tree);
    }
  }

  /** Records and counts `DEPLOYMENT_ROLLBACK` (the deployment log's own evidence, under its origin). */
  async #rollback(origin: string, reason: string): Promise<void> {
    const { deployment, logger, metrics, clock } = this.#deps;
    const evidence: IntegrationEvidence = { kind: 'DEPLOYMENT_ROLLBACK', lineageId: origin, reason };
    logger.error('the deployment head is rolled back; the integrator signs nothing', { evidence });
    metrics.count(MetricName.IntegrationEvidence, { kind: evidence.kind });
    await deployment.recordEvidence(evidence, clock());
  }

  /**
   * Step 2 for one lineage: its head, authenticated by an authenticated notice (`vouching`) of the
   * batch naming it exactly, else by its head-state MAC (docs/deployment-log.md, "Integration",
   * step 2), and the proofs from its own tree, with one inclusion proof per seq a notice names
   * below the indexed head (a late notice, checked in step 3). Warm (docs/deployment-log.md, "A warm integrator"): when the
   * frontier kept for the indexed size and root, extended by the records since, gives the stored
   * root, that extension replaces the consistency and the records' inclusion proofs, and no tree
   * node is read for them. Sets the head's compact range in `heads`, to keep after a commit.
   */
  async #candidate(
    lineageId: string,
    held: LineageIndexValue | null,
    key: NoteVerifierKey,
    notices: readonly SealedRunNotice[],
    vouching: readonly SealedRunNotice[],
    anchor: MacAnchor | null,
    heads: Map<string, CachedFrontier>,
  ): Promise<LineageCandidate> {
    const { lineages } = this.#deps;
    const storedHead = await lineages.logHead(lineageId);
    let state: LogState;
    try {
      ({ state } = await authenticateHeadState(storedHead, {
        lineageId,
        origin: checkpointOrigin(key.name, lineageId),
        key,
        anchor,
        opener: this.#deps.noticeKey ?? null,
        indexed: held,
        noticed: noticeVouchedHeads(lineageId, vouching),
      }));
    } catch (error) {
      // The MAC or notice key unavailable is retried (the batch fails); anything else leaves the lineage out.
      if (!(error instanceof ResealError) || error.retryable) throw error;
      return { lineageId, unreadable: error.message };
    }
    if (state.tip === null) return { lineageId, unreadable: 'the lineage has no head item' };
    const head: LineageIndexValue = {
      treeSize: state.size,
      rootHash: hex(state.rootHash),
      headRecordHash: state.tip.recordHash,
      generationEpoch: state.tip.generationEpoch,
      writerPolicyDigest: state.tip.policyDigest ?? null,
    };
    heads.set(lineageId, { treeSize: state.size, rootHash: head.rootHash, frontier: state.frontier.map(hex) });
    const nodes = nodeSourceOf((refs) => lineages.readNodes(lineageId, refs));
    const unproven = async <T>(build: () => Promise<T>, fallback: T): Promise<T> => {
      try {
        return await build();
      } catch (error) {
        // A missing or unreadable node: the proof is left empty and fails in `integrate`, as evidence.
        if (error instanceof ResealError) return fallback;
        throw error;
      }
    };
    const from = held?.treeSize ?? 0;
    // The range ends at a head read strongly, so a copy is rechecked strongly when it misses a seq
    // (`readChain`'s `eventual`). A stale copy cannot mislead: records are written once, and a record
    // shown, old or new, enters only as the leaf the authenticated stored head holds at its seq. The
    // manifests come from the store's cache where it holds them (`keptManifests`: content-addressed,
    // used only when they hash to the record's digest): a warm integrator reads a lineage's
    // manifest item once, not at every integration.
    const raws =
      from < state.size
        ? await lineages.readChain(lineageId, from, state.size - 1, { eventual: true, keptManifests: true })
        : [];
    const read: Omit<CandidateRecord, 'inclusion'>[] = [];
    for (const raw of raws) {
      const intact = checkRecordIntegrity(raw);
      if (!isIntact(intact)) continue; // its seq is then missing: RECORD_UNPROVEN
      const { residualId, monotonicSequenceNumber: seq } = intact.record.header;
      read.push({ seq, residualId, recordHash: intact.recordHash });
    }
    // Warm: the frontier kept for exactly the indexed size and root (the empty tree's for a lineage
    // the index does not hold), used only when the records extend it to the stored root; anything
    // else (cold, evicted, stale, a gap, an edited record) takes the proofs from the table below.
    const kept = held === null ? [] : this.#frontiers.frontierOf(lineageId, held);
    if (kept !== null && from < state.size && checkFrontierExtension(held, kept, read, head) === null) {
      const records = read.map((r) => ({ ...r, inclusion: [] }));
      const noticedInclusion = await this.#lateInclusions(notices, from, state.size, nodes, unproven);
      return { lineageId, head, consistency: [], records, noticedInclusion, extendedFrom: kept };
    }
    const consistency =
      held === null || held.treeSize >= state.size
        ? []
        : await unproven(async () => (await proveTreeConsistency(held.treeSize, state.size, nodes)).proof, []);
    const records: CandidateRecord[] = [];
    for (const r of read) {
      const inclusion = await unproven(async () => (await proveRecord(r.seq, state.size, nodes)).inclusionProof, []);
      records.push({ ...r, inclusion });
    }
    const noticedInclusion = await this.#lateInclusions(notices, from, state.size, nodes, unproven);
    return { lineageId, head, consistency, records, noticedInclusion };
  }

  /**
   * Inclusion proofs in the stored head's tree (size `size`), from the table's nodes, of the seqs
   * below the indexed size `from` that a notice names (a late notice, step 3): warm or not.
   */
  async #lateInclusions(
    notices: readonly SealedRunNotice[],
    from: number,
    size: number,
    nodes: NodeSource,
    unproven: <T>(build: () => Promise<T>, fallback: T) => Promise<T>,
  ): Promise<Map<number, readonly string[]>> {
    const noticedInclusion = new Map<number, readonly string[]>();
    const late = new Set(notices.flatMap((n) => n.residuals.map((r) => r.seq)).filter((seq) => seq < from));
    for (const seq of [...late].filter((s) => s < size).sort((a, b) => a - b)) {
      noticedInclusion.set(seq, await unproven(async () => (await proveRecord(seq, size, nodes)).inclusionProof, []));
    }
    return noticedInclusion;
  }
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

const outcome = (result: Awaited<ReturnType<typeof integrate>>) => ({
  integrated: result.integrated,
  unchanged: result.unchanged,
  evidence: result.evidence,
});
