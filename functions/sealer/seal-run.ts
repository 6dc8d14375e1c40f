import { isDeepStrictEqual } from 'node:util';
import { admitWrite } from '../../shared/authorship/admit-write';
import type { LineagePolicy } from '../../shared/authorship/lineage-policy';
import { REPLAY_SEARCH_MARGIN_MS } from '../../shared/authorship/signed-write';
import {
  HeadNotMovedError,
  IntegrationBacklogError,
  RecordSeqTakenError,
  ResealError,
  type ResidualLocation,
  StaleEpochError,
  StaleHeadError,
} from '../../shared/errors';
import type { LineageIndexValue, ResidualIndexValue } from '../../shared/index/index-entry';
import { checkAgainstIndex } from '../../shared/integrator/check-against-index';
import type { LogState } from '../../shared/log/log-state';
import { MAX_ROLL_FORWARD_RECORDS } from '../../shared/log/records-past-head';
import { RejectionReason } from '../../shared/pipeline/rejection-reason';
import type { SealedTreeHead } from '../../shared/pipeline/sealed-tree-head';
import { ConflictReason as Conflict } from '../../shared/ports/conflict-reason';
import type { LineageStore } from '../../shared/ports/lineage-store';
import type { MacAnchor } from '../../shared/ports/mac-anchor';
import type { ChainTip } from '../../shared/seal/chain-tip';
import type { LineageHead } from '../../shared/seal/lineage-head';
import { macRecords, type RecordMac, type RecordToMac } from '../../shared/seal/mac-records';
import { recordOnTip, sealedRecordWithMac, type UnmacdRecord } from '../../shared/seal/seal-record';
import type { SealedRecord } from '../../shared/seal/sealed-record';
import { sealsSignedRequest } from '../../shared/seal/seals-signed-request';
import { MetricName } from '../common/metric-name';
import type { PipelineMetrics } from '../common/pipeline-metrics';
import type { ServiceLogger } from '../common/service-logger';
import { appendBackoff, type BackoffClock, MAX_APPEND_ATTEMPTS } from './append-backoff';
import type { MacBatchMember } from './mac-batcher';
import type { Pending, SealOutcome, SealOutcomes } from './seal-outcomes';
import { MAX_REMEMBERED_LINEAGES } from './sealed-heads';
import type { SealedRunNoticeBatch } from './sealed-run-notice-batch';
import type { IndexFloor, IndexFloors, IndexUnverifiable } from './sealer-index';
import type { LineageRefusal, SealerLog } from './sealer-log';

/**
 * Most records appended in one run: also the most the roll-forward takes past a head item
 * (`MAX_ROLL_FORWARD_RECORDS`), since a crash leaves at most one run (docs/sealing.md, "The roll-forward").
 */
export const MAX_RUN_RECORDS = MAX_ROLL_FORWARD_RECORDS;
/**
 * Most records the sealer reads, per run, past a lineage's indexed head and sealed since the
 * run's oldest signing time minus {@link REPLAY_SEARCH_MARGIN_MS}, to look for the run's residual
 * ids that have neither an index entry nor a marker, or whose write admission refuses and whose
 * marker names no record of that very request (docs/sealing.md, "The index floor"). A cost
 * bound, not a backlog bound: only records sealed within that window count, so a backlog of any
 * size past the index seals on; more than this many within the window (a burst the integrator has
 * not caught up with) refuses the run retryably (`IntegrationBacklogError`).
 */
export const MAX_UNINTEGRATED_SEARCH = 4096;

/**
 * How long after this sealer moved a lineage's head its next run of that lineage skips the
 * tentative copy and reads the head strongly at once, ms: a copy that young is the likeliest to
 * miss that move (DynamoDB's eventually consistent copies usually catch up within a second), and a
 * warm sealer refuses nothing on it but pays a second read. A busy lineage's back-to-back runs
 * read strongly; a sparse lineage's (a write a second or less often) read the copy.
 */
export const FRESH_HEAD_MS = 500;

/** Most body bytes of one run, UTF-8 (a bound on what one run holds in memory and writes). */
export const MAX_RUN_BODY_BYTES = 3_000_000;

/** What {@link RunSealer} needs. */
export interface RunSealerDeps extends BackoffClock {
  readonly store: LineageStore;
  /** MACs records (alone, or a batch of them) and head states (KMS `HMAC_256`, the records' anchor). */
  readonly anchor: MacAnchor;
  readonly metrics: PipelineMetrics;
  readonly logger: ServiceLogger;
  readonly clock: () => number;
  /** Override of {@link MAX_APPEND_ATTEMPTS}. */
  readonly maxAppendAttempts?: number;
  /** Override of {@link MAX_UNINTEGRATED_SEARCH}. */
  readonly maxUnintegratedSearch?: number;
}

/** A write sealed on the tip, waiting for its MAC (the invocation's record batch). */
interface OnTip {
  readonly item: Pending;
  readonly record: UnmacdRecord;
  /** The record's header bytes. */
  readonly message: Uint8Array;
}

/**
 * What step 3 gives ({@link RunSealer}'s `#sealOnTip`): the writes sealed on the tip, to append,
 * and the outcomes of the writes settled without an append (duplicates, refusals, conflicts), by
 * the write's index in the run.
 */
