import { randomUUID } from 'node:crypto';
import { InvalidInputError, ResealError, SignerUnavailableError } from '../shared/errors';
import { decideAbsence } from '../shared/integrator/decide-absence';
import { FreshnessState, type ReadDeploymentChain, type RecordFreshness } from '../shared/integrator/record-freshness';
import { checkAnswerFreshness } from '../shared/log/answer-freshness';
import type { Checkpoint } from '../shared/log/checkpoint';
import type { CheckpointFinding, StoredTreeHead } from '../shared/log/latest-checkpoint';
import { checkRecallAnswer, type RecallCheck } from '../shared/log/recall-check';
import type { VerifiedCheckpoint } from '../shared/log/verified-checkpoint';
import { RecallRequestedDetailSchema } from '../shared/pipeline/recall-requested-detail';
import { RefusalCode } from '../shared/pipeline/refusal-code';
import { type TriageCompletedDetail, TriageCompletedDetailSchema } from '../shared/pipeline/triage-completed-detail';
import type { LineageStore } from '../shared/ports/lineage-store';
import { parseInput } from '../shared/schemas/parse';
import type { TrustedHead } from '../shared/seal/trusted-head';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import type { DeploymentChainRead, DeploymentChainReader } from './deployment-chain-reader';
import { LogVerificationError, TimeoutError } from './errors';
import type { FreshnessPolicy } from './freshness-policy';
import { localRecallAnswer } from './local-recall-answer';
import type { LatestCheckpoint, LogReader } from './log-reader';
import { type PollClock, pollUntil, type WaitOptions } from './poll';
import { freshnessOf, provenRecordFreshness } from './proven-record-freshness';
import type { RecallRequest, StackPublisher } from './publisher';
import { recallAbsence } from './recall-absence';
import type { SeenSeals } from './seen-seals';
import { treeVoucher } from './tree-voucher';
import {
  type DeploymentRollbackCheck,
  decideRecall,
  type TruncationReference,
  type VerifiedRecall,
} from './verified-recall';

/** The newest signed checkpoint the client read itself before asking: proven, absent (`null`), or a finding. */
type Newest = LatestCheckpoint | null | { readonly finding: HeadFinding };

/** Why something does not verify: a verdict and its reason. */
type Finding = Pick<CheckpointFinding, 'reason'> & { readonly verdict: VerificationVerdict };

/** The client's own finding on the head it read; `proven`: shown by signed checkpoints alone. */
type HeadFinding = Finding & { readonly proven?: boolean };

/** Dependencies of {@link Recalls}. */
export interface RecallsDeps extends PollClock {
  readonly store: Pick<LineageStore, 'getTriageReport' | 'readRecord' | 'findByResidualId'>;
  readonly log: LogReader;
  readonly publisher: Pick<StackPublisher, 'requestRecall'>;
  /**
   * The deployment chain's reader (docs/deployment-log.md, "Clients"), or `null`: then no
   * freshness is checked and every recall's `freshness` is `null`.
   */
  readonly freshness: DeploymentChainReader | null;
  /**
   * The seals of this client's own writes it saw awaiting integration (docs/verifiable-log.md,
   * "Seals seen awaiting integration"): a recall whose lineage no longer holds one is refused as a
   * rollback. A recall never adds one (what it reads past the index, a table writer can forge).
   * Absent or `null`: nothing is checked.
   */
  readonly seen?: SeenSeals | null;
}

/**
 * The chain read before the request, with the policy it was checked against: read once per
 * recall, its residual id's entry proven later under the same deployment checkpoint.
 */
interface ChainRead {
  readonly chain: ReadDeploymentChain;
  readonly withResidual: DeploymentChainRead['withResidual'];
  readonly policy: FreshnessPolicy;
}

/**
 * The deployment checkpoint a verified chain was read from, as a rollback check (`kept`: the
 * reader compared it with, and keeps it in, the client's checkpoint store); `null` when the chain
 * verified none (unpublished, refused).
 */