interface OnTipAndSettled {
  readonly sealed: OnTip[];
  readonly settled: Map<number, SealOutcome>;
}

/**
 * Thrown, before any side effect, where a run's tentative attempt (decided on eventually
 * consistent copies, {@link RunSealer.seal}) would settle a write other than by appending it: the
 * attempt is made again on a strong read, so no outcome but a landed append rests on a copy.
 */
class TentativeDecision extends Error {
  constructor() {
    super('decided on a strong read only');
    this.name = 'TentativeDecision';
  }
}

/** A write sealed on the tip with its MAC, waiting for the append. */
interface Sealed {
  readonly item: Pending;
  readonly record: SealedRecord;
}

/**
 * Steps 2–5 of the sealer for one run (consecutive writes to one lineage, docs/verifiable-log.md
 * "Appending"): the lineage state authenticated, each write sealed on its tip, the records put,
 * then (only once they landed) the new tree's head state MAC'd (with the other runs' of the
 * invocation, one `GenerateMac`: mac-batcher.ts; no `Sign`), then the head moved with the markers
 * (docs/sealing.md, "The write"), each write's outcome announced (sealed, awaiting integration).
 * A run of records a crash left past the head is rolled forward first (`SealerLog.authenticatedState`).
 * A lost race waits (exponential backoff, full jitter), re-reads and re-seals what is left, up to
 * {@link MAX_APPEND_ATTEMPTS}; then `LOST_RACE` conflicts, but only for writes none of whose
 * records landed: a run whose records stand but whose head does not move ends retryably
 * (`HeadNotMovedError`). `STALE_EPOCH` is decided
 * on the authenticated tip only (its epoch is the authenticated head record's), never on a head item's
 * attribute or on what a failed append saw: a table writer can delay a write, not fence it out.
 */
export class RunSealer {
  readonly #deps: RunSealerDeps;
  readonly #log: SealerLog;
  readonly #outcomes: SealOutcomes;
  /** When this sealer last moved each lineage's head (ms, its clock), oldest forgotten first past `MAX_REMEMBERED_LINEAGES`. */
  readonly #movedAtMs = new Map<string, number>();

  constructor(deps: RunSealerDeps, log: SealerLog, outcomes: SealOutcomes) {
    this.#deps = deps;
    this.#log = log;
    this.#outcomes = outcomes;
  }