function deploymentCheck(read: ChainRead, kept: boolean): DeploymentRollbackCheck | null {
  const { chain, policy } = read;
  if (chain.kind !== 'PROVEN' && chain.kind !== 'ABSENT') return null;
  return {
    size: chain.checkpoint.size,
    kept,
    witnessed: policy.witnessing === 'WITNESSED',
    windowSeconds: policy.windowSeconds,
  };
}

/**
 * Recalls through the stack, checked with public keys alone (docs/verifiable-log.md, "Recall"):
 * triage's stored answer is diagnostic; the client proves the record in the latest signed
 * checkpoint, recomputes the delta, and checks the refusals it can check itself.
 */
export class Recalls {
  readonly #deps: RecallsDeps;
  constructor(deps: RecallsDeps) {
    this.#deps = deps;
  }

  /**
   * Polls the table until the triage report of a recall appears.
   *
   * @throws {TimeoutError} naming the report when it does not appear within `timeoutMs`
   */
  async waitForTriageReport(
    lineageId: string,
    requestId: string,
    options: WaitOptions = {},
  ): Promise<TriageCompletedDetail> {
    return pollUntil(
      async () => {
        // Only a well-formed answer for this very request is returned; anything else stored under the
        // id (a forgery, garbage) is waited past: triage overwrites it when it answers.
        const stored = TriageCompletedDetailSchema.safeParse(
          await this.#deps.store.getTriageReport(lineageId, requestId),
        );
        return stored.success && stored.data.requestId === requestId && stored.data.lineageId === lineageId
          ? stored.data
          : null;
      },
      this.#deps,
      {
        ...options,
        timedOut: (timeoutMs) =>
          new TimeoutError(`triage report of recall ${requestId} (lineage ${lineageId})`, timeoutMs),
      },
    );
  }