  /**
   * Seals a run of writes to one lineage; returns each message's outcome by index.
   *
   * @param index - the floors of this run's invocation (one deployment-head read shared by its
   *   runs, docs/pipeline.md "Concurrency") the run is checked against (docs/sealing.md, "The
   *   index floor"); `null`: none
   * @param recordMacs - the run's group in its invocation's record MAC batch (mac-batcher.ts): the
   *   run's records are MAC'd with the other runs', before they are stored; absent: a batch of their own
   * @param notices - the invocation's sealed-run notices (sealed-run-notice-batch.ts), sent once
   *   its runs are done; `null`: no integrator, no notice
   */
  async seal(
    run: readonly Pending[],
    index: IndexFloors | null,
    recordMacs: MacBatchMember<readonly RecordToMac[], readonly RecordMac[]> | null = null,
    notices: SealedRunNoticeBatch | null = null,
  ): Promise<Map<number, SealOutcome>> {
    const lineageId = (run[0] as Pending).request.request.lineageId;
    const outcomes = new Map<number, SealOutcome>();
    let remaining = [...run];
    const attempts = this.#deps.maxAppendAttempts ?? MAX_APPEND_ATTEMPTS;
    let lastRace: StaleHeadError | RecordSeqTakenError | null = null;
    let expectedHead: LineageHead | null = null;
    // The header each write was last sealed with, for the conflict record of a write that never lands.
    const attempted = new Map<number, unknown>();
    // Residual ids whose records this run stored: their writes are never refused (docs/sealing.md, "The write").
    const landed = new Set<string>();
    const lostRace = async (attempt: number, error: StaleHeadError | RecordSeqTakenError) => {
      // Another writer appended first, or the head item was changed, or the tentative copy was an
      // older head: re-read strongly, re-authenticate (and roll forward), re-seal what is left.
      // What the failed write saw is the table's word.
      lastRace = error;
      tentative = false;
      this.#deps.metrics.count(MetricName.SealRetry);
      this.#deps.logger.warn('lost the append race; re-reading the lineage', { attempt, reason: error.name });
      if (attempt < attempts) await appendBackoff(attempt, this.#deps);
    };
    // The index is read once per run (the first attempt); a later attempt checks its re-read state against it.
    let floor: IndexFloor | IndexUnverifiable | null = null;
    // The first read of the run is tentative (unless this sealer moved the head within
    // FRESH_HEAD_MS): eventually consistent copies of the head item and of the records past it
    // (half the read units each; the head may be an older one). Stale is safe
    // because the run goes on from them only to its append, whose conditions catch an older head
    // (the first record put needs its seq new: a record stands there past an older head; the head
    // move needs the head as read), and an append that loses them is a lost race, retried on a
    // strong read; every other decision (a refusal, a conflict, a duplicate answer, a roll-forward)
    // is made on a strong re-read, at once and as the same attempt (docs/sealing.md, "The reads of a run").
    let tentative = !this.#movedWithin(lineageId, FRESH_HEAD_MS);
    // A refusal of the tentative copy, kept so that a strong read of the same items decides it
    // without asking KMS again (a head refused on its MAC is one `VerifyMac`, as before).
    let refusedCopy: { readonly items: unknown; readonly refusal: LineageRefusal } | null = null;
    for (let attempt = 1; attempt <= attempts && remaining.length > 0; attempt++) {
      // Independent reads, overlapped: the head item then the records stored past it (the
      // roll-forward's read, which needs only the head as read), and (first attempt) the index
      // floor after the log's public key (a KMS call on a cold start only) over the invocation's
      // deployment-head read. Neither depends on the other: the floor is decided against the
      // authenticated state below, whichever answered first. Reading the records past the head
      // beside the floor's tile reads, not after them, takes one round trip off every run.
      const eventual = tentative;
      const [{ stored, pastHead }, read] = await Promise.all([
        this.#deps.store.logHead(lineageId, { eventual }).then(async (stored) => ({
          stored,
          pastHead: await this.#log.rawsPastHead(lineageId, stored, { eventual }),
        })),
        this.#log.verifierKey().then((key) =>
          index && floor === null
            ? index.floor(
                lineageId,
                run.map((item) => item.request.request.residualId),
                key,
              )
            : floor,
        ),
      ]);
      floor = read;
      // Records past the tentative head (a crash's run to roll forward, or an older head's
      // successors), or a head item whose seq is no seq: decided on a strong read only.
      if (tentative && (pastHead === null || pastHead.raws.length > 0)) {
        tentative = false;
        attempt--;
        continue;
      }
      expectedHead = stored?.head ?? null;
      // The head item is authenticated by its head-state MAC, an older head's signed checkpoint, or
      // by being exactly the head the deployment index holds (docs/verifiable-log.md, "Appending");
      // a run of records past it is rolled forward, the head moved first (docs/sealing.md, "The roll-forward").
      const indexed = floor?.kind === 'FLOOR' ? floor.lineage : null;
      let authenticated: Awaited<ReturnType<SealerLog['authenticatedState']>>;
      try {
        authenticated =
          refusedCopy !== null && isDeepStrictEqual(refusedCopy.items, [stored, pastHead, indexed])
            ? refusedCopy.refusal
            : await this.#log.authenticatedState(lineageId, stored, indexed, pastHead);
      } catch (error) {
        if (!(error instanceof StaleHeadError)) throw error;
        await lostRace(attempt, error);
        continue;
      }
      if ('reason' in authenticated && tentative) {
        // Refused on a copy (an older head is "rolled back" behind this warm sealer): read strongly.
        refusedCopy = { items: [stored, pastHead, indexed], refusal: authenticated };
        tentative = false;
        attempt--;
        continue;
      }
      if ('reason' in authenticated) {
        const { reason, sealedResidualIds } = authenticated;
        this.#refuseNoLandedWrite(lineageId, remaining, landed, sealedResidualIds, reason);
        const heads = { expectedHead, observedHead: null };
        await this.#outcomes.conflictAll(remaining, outcomes, Conflict.LINEAGE_INCONSISTENT, reason, () => heads);
        return outcomes;
      }
      const { state, rolledForward } = authenticated;
      expectedHead = authenticated.head;
      // The rolled-forward records' notice: the integrator integrates the head it was moved to.
      if (rolledForward.length > 0) this.#notify(notices, state, rolledForward);
      let onTipAndSettled: OnTipAndSettled;
      try {
        if (floor !== null && (await this.#refusedByIndex(remaining, outcomes, state, floor, landed, tentative))) {
          return outcomes;
        }
        onTipAndSettled = await this.#sealOnTip(
          remaining,
          state,
          expectedHead,
          floor?.kind === 'FLOOR' ? floor : null,
          tentative,
        );
      } catch (error) {
        if (!(error instanceof TentativeDecision)) throw error;
        tentative = false;
        attempt--;
        continue;
      }
      const { sealed: onTip, settled } = onTipAndSettled;
      for (const { item, record } of onTip) attempted.set(item.index, record.header);
      for (const [index, outcome] of settled) outcomes.set(index, outcome);
      remaining = remaining.filter((item) => !settled.has(item.index));
      if (onTip.length === 0) return outcomes;
      // The records' MAC, before they are stored (the record item carries it): the invocation's
      // batch, or after it fired (a retry after a lost race, a second run of the group) a batch of
      // their own (docs/sealing.md, "The record and its seal").
      const sealed = await this.#mac(onTip, recordMacs, outcomes);
      if (sealed === null) return outcomes;

      // Step 1, the records in seq order; only then their head state MAC'd, step 2, the head and the
      // markers (docs/sealing.md, "The write"): no head-state MAC ever names a state whose records
      // did not land, so a table writer cannot rebuild a failed attempt's head and pass it off.
      const extension = this.#log.extension(
        lineageId,
        state,
        sealed.map((s) => s.record),
      );
      try {
        await this.#deps.store.putRecords(lineageId, extension.entries);
      } catch (error) {
        if (!(error instanceof RecordSeqTakenError)) throw error;
        // The first `landed` records stand past the head: the re-read rolls them forward.
        for (const { record } of sealed.slice(0, error.landed)) landed.add(record.header.residualId);
        await lostRace(attempt, error);
        continue;
      }
      for (const { record } of sealed) landed.add(record.header.residualId);
      // Under the notice data key, in process (or, without one, a KMS MAC of its own).
      const { headMac, checkpoint } = await this.#log.vouch(extension);
      try {
        await this.#deps.store.moveHead({
          lineageId,
          entries: extension.entries,
          expectedHead,
          headMac,
          checkpoint,
          frontier: extension.storedFrontier,
          policy: extension.state.policy,
        });
      } catch (error) {
        if (!(error instanceof StaleHeadError)) throw error;
        await lostRace(attempt, error);
        continue;
      }
      this.#log.remember(extension.state);
      this.#moved(lineageId);
      // Step 3, never before the head landed (docs/sealing.md, "The write"). The records are stored:
      // the integrator's notice and their `ResidualSealed` announcement join the invocation's
      // (sealer-service.ts: one notice per run, one event for all its runs, once its runs are done).
      // Sealed, awaiting integration: the tree head is the sealer's word until the index commits to it.
      const treeHead = sealedTreeHeadOf(extension.state) as SealedTreeHead;
      this.#notify(
        notices,
        extension.state,
        sealed.map((s) => s.record),
      );
      for (const { item, record } of sealed) {
        outcomes.set(item.index, this.#outcomes.sealed(record, treeHead, checkpoint, attempt));
      }
      remaining = remaining.filter((item) => !outcomes.has(item.index));
      // Redeliveries of a record sealed in this same run are answered once it is stored.
      for (const item of remaining)
        outcomes.set(item.index, await this.#duplicateOfRun(item, sealed, treeHead, checkpoint));
      return outcomes;
    }
    this.#refuseNoLandedWrite(
      lineageId,
      remaining,
      landed,
      new Set(),
      `the head moved on each of ${attempts} attempts`,
    );
    for (const item of remaining) {
      // Never STALE_EPOCH here: that is signed only from an authenticated tip (#sealOnTip).
      const race = lastRace as StaleHeadError | RecordSeqTakenError | null;
      outcomes.set(
        item.index,
        await this.#outcomes.conflict(item, Conflict.LOST_RACE, `head moved on each of ${attempts} attempts`, {
          expectedHead,
          observedHead: race instanceof StaleHeadError ? race.observedHead : null,
          attemptedHeader: attempted.get(item.index) ?? null,
        }),
      );
    }
    return outcomes;
  }

  /** Whether this sealer moved `lineageId`'s head within the last `ms`. */
  #movedWithin(lineageId: string, ms: number): boolean {
    const at = this.#movedAtMs.get(lineageId);
    return at !== undefined && this.#deps.clock() - at < ms;
  }

  /** Remembers that this sealer moved `lineageId`'s head now. */
  #moved(lineageId: string): void {
    this.#movedAtMs.delete(lineageId);
    this.#movedAtMs.set(lineageId, this.#deps.clock());
    if (this.#movedAtMs.size > MAX_REMEMBERED_LINEAGES) {
      this.#movedAtMs.delete(this.#movedAtMs.keys().next().value as string);
    }
  }

  /**
   * A conflict or refusal is signed only for writes none of whose records landed (docs/sealing.md,
   * "The write"): when a write of `items` was stored by this run (`landed`), is sealed by a
   * record past the head whose MAC verified (`sealedPastHead`), or is a redelivery (an earlier
   * delivery may have stored its record, and the table writer can hide a record from any read:
   * a forged head seq, a broken record in front of it, a deleted head item), the run ends
   * retryably instead, so its writes are answered once a later run rolls the records forward, or
   * reach the dead-letter queue unanswered: a delay, never another answer.
   *
   * @throws {HeadNotMovedError} when such a write is among `items` (logged at error, counted `SealRetry`)
   */
  #refuseNoLandedWrite(
    lineageId: string,
    items: readonly Pending[],
    landed: ReadonlySet<string>,
    sealedPastHead: ReadonlySet<string>,
    reason: string,
  ): void {
    const held = items
      .filter(
        (item) =>
          (item.message.receiveCount ?? 1) > 1 ||
          landed.has(item.request.request.residualId) ||
          sealedPastHead.has(item.request.request.residualId),
      )
      .map((item) => item.request.request.residualId);
    if (held.length === 0) return;
    const error = new HeadNotMovedError(lineageId, [...new Set(held)], reason);
    this.#deps.logger.error(
      'a write whose record landed, or may have (a redelivery), is never refused; the run is retried',
      {
        lineageId,
        residualIds: error.residualIds,
        reason,
      },
    );
    this.#deps.metrics.count(MetricName.SealRetry);
    throw error;
  }

  /**
   * Step 2′ (docs/sealing.md, "The index floor"): the authenticated state against the lineage's
   * entry in the deployment index. An index that cannot be read, or a state behind the indexed
   * head (a rollback or a second history), refuses the whole run: each write gets an unsigned
   * rejection (`INDEX_UNVERIFIABLE`, `LINEAGE_BEHIND_INDEX`), nothing is sealed, and the refusal
   * is logged at error and counted (`SealBehindIndex`).
   *
   * @param tentative - `state` rests on an eventually consistent head copy: a refusal is made only
   *   on a strong read ({@link TentativeDecision} thrown first, nothing recorded)
   * @returns whether the run was refused (its outcomes are then set)
   */
  async #refusedByIndex(
    items: readonly Pending[],
    outcomes: Map<number, SealOutcome>,
    state: LogState,
    floor: IndexFloor | IndexUnverifiable,
    landed: ReadonlySet<string>,
    tentative: boolean,
  ): Promise<boolean> {
    let refusal: { kind: string; reason: RejectionReason; detail: string } | null = null;
    if (floor.kind === 'UNVERIFIABLE') {
      refusal = { kind: 'INDEX_UNVERIFIABLE', reason: RejectionReason.INDEX_UNVERIFIABLE, detail: floor.reason };
    } else if (floor.lineage !== null) {
      const head = indexValueOf(state);
      const indexed = floor.lineage;
      const consistency =
        head !== null && head.treeSize > indexed.treeSize
          ? await this.#log.consistencyFrom(state.lineageId, indexed.treeSize, state)
          : [];
      const [finding] = checkAgainstIndex(state.lineageId, head, indexed, consistency);
      if (finding) {
        refusal = {
          kind: finding.kind,
          reason: RejectionReason.LINEAGE_BEHIND_INDEX,
          detail: `${finding.reason} (deployment log size ${floor.deploymentSize}); nothing is sealed on a rolled-back or forked lineage`,
        };
      }
    }
    if (refusal === null) return false;
    if (tentative) throw new TentativeDecision();
    this.#refuseNoLandedWrite(state.lineageId, items, landed, new Set(), refusal.detail);
    const { logger, metrics } = this.#deps;
    logger.error('run refused against the deployment index; nothing sealed', {
      lineageId: state.lineageId,
      kind: refusal.kind,
      detail: refusal.detail,
      writes: items.length,
    });
    metrics.count(MetricName.SealBehindIndex, { kind: refusal.kind });
    for (const item of items) {
      outcomes.set(item.index, await this.#outcomes.reject(item.message, item.request, refusal.reason, refusal.detail));
    }
    return true;
  }

  /**
   * Step 3: seals each pending write on the authenticated tip, in order. Settles duplicates,
   * reuses, fenced-out epochs and writes the core refuses; returns the records to append.
   * A residual id the index maps (`floor.residuals`) is answered from the indexed record, one
   * sealed past the indexed head from that record ({@link RunSealer.#sealedPastIndex}): never sealed again.
   *
   * @param tentative - `state` rests on an eventually consistent head copy: no write is settled
   *   ({@link TentativeDecision} thrown before its outcome is recorded, so the run reads strongly
   *   and decides again); only writes to append come back
   */
  async #sealOnTip(
    items: readonly Pending[],
    state: LogState,
    expectedHead: LineageHead | null,
    floor: IndexFloor | null,
    tentative: boolean,
  ): Promise<OnTipAndSettled> {
    const { store, anchor, clock, logger } = this.#deps;
    const sealed: OnTip[] = [];
    const settled = new Map<number, SealOutcome>();
    const settle = async (index: number, outcome: () => Promise<SealOutcome>) => {
      if (tentative) throw new TentativeDecision();
      settled.set(index, await outcome());
    };
    let tip: ChainTip | null = state.tip;
    let policy: LineagePolicy | null = state.policy;
    const residuals = floor?.residuals ?? null;
    // Each write's residual-id marker, read together: the reads do not depend on one another.
    // A write refused admission below never sees its marker's answer.
    const markers = await Promise.all(
      items.map(({ request }) => store.findByResidualId(request.request.lineageId, request.request.residualId)),
    );
    // Ids with neither an index entry nor a marker: looked for among the records past the indexed
    // head sealed since the oldest of their signing times (less the margin).
    const unmarked = items.filter(
      ({ request }, position) => !markers[position] && !residuals?.has(request.request.residualId),
    );
    const signedSinceMs = Math.min(...unmarked.map(({ request }) => request.request.writer.signedAtMs));
    const past =
      floor && unmarked.length > 0
        ? await this.#sealedPastIndex(state, floor, signedSinceMs - REPLAY_SEARCH_MARGIN_MS, tentative)
        : null;
    // The same search for a write refused admission whose marker does not name its exact record
    // (a marker is the table's word): the one above when it reaches back to the write's signing
    // time, else read then, once per run, from the run's oldest signing time (it covers every
    // write of the run). A marker that names the record costs no search.
    let pastForAll: ReadonlyMap<string, SealedRecord> | string | null = null;
    const pastOf = async (item: Pending): Promise<ReadonlyMap<string, SealedRecord> | string | null> => {
      if (!floor || unmarked.includes(item)) return past;
      if (past !== null && signedSinceMs <= item.request.request.writer.signedAtMs) return past;
      if (pastForAll === null) {
        const sinceMs = Math.min(...items.map(({ request }) => request.request.writer.signedAtMs));
        pastForAll = await this.#sealedPastIndex(state, floor, sinceMs - REPLAY_SEARCH_MARGIN_MS, tentative);
      }
      return pastForAll;
    };
    for (const [position, item] of items.entries()) {
      const { lineageId, residualId } = item.request.request;
      logger.appendKeys({ lineageId, residualId, messageId: item.message.messageId });
      // An exact duplicate, then admission, on the authenticated state (docs/authorship.md, "Two
      // refusals, in order"), then the duplicate answer and epoch check: a stranger neither fences
      // the owner out nor learns the tip. Admission is a pure check, so the exact duplicate is looked
      // for only when it refuses: an admitted one gets the same duplicate answer below.
      const request = item.request.request;
      const admission = admitWrite(
        { lineageId, seq: tip ? tip.seq + 1 : 0, inForce: policy, legacyTip: state.legacyTip },
        { publicKey: request.writer.publicKey, policy: request.policy ?? null },
      );
      if ('refused' in admission) {
        if (tentative) throw new TentativeDecision(); // a policy newer than the copy's may admit it
        // A key rotation that dropped its own signing key, delivered again: its record's answer.
        const exact = await this.#exactDuplicate(item, markers[position] ?? null, residuals, pastOf, sealed, state);
        if (exact === 'THIS_RUN') continue; // answered after the append
        if (exact) {
          await settle(item.index, () =>
            this.#outcomes.duplicate(item, exact.record, sealedTreeHeadOf(state), exact.checkpoint),
          );
          continue;
        }
        await settle(item.index, () =>
          this.#outcomes.reject(item.message, item.request, RejectionReason.WRITER_NOT_ADMITTED, admission.refused),
        );
        continue;
      }
      if (sealed.some((s) => s.record.header.residualId === residualId)) continue; // answered after the append
      const indexed = residuals?.get(residualId);
      if (indexed) {
        // Integrated already: whatever the marker says (a deleted marker and a resend included).
        await settle(item.index, () => this.#indexedDuplicate(item, indexed, state));
        continue;
      }
      const existing = markers[position];
      if (existing) {
        await settle(item.index, () => this.#duplicate(item, existing, state));
        continue;
      }
      if (typeof past === 'string') {
        await settle(item.index, () =>
          this.#outcomes.conflict(item, Conflict.LINEAGE_INCONSISTENT, past, {
            expectedHead,
            observedHead: null,
          }),
        );
        continue;
      }
      const sealedPast = past?.get(residualId);
      if (sealedPast) {
        // Sealed, not yet integrated, its marker gone (deleted, then the write replayed): that record's answer.
        await settle(item.index, () => this.#outcomes.duplicate(item, sealedPast, sealedTreeHeadOf(state), null));
        continue;
      }
      const supersedes = item.request.request.supersedes;
      if (supersedes && tip && supersedes.seq < tip.seq) {
        // An earlier record than the tip (sealRecord checks the tip itself): the hash must be the one
        // the authenticated tree holds at that seq, or the record would break the chain for good.
        const held = await this.#log.recordHashAt(lineageId, supersedes.seq, state, sealed);
        if (held !== supersedes.recordHash) {
          await settle(item.index, () =>
            this.#outcomes.reject(
              item.message,
              item.request,
              RejectionReason.SEAL_REFUSED,
              `supersedes seq ${supersedes.seq} with a record hash that is not ${held === null ? 'a record the log can prove' : "that record's"}`,
            ),
          );
          continue;
        }
      }
      try {
        const { record, message } = recordOnTip(item.seal, tip, anchor.keyId, clock());
        sealed.push({ item, record, message });
        tip = {
          lineageId,
          seq: record.header.monotonicSequenceNumber,
          recordHash: record.recordHash,
          generationEpoch: record.header.generationEpoch,
          policyDigest: record.header.policyDigest ?? null,
          sealedAtMs: record.header.sealedAtMs,
        };
        if (record.policy) policy = record.policy;
      } catch (error) {
        if (error instanceof StaleEpochError) {
          await settle(item.index, () =>
            this.#outcomes.conflict(item, Conflict.STALE_EPOCH, error.message, {
              expectedHead,
              observedHead: null,
            }),
          );
          continue;
        }
        if (error instanceof ResealError && !error.retryable) {
          // The core refused the input (header too large, bad supersedes): permanent. A retryable
          // error (the MAC key unavailable) is rethrown, so the group is delivered again.
          await settle(item.index, () =>
            this.#outcomes.reject(item.message, item.request, RejectionReason.SEAL_REFUSED, error.message),
          );
          continue;
        }
        throw error;
      }
    }
    return { sealed, settled };
  }

  /**
   * `onTip` with their MACs: from the invocation's record batch (`recordMacs`), else one batch of
   * their own. A MAC the anchor refuses for good (another key, another algorithm) refuses each
   * write (`SEAL_REFUSED`, into `outcomes`) and gives `null`; a retryable failure (the key
   * unavailable) is rethrown, so the group is delivered again.
   */
  async #mac(
    onTip: readonly OnTip[],
    recordMacs: MacBatchMember<readonly RecordToMac[], readonly RecordMac[]> | null,
    outcomes: Map<number, SealOutcome>,
  ): Promise<Sealed[] | null> {
    const asked = onTip.map(({ record, message }) => ({ recordHash: record.recordHash, message }));
    let macs: readonly RecordMac[];
    try {
      macs = recordMacs ? await recordMacs.mac(asked) : await macRecords(asked, this.#deps.anchor);
    } catch (error) {
      if (!(error instanceof ResealError) || error.retryable) throw error;
      for (const { item } of onTip) {
        outcomes.set(
          item.index,
          await this.#outcomes.reject(item.message, item.request, RejectionReason.SEAL_REFUSED, error.message),
        );
      }
      return null;
    }
    return onTip.map(({ item, record }, i) => ({ item, record: sealedRecordWithMac(record, macs[i] as RecordMac) }));
  }

  /**
   * The records of the authenticated state past the lineage's indexed head (from its indexed
   * size, or 0 when the index does not hold it yet) sealed at or after `sinceMs`, by residual id,
   * each authenticated by the hash chain from the authenticated tip (`SealerLog.recordsSince`,
   * newest first, in pages); or why they do not authenticate (each unmarked write then gets a
   * `LINEAGE_INCONSISTENT` conflict). A residual id the index maps is never sealed twice; this
   * extends that to a signed write replayed since the last integration with its marker gone: a
   * record of it is sealed no earlier than its signing time less {@link REPLAY_SEARCH_MARGIN_MS},
   * which `sinceMs` is at most (docs/sealing.md, "The index floor").
   *
   * @param tentative - `state` rests on an eventually consistent head copy: a backlog is reported
   *   only on a strong read ({@link TentativeDecision} thrown instead)
   * @throws {IntegrationBacklogError} (retryable; logged at error, counted `SealBehindIndex` with
   *   kind `INTEGRATION_BACKLOG`) when more than {@link MAX_UNINTEGRATED_SEARCH} records past it
   *   were sealed since `sinceMs`
   */
  async #sealedPastIndex(
    state: LogState,
    floor: IndexFloor,
    sinceMs: number,
    tentative: boolean,
  ): Promise<ReadonlyMap<string, SealedRecord> | string> {
    const fromSeq = floor.lineage?.treeSize ?? 0;
    const limit = this.#deps.maxUnintegratedSearch ?? MAX_UNINTEGRATED_SEARCH;
    const found = await this.#log.recordsSince(state.lineageId, { fromSeq, sinceMs, limit }, state);
    if (typeof found === 'string') {
      return `the records past the indexed head (seq ${fromSeq} to ${state.size - 1}) do not authenticate: ${found}`;
    }
    if (!found.complete) {
      if (tentative) throw new TentativeDecision();
      const unintegrated = state.size - fromSeq;
      const error = new IntegrationBacklogError(state.lineageId, unintegrated, limit);
      this.#deps.logger.error(
        'run not sealed: too many records past the indexed head sealed since its writes were signed; retried later',
        { lineageId: state.lineageId, unintegrated, sinceMs, bound: limit },
      );
      this.#deps.metrics.count(MetricName.SealBehindIndex, { kind: 'INTEGRATION_BACKLOG' });
      throw error;
    }
    const byResidualId = new Map<string, SealedRecord>();
    // Newest first: the oldest record of a residual id is the one that answers.
    for (const record of found.records) byResidualId.set(record.header.residualId, record);
    return byResidualId;
  }

  /**
   * One notice per sealed run to the integrator (docs/deployment-log.md, "Sealed-run notices"),
   * added to the invocation's `notices`, which sends them once its runs are done: the run waits
   * for no send, and a notice that cannot be sent is logged there (the lineage's next notice makes
   * the integrator read every record since its indexed head).
   */
  #notify(notices: SealedRunNoticeBatch | null, state: LogState, records: readonly SealedRecord[]): void {
    if (!notices || !state.tip) return;
    notices.add({
      v: 1,
      lineageId: state.lineageId,
      head: {
        treeSize: state.size,
        rootHash: Buffer.from(state.rootHash).toString('hex'),
        headRecordHash: state.tip.recordHash,
        generationEpoch: state.tip.generationEpoch,
        writerPolicyDigest: state.tip.policyDigest ?? null,
      },
      residuals: records.map((record) => ({
        residualId: record.header.residualId,
        seq: record.header.monotonicSequenceNumber,
        recordHash: record.recordHash,
      })),
      sealedAtMs: this.#deps.clock(),
    });
  }

  /**
   * The residual id is in the deployment index at `indexed` (docs/sealing.md, "The index floor"):
   * the duplicate answer of that record ({@link SealOutcomes.duplicate}: a redelivery when it
   * binds the request, else `RESIDUAL_ID_REUSED`) when the record is proven there in the
   * authenticated state and is the indexed one; else `RESIDUAL_ID_REUSED`. Never a second record.
   */
  async #indexedDuplicate(item: Pending, indexed: ResidualIndexValue, state: LogState): Promise<SealOutcome> {
    const { lineageId, residualId } = item.request.request;
    const record = await this.#log.provenRecordAt(lineageId, indexed.seq, state);
    if (record && record.recordHash === indexed.recordHash && record.header.residualId === residualId) {
      return this.#outcomes.duplicate(item, record, sealedTreeHeadOf(state), state.checkpoint);
    }
    return this.#outcomes.reject(
      item.message,
      item.request,
      RejectionReason.RESIDUAL_ID_REUSED,
      `residual id ${residualId} is sealed in lineage ${lineageId} at seq ${indexed.seq} (record ${indexed.recordHash}) in the deployment index, and that record does not prove in the lineage's log as the table shows it: the id is never sealed a second time`,
    );
  }

  /**
   * The record that seals this very signed request ({@link sealsSignedRequest}), proven as the
   * duplicate answer would prove it: sealed earlier in this run (`THIS_RUN`, answered after the
   * append), in the deployment index (proven at its indexed seq with its indexed hash), named by
   * its marker (proven at that seq of this lineage), or else sealed past the indexed head (`pastOf`,
   * chain-authenticated from the tip: also when a marker names another seq, another lineage or
   * nothing valid, since the table writer can edit one); with the checkpoint its answer carries.
   * `null` when none is, or only another write under the id is: then admission decides, and the
   * table's word (a marker) is never enough. With no index floor (`floor` null) there is neither
   * the index nor the search, so only a marker that names the record finds it (docs/authorship.md,
   * "Two refusals, in order").
   *
   * @throws {IntegrationBacklogError} from the search past the indexed head (retryable)
   */
  async #exactDuplicate(
    item: Pending,
    marker: ResidualLocation | null,
    residuals: ReadonlyMap<string, ResidualIndexValue> | null,
    pastOf: (item: Pending) => Promise<ReadonlyMap<string, SealedRecord> | string | null>,
    sealed: readonly OnTip[],
    state: LogState,
  ): Promise<'THIS_RUN' | { readonly record: SealedRecord; readonly checkpoint: string | null } | null> {
    const { request, verdict } = item.request;
    const { lineageId, residualId } = request;
    const exact = (record: SealedRecord | null | undefined): record is SealedRecord =>
      !!record && sealsSignedRequest(request, verdict.verdictDigest, record);
    if (sealed.some((s) => sealsSignedRequest(request, verdict.verdictDigest, s.record))) return 'THIS_RUN';
    const indexed = residuals?.get(residualId);
    if (indexed) {
      const record = await this.#log.provenRecordAt(lineageId, indexed.seq, state);
      return exact(record) && record.recordHash === indexed.recordHash
        ? { record, checkpoint: state.checkpoint }
        : null;
    }
    if (marker?.lineageId === lineageId) {
      const record = await this.#log.provenRecordAt(lineageId, marker.seq, state);
      if (exact(record)) return { record, checkpoint: state.checkpoint };
    }
    const past = await pastOf(item);
    const record = typeof past === 'string' ? null : past?.get(residualId);
    return exact(record) ? { record, checkpoint: null } : null;
  }

  /** A message whose residual id was sealed earlier in the same run. */
  async #duplicateOfRun(
    item: Pending,
    sealed: readonly Sealed[],
    treeHead: SealedTreeHead,
    checkpoint: string | null,
  ): Promise<SealOutcome> {
    const { residualId } = item.request.request;
    const record = sealed.find((s) => s.record.header.residualId === residualId)?.record;
    if (!record) throw new Error(`residual ${residualId} is neither sealed nor settled`);
    return this.#outcomes.duplicate(item, record, treeHead, checkpoint);
  }

  /**
   * The residual id's marker names `location`: a redelivery or a reuse ({@link SealOutcomes.duplicate})
   * only when the marker names this lineage and the record at its seq is proven in the
   * authenticated state and seals this very residual id. A marker is the table's word, not the
   * log's: one that names another lineage, a seq the authenticated log does not hold, a record that does
   * not prove or one of another residual id is a `LINEAGE_INCONSISTENT` conflict, never a signed
   * `RESIDUAL_ID_REUSED` (docs/pipeline.md, the outcome table).
   */
  async #duplicate(item: Pending, location: ResidualLocation, state: LogState): Promise<SealOutcome> {
    const { lineageId, residualId } = item.request.request;
    const { seq } = location;
    const inconsistent = (why: string) =>
      this.#outcomes.conflict(
        item,
        Conflict.LINEAGE_INCONSISTENT,
        // A marker whose lineage id is no identifier reads as '' (adapters/marker-item.ts): its text
        // is never quoted in this signed detail.
        `residual id ${residualId} is marked as sealed in ${location.lineageId === '' ? 'a malformed marker (no lineage id)' : `lineage ${location.lineageId}`} at seq ${seq}, but ${why}`,
        { expectedHead: null, observedHead: null },
      );
    if (location.lineageId !== lineageId) return inconsistent(`the marker is stored under lineage ${lineageId}`);
    if (!Number.isSafeInteger(seq) || seq < 0 || seq >= state.size) {
      return inconsistent(`the authenticated log of ${state.size} records holds no such seq`);
    }
    const record = await this.#log.provenRecordAt(lineageId, seq, state);
    // The record is missing, edited or unprovable: the write is neither sealed (nothing proven to
    // compare its content with) nor dropped silently; it is left as a conflict.
    if (!record) return inconsistent('that record is missing or does not prove in the authenticated log');
    if (record.header.residualId !== residualId) {
      return inconsistent(`the record proven there seals residual id ${record.header.residualId}`);
    }
    return this.#outcomes.duplicate(item, record, sealedTreeHeadOf(state), state.checkpoint);
  }
}

/** The tree head of an authenticated state (size, root hex), sealed and awaiting integration; `null` when empty. */
function sealedTreeHeadOf(state: LogState): SealedTreeHead | null {
  return state.size === 0 ? null : { treeSize: state.size, rootHash: Buffer.from(state.rootHash).toString('hex') };
}

/** The authenticated state's head as an index value (docs/deployment-log.md, "Index values"); `null` for an empty lineage. */
function indexValueOf(state: LogState): LineageIndexValue | null {
  if (!state.tip) return null;
  return {
    treeSize: state.size,
    rootHash: Buffer.from(state.rootHash).toString('hex'),
    headRecordHash: state.tip.recordHash,
    generationEpoch: state.tip.generationEpoch,
    writerPolicyDigest: state.tip.policyDigest ?? null,
  };
}