  /**
   * Requests a recall, waits for triage's answer and decides it with public keys alone
   * (docs/verifiable-log.md, "Recall"), as named steps:
   * 1. the kept checkpoint and the caller's `trustedCheckpoint` (each must verify; the larger
   *    binds the answer, sent to triage for its consistency proof);
   * 2. the newest head, read by this client from the head item (not from the answer): its signed
   *    checkpoint, or a MAC'd head's tree, shown consistent with the kept one, and the deployment
   *    chain, both before the request is sent;
   * 3. the answer (`checkRecallAnswer`): the record proven in the answer's signed checkpoint,
   *    consistent with the trusted one, the target, and the delta recomputed from the proven
   *    record and `currentEnv`;
   * 4. freshness: the answer's checkpoint is no older than the newest of step 2 and extends it
   *    (a replayed older answer is `UNVERIFIED_TAMPER_RISK`);
   * 5. the caller's `checkpoint` `{ seq, recordHash }`: that record proven in the answer's checkpoint;
   * 6. the tree vouched for: a signed checkpoint by its signature, a MAC'd head's tree only by the
   *    deployment index (freshness `PROVEN`); else sealed, awaiting integration (no verdict, no record);
   * 7. a refusal triage could not prove, checked where the client can;
   * then a proven newer checkpoint is kept, and the recall decided ({@link decideRecall}).
   *
   * @throws {TimeoutError} when no answer appears within `timeoutMs` (default 60,000)
   * @throws {LogVerificationError} when the kept checkpoint does not verify
   * @throws {InvalidInputError} when the caller's `trustedCheckpoint` does not verify
   */
  async recall(request: RecallRequest, options: WaitOptions = {}): Promise<VerifiedRecall> {
    return this.#recall(request, async ({ trusted }) => {
      const requestId = await this.#deps.publisher.requestRecall({
        ...request,
        ...(trusted ? { trustedCheckpoint: trusted.note } : {}),
      });
      const answer = await this.waitForTriageReport(request.lineageId, requestId, options);
      const seq = answer.proof?.seq;
      const record = seq === undefined ? null : await this.#deps.store.readRecord(request.lineageId, seq);
      return { requestId, answer, record };
    });
  }

  /**
   * A recall the client answers itself, without triage's event round trip (`RecallRequested`,
   * `TriageCompleted`; docs/verifiable-log.md, "Recall", "Without triage"): the answer triage would
   * give is built from the reads steps 1 and 2 already made (the head item's tree, its consistency
   * with the kept checkpoint) and the target record with its inclusion proof
   * ({@link localRecallAnswer}), then decided by the very steps 3–7 of {@link recall}: a table
   * writer's items are no more trusted here than in triage's answer. Triage stays for
   * orchestration (its event); nothing is put on the bus and no report is stored.
   *
   * @throws {InvalidInputError} naming each bad field of the request, or a `trustedCheckpoint` that does not verify
   * @throws {LogVerificationError} when the kept checkpoint does not verify
   */
  async recallDirect(request: RecallRequest): Promise<VerifiedRecall> {
    const parsed = parseInput(
      RecallRequestedDetailSchema,
      { ...request, requestId: request.requestId ?? `direct-${randomUUID()}` },
      'recall request',
    );
    return this.#recall(
      parsed,
      async ({ trusted, newest }) => ({
        requestId: parsed.requestId,
        ...(await localRecallAnswer(this.#deps, parsed, newest, trusted)),
      }),
      'client',
    );
  }

  /** Steps 1–7 of {@link recall}, the answer and its record from `answerOf` (triage's, or the client's own). */
  async #recall(
    request: RecallRequest,
    answerOf: (asked: {
      readonly trusted: VerifiedCheckpoint | null;
      readonly newest: Newest;
    }) => Promise<{ readonly requestId: string; readonly answer: TriageCompletedDetail; readonly record: unknown }>,
    answeredBy: 'triage' | 'client' = 'triage',
  ): Promise<VerifiedRecall> {
    const { lineageId, target } = request;
    const kept = await this.#deps.log.trusted(lineageId);
    const given = request.trustedCheckpoint ? await this.#openGiven(lineageId, request.trustedCheckpoint) : null;
    // A caller's older checkpoint can never stand in for a newer one this client kept.
    const trusted = kept && (!given || kept.size >= given.size) ? kept : given;
    const newest = await this.#newest(lineageId);
    // Read before asking: an index head larger than the answer then shows a replayed answer, never
    // a write that landed while triage worked.
    const chain = await this.#chain(lineageId, 'residualId' in target ? target.residualId : undefined);
    const { requestId, answer, record } = await answerOf({ trusted, newest });
    let check = checkRecallAnswer({
      report: answer,
      record,
      key: await this.#deps.log.key(),
      lineageId,
      requestId,
      target,
      currentEnv: request.currentEnv,
      trusted,
      answeredBy,
    });
    if (answeredBy === 'client' && newest && 'finding' in newest && newest.finding.proven) {
      // The client's own refusal from two signed checkpoints it checked (a rollback): proven, so
      // not worded as its reading of the table (docs/verifiable-log.md, "Without triage").
      check = { ...check, verdict: newest.finding.verdict, reason: newest.finding.reason };
    }
    if (check.verdict === VerificationVerdict.VERIFIED_INTACT && check.checkpoint) {
      check = await this.#checkFresh(lineageId, newest, check, check.checkpoint, chain?.chain ?? null);
    }
    if (check.verdict === VerificationVerdict.VERIFIED_INTACT && check.checkpoint && request.checkpoint) {
      check = await this.#checkHeld(lineageId, request.checkpoint, check, check.checkpoint);
    }
    let freshness: RecordFreshness | null = null;
    if (check.verdict === VerificationVerdict.VERIFIED_INTACT && check.checkpoint && check.record && !chain) {
      if (check.checkpoint.note === null) check = awaiting(check, 'this client reads no deployment log');
    }
    if (check.verdict === VerificationVerdict.VERIFIED_INTACT && check.checkpoint && check.record && chain) {
      freshness = await provenRecordFreshness(
        this.#deps.log,
        lineageId,
        chain.chain,
        check.checkpoint,
        check.record,
        { latest: 'latest' in target, residualAsked: 'residualId' in target },
        chain.withResidual,
      );
      if (freshness.finding) check = refuted(check, freshness.finding);
      // Step 6: a tree only the sealer vouches for (a head it MAC'd) is proven memory only where
      // the index holds it (docs/deployment-log.md, "Clients"); past that, awaiting integration.
      // Not remembered as a seal seen: a table writer can forge that tree and record, and a forged
      // seal kept would refuse the honest table later (docs/verifiable-log.md, "Seals seen
      // awaiting integration"); only a write this client published and waited for is kept.
      else if (check.checkpoint?.note === null && freshness.state !== FreshnessState.PROVEN)
        check = awaiting(check, freshness.reason);
    }
    if (check.verdict === null && check.refusal)
      check = await this.#checkRefusal(request, check, newest, trusted, chain?.chain ?? null);
    let hiddenSealFound = false;
    if (
      'residualId' in target &&
      answeredBy === 'triage' &&
      answer.proof === null &&
      (await this.#markerLocatesNothing(request, check))
    ) {
      // Triage's refusal of a marker naming no valid seq (`LINEAGE_BROKEN`) is its unproven word,
      // and such a marker may hide a seal: searched as for a deleted marker (docs/verifiable-log.md,
      // "Recall"). A seal proven replaces the refusal; none found leaves it, as triage's claim.
      const indexed = chain ? decideAbsence(chain.chain, { residualId: target.residualId }) : null;
      const past = indexed?.finding
        ? null
        : await recallAbsence(
            this.#deps.log,
            { lineageId, residualId: target.residualId },
            newest && 'checkpoint' in newest ? newest : null,
            chain?.chain ?? null,
            indexed,
          );
      const found = indexed?.finding ?? past?.finding ?? null;
      if (found) {
        check = { ...check, verdict: found.verdict, reason: found.reason };
        freshness = indexed?.finding ? indexed : (past?.freshness ?? null);
        hiddenSealFound = true;
      }
    }
    if (check.verdict === null && check.refusal?.code === RefusalCode.NOT_FOUND && chain) {
      freshness = decideAbsence(
        chain.chain,
        'residualId' in target ? { residualId: target.residualId } : { seq: 'seq' in target ? target.seq : 0 },
      );
      if (freshness?.finding)
        check = { ...check, verdict: freshness.finding.verdict, reason: freshness.finding.reason };
    }
    if (check.verdict === null && check.refusal?.code === RefusalCode.NOT_FOUND && 'residualId' in target) {
      // Absent from the index only as of its last integration: the records past it are searched too.
      const latest = newest && 'checkpoint' in newest ? newest : null;
      const past = await recallAbsence(
        this.#deps.log,
        { lineageId, residualId: target.residualId },
        latest,
        chain?.chain ?? null,
        freshness,
      );
      freshness = past.freshness;
      if (past.finding) check = { ...check, verdict: past.finding.verdict, reason: past.finding.reason };
    }
    // A residual id the index proves settles every seal kept of it, at whatever seq: the index is the authority.
    if (
      this.#deps.seen &&
      'residualId' in target &&
      check.verdict === VerificationVerdict.VERIFIED_INTACT &&
      freshness?.state === FreshnessState.PROVEN
    )
      await this.#deps.seen.forget(lineageId, target.residualId);
    const rollback = await this.#seenRollback(lineageId, target, check, newest, chain?.chain ?? null);
    if (rollback) {
      check = { ...refuted(check, rollback), awaitingIntegration: false };
      freshness = freshness && {
        ...freshness,
        state: FreshnessState.NOT_NEWEST,
        reason: rollback.reason,
        finding: rollback,
      };
    }
    if (check.verdict === VerificationVerdict.VERIFIED_INTACT && check.checkpoint) {
      await this.#deps.log.keep(lineageId, check.checkpoint, trusted);
    }
    const against: TruncationReference[] = [
      ...(kept ? [{ kind: 'KEPT_CHECKPOINT' as const, size: kept.size }] : []),
      ...(given && given === trusted ? [{ kind: 'GIVEN_CHECKPOINT' as const, size: given.size }] : []),
      ...(request.checkpoint ? [{ kind: 'GIVEN_HEAD' as const, ...request.checkpoint }] : []),
    ];
    const decided = decideRecall({
      requestId,
      lineageId,
      target,
      report: answer,
      check,
      newestSize: newest && 'checkpoint' in newest ? newest.checkpoint.size : null,
      truncationCheckedAgainst: against,
      freshness: chain && freshness ? freshnessOf(freshness, chain.policy) : null,
      deployment: chain && deploymentCheck(chain, this.#deps.freshness?.keepsCheckpoint === true),
      keepsCheckpoints: this.#deps.log.keepsCheckpoints === true,
      readsDeploymentLog: this.#deps.freshness !== null,
      answeredBy,
    });
    // The hidden seal is this client's finding from the signed log and the index, not triage's.
    return hiddenSealFound ? { ...decided, detectedBy: 'client' } : decided;
  }

  /**
   * Whether `check` is triage's unproven `VERIFICATION_FAILED` (no proof, no record) for a residual id whose
   * marker, as read here, names no valid seq (not a safe integer ≥ 0): a marker that locates
   * nothing, as a deleted one.
   */
  async #markerLocatesNothing(request: RecallRequest, check: RecallCheck): Promise<boolean> {
    const { lineageId, target } = request;
    if (!('residualId' in target) || check.record !== null) return false;
    if (check.refusal?.code !== RefusalCode.VERIFICATION_FAILED || check.refusal.proven) return false;
    const location = await this.#deps.store.findByResidualId(lineageId, target.residualId);
    return (
      location !== null &&
      location.lineageId === lineageId &&
      !(Number.isSafeInteger(location.seq) && location.seq >= 0)
    );
  }

  /**
   * The seals this client saw awaiting integration, held against the lineage as this recall read it
   * (docs/verifiable-log.md, "Seals seen awaiting integration"): one the head's tree no longer
   * holds (smaller, another record at its seq) or whose residual id this recall would answer
   * absent is a rollback of records not yet integrated, `UNVERIFIED_TAMPER_RISK`; `null` otherwise,
   * and then the seals the index now covers are forgotten. A recall already refused is left as is.
   */
  async #seenRollback(
    lineageId: string,
    target: RecallRequest['target'],
    check: RecallCheck,
    newest: Newest,
    chain: ReadDeploymentChain | null,
  ): Promise<Finding | null> {
    const seen = this.#deps.seen;
    if (!seen || (newest !== null && 'finding' in newest)) return null;
    if (check.verdict !== null && check.verdict !== VerificationVerdict.VERIFIED_INTACT) return null;
    const absent =
      check.verdict === null && check.refusal?.code === RefusalCode.NOT_FOUND && 'residualId' in target
        ? target.residualId
        : undefined;
    const found = await seen.contradiction(this.#deps.log, lineageId, newest, absent);
    // Seals the index now covers are settled by it: forgotten, after a contradiction of one is
    // reported this once (the kept deployment checkpoint catches any later rollback of them).
    const indexed = chain && (chain.kind === 'PROVEN' || chain.kind === 'ABSENT') ? chain.lineage?.treeSize : undefined;
    if (indexed !== undefined) await seen.prune(lineageId, indexed);
    if (found) return { verdict: VerificationVerdict.UNVERIFIED_TAMPER_RISK, reason: found.reason };
    return null;
  }

  /** The deployment chain for the lineage (and residual id), or `null` when this client checks no freshness. */
  async #chain(lineageId: string, residualId: string | undefined): Promise<ChainRead | null> {
    const reader = this.#deps.freshness;
    if (!reader) return null;
    const policy = await reader.policy();
    // Eventually consistent: the note is signed and its age judged by the policy (OpenOptions.eventual).
    const { chain, withResidual } = await reader.open(
      { lineageId, ...(residualId === undefined ? {} : { residualId }) },
      { eventual: true },
    );
    return { chain, withResidual, policy };
  }

  /** Step 2: the newest signed checkpoint from the head item, consistent with the kept one; a finding is a value. */
  async #newest(lineageId: string): Promise<Newest> {
    try {
      return await this.#deps.log.latest(lineageId);
    } catch (error) {
      if (!(error instanceof LogVerificationError)) throw error;
      return { finding: { verdict: error.verdict, reason: error.reason, proven: error.proven } };
    }
  }

  /**
   * Step 4: an answer proven in a checkpoint older than the newest this client read itself is a
   * replayed answer; one newer must extend it (consistency proof from the table's nodes).
   */
  async #checkFresh(
    lineageId: string,
    newest: Newest,
    check: RecallCheck,
    answered: Checkpoint,
    chain: ReadDeploymentChain | null,
  ): Promise<RecallCheck> {
    if (newest === null) {
      // No head was readable before the request, yet the answer proves a record: read the head
      // again, so a head hidden during step 2 and restored after cannot pass an older answer.
      // A lineage whose first records landed during the recall passes when the answer is its newest.
      const again = await this.#newest(lineageId);
      if (again === null) {
        return refuted(check, {
          verdict: VerificationVerdict.UNVERIFIED_TAMPER_RISK,
          reason: `the answer proves a record of lineage ${lineageId}, but the table shows no tree head of it (neither a signed checkpoint nor a head the sealer MAC'd)`,
        });
      }
      return this.#checkFresh(lineageId, again, check, answered, chain);
    }
    if ('finding' in newest) return refuted(check, newest.finding);
    const consistency =
      answered.size > newest.checkpoint.size
        ? await this.#deps.log.consistency(lineageId, newest.checkpoint, answered)
        : null;
    if (consistency && 'kind' in consistency) return refuted(check, consistency);
    const stale = checkAnswerFreshness(newest.checkpoint, answered, consistency, treeVoucher(newest.checkpoint, chain));
    return stale ? refuted(check, stale) : check;
  }

  /** The caller's `trustedCheckpoint`, verified; one that does not verify is bad input. */
  async #openGiven(lineageId: string, note: string) {
    try {
      return await this.#deps.log.open(lineageId, note);
    } catch (error) {
      if (error instanceof SignerUnavailableError || !(error instanceof ResealError)) throw error;
      throw new InvalidInputError('recall request', [
        { path: 'trustedCheckpoint', message: `does not verify with the log key: ${error.message}` },
      ]);
    }
  }

  /**
   * A refusal triage could not prove, checked where the client can (docs/verifiable-log.md,
   * "Recall"): the request was validated here, so `INVALID_REQUEST` is not triage's answer; a
   * `NOT_FOUND` for a record the signed checkpoint covers (or whose marker leads to a proven record)
   * is not either. Both become `UNVERIFIED_TAMPER_RISK`. A `NOT_FOUND` for a record a trusted
   * checkpoint (kept, given, or the caller's `{ seq, recordHash }`) saw, which the table no longer
   * covers, is `TRUNCATION_DETECTED`. A `NOT_FOUND` the log cannot contradict stands, as triage's claim.
   */
  async #checkRefusal(
    request: RecallRequest,
    check: RecallCheck,
    newest: Newest,
    trusted: VerifiedCheckpoint | null,
    chain: ReadDeploymentChain | null,
  ): Promise<RecallCheck> {
    const forged = (reason: string): RecallCheck => ({
      ...check,
      verdict: VerificationVerdict.UNVERIFIED_TAMPER_RISK,
      reason,
    });
    if (check.refusal?.code === RefusalCode.INVALID_REQUEST) {
      return forged("the stored answer calls the request invalid, but it validates: not triage's answer");
    }
    if (check.refusal?.code !== RefusalCode.NOT_FOUND) return check;
    const { lineageId, target } = request;
    if (newest !== null && 'finding' in newest) {
      return { ...check, verdict: newest.finding.verdict, reason: newest.finding.reason };
    }
    const latest = newest;
    // What a trusted source saw of this lineage: a record the table no longer has was cut.
    const sawSize = Math.max(trusted?.size ?? 0, request.checkpoint ? request.checkpoint.seq + 1 : 0);
    const tableSize = latest?.checkpoint.size ?? 0;
    if (sawSize > tableSize) {
      return {
        ...check,
        verdict: VerificationVerdict.TRUNCATION_DETECTED,
        reason: `truncated: the stored answer says the record does not exist and the table shows ${latest ? treeVoucher(latest.checkpoint, chain) : 'no tree head'}, but a trusted checkpoint saw ${sawSize} records`,
      };
    }
    if (latest === null) {
      // No head item (records or none). Not indexed: a first append in flight or crashed, or no
      // lineage. Indexed: the head was deleted (docs/sealing.md, "The append's layout").
      if ((chain?.kind === 'PROVEN' || chain?.kind === 'ABSENT') && chain.lineage) {
        return forged(
          `the stored answer says the record does not exist and the table shows no head item of the lineage, but the index holds ${chain.lineage.treeSize} records of it as of deployment checkpoint ${chain.checkpoint.size} (head deleted)`,
        );
      }
      return check;
    }
    const size = latest.checkpoint.size;
    if (('seq' in target && target.seq < size) || ('latest' in target && size > 0)) {
      return forged(
        `the stored answer says the record does not exist, but the client read ${treeVoucher(latest.checkpoint, chain)}`,
      );
    }
    if ('residualId' in target) {
      const location = await this.#deps.store.findByResidualId(lineageId, target.residualId);
      if (location && location.seq < size) {
        const proven = await this.#deps.log.proveIn(lineageId, location.seq, latest).catch(() => null);
        if (proven?.record.header.residualId === target.residualId) {
          return forged(
            `the stored answer says residual ${target.residualId} does not exist, but it is proven at seq ${location.seq} in ${treeVoucher(latest.checkpoint, chain)}`,
          );
        }
      }
    }
    return check;
  }

  /**
   * Step 5: a `{ seq, recordHash }` the caller trusts (from a `ResidualSealed` event): the record
   * at `seq` must be in the proven checkpoint with that hash, checked here, not taken from
   * triage's word (`checkHeldRecord`, shared with triage).
   */
  async #checkHeld(
    lineageId: string,
    held: TrustedHead,
    check: RecallCheck,
    answered: StoredTreeHead,
  ): Promise<RecallCheck> {
    const finding = await this.#deps.log.checkHeld(lineageId, held, answered);
    return finding ? refuted(check, finding) : check;
  }
}

/**
 * `check` of a record proven only in a tree the sealer MAC'd, which the index does not hold yet:
 * sealed, awaiting integration; nothing of the record is passed on, and no verdict is given.
 */
function awaiting(check: RecallCheck, why: string): RecallCheck {
  return {
    ...check,
    verdict: null,
    reason: `sealed, awaiting integration: the record is proven only in the head item's tree (the sealer's word, no signed checkpoint), which no deployment checkpoint vouches for yet (${why}); recall again after the integration interval`,
    record: null,
    inclusion: null,
    delta: null,
    awaitingIntegration: true,
  };
}

/** `check` refuted by a finding: nothing of the record is passed on. */
function refuted(check: RecallCheck, finding: Finding): RecallCheck {
  return { ...check, verdict: finding.verdict, reason: finding.reason, record: null, inclusion: null, delta: null };
}
