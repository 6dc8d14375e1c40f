import {
  DuplicateResidualError,
  LineageInconsistentError,
  ResealError,
  StaleEpochError,
  StaleHeadError,
} from '../../shared/errors';
import type { LogState } from '../../shared/log/log-state';
import { RejectionReason } from '../../shared/pipeline/messages';
import { ConflictReason as Conflict, type LineageStore } from '../../shared/ports/lineage-store';
import type { MacAnchor } from '../../shared/ports/mac-anchor';
import type { ChainTip } from '../../shared/seal/chain-tip';
import { sealValidated } from '../../shared/seal/residual-sealer';
import { type LineageHead, type SealedRecord, SealedRecordSchema } from '../../shared/seal/sealed-record';
import { MetricName, type PipelineMetrics, type ServiceLogger } from '../common/observability';
import { type BackoffClock, backoff, MAX_APPEND_ATTEMPTS } from './append-backoff';
import type { Pending, SealOutcome, SealOutcomes } from './seal-outcomes';
import type { SealerLog } from './sealer-log';

/** Most records appended in one transaction: a `TransactWriteItems` holds at most 100 actions (two per record plus the head). */
export const MAX_RUN_RECORDS = 40;
/** Most body bytes of one run, UTF-8: a `TransactWriteItems` carries at most 4 MB. */
export const MAX_RUN_BODY_BYTES = 3_000_000;

/** What {@link RunSealer} needs. */
export interface RunSealerDeps extends BackoffClock {
  readonly store: LineageStore;
  /** MACs record headers (KMS `HMAC_256`, the records' anchor). */
  readonly anchor: MacAnchor;
  readonly metrics: PipelineMetrics;
  readonly logger: ServiceLogger;
  readonly clock: () => number;
  /** Override of {@link MAX_APPEND_ATTEMPTS}. */
  readonly maxAppendAttempts?: number;
}

/** A write sealed on the tip, waiting for the append. */
interface Sealed {
  readonly item: Pending;
  readonly record: SealedRecord;
}

/**
 * Steps 2–5 of the sealer for one run (consecutive writes to one lineage, docs/verifiable-log.md
 * "Appending"): the lineage state authenticated, each write sealed on its tip, the new tree
 * signed once, everything appended in one conditional transaction, each write's outcome
 * announced. A lost race waits (exponential backoff, full jitter), re-reads and re-seals what is
 * left, up to {@link MAX_APPEND_ATTEMPTS}; then `LOST_RACE` (or `STALE_EPOCH`) conflicts.
 */
export class RunSealer {
  readonly #deps: RunSealerDeps;
  readonly #log: SealerLog;
  readonly #outcomes: SealOutcomes;

  constructor(deps: RunSealerDeps, log: SealerLog, outcomes: SealOutcomes) {
    this.#deps = deps;
    this.#log = log;
    this.#outcomes = outcomes;
  }

  /** Seals a run of writes to one lineage; returns each message's outcome by index. */
  async seal(run: readonly Pending[]): Promise<Map<number, SealOutcome>> {
    const lineageId = (run[0] as Pending).request.request.lineageId;
    const outcomes = new Map<number, SealOutcome>();
    let remaining = [...run];
    const attempts = this.#deps.maxAppendAttempts ?? MAX_APPEND_ATTEMPTS;
    let lastRace: StaleHeadError | StaleEpochError | DuplicateResidualError | null = null;
    let expectedHead: LineageHead | null = null;
    // The header each write was last sealed with, for the conflict record of a write that never lands.
    const attempted = new Map<number, unknown>();
    for (let attempt = 1; attempt <= attempts && remaining.length > 0; attempt++) {
      const stored = await this.#deps.store.logHead(lineageId);
      expectedHead = stored?.head ?? null;
      const state = await this.#log.authenticatedState(lineageId, stored);
      if (typeof state === 'string') {
        const heads = { expectedHead, observedHead: null };
        await this.#outcomes.conflictAll(remaining, outcomes, Conflict.LINEAGE_INCONSISTENT, state, () => heads);
        return outcomes;
      }
      const { sealed, settled } = await this.#sealOnTip(remaining, state, expectedHead);
      for (const { item, record } of sealed) attempted.set(item.index, record.header);
      for (const [index, outcome] of settled) outcomes.set(index, outcome);
      remaining = remaining.filter((item) => !settled.has(item.index));
      if (sealed.length === 0) return outcomes;

      const { extension, checkpoint } = await this.#log.extend(
        lineageId,
        state,
        sealed.map((s) => s.record),
      );
      try {
        await this.#deps.store.appendEntries({
          lineageId,
          entries: extension.entries,
          expectedHead,
          checkpoint,
          frontier: extension.storedFrontier,
        });
      } catch (error) {
        if (
          error instanceof StaleHeadError ||
          error instanceof StaleEpochError ||
          error instanceof DuplicateResidualError
        ) {
          // Another writer appended first (or sealed one of these ids): re-read, re-seal what is left.
          lastRace = error;
          this.#deps.metrics.count(MetricName.SealRetry);
          this.#deps.logger.warn('lost the append race; re-reading the lineage', { attempt, reason: error.name });
          if (attempt < attempts) await backoff(attempt, this.#deps);
          continue;
        }
        if (error instanceof LineageInconsistentError) {
          await this.#outcomes.conflictAll(
            remaining,
            outcomes,
            Conflict.LINEAGE_INCONSISTENT,
            error.message,
            (item) => ({
              expectedHead,
              observedHead: expectedHead,
              attemptedHeader: sealed.find((s) => s.item === item)?.record.header ?? null,
            }),
          );
          return outcomes;
        }
        throw error;
      }
      this.#log.remember(extension.state);
      for (const { item, record } of sealed) {
        outcomes.set(item.index, await this.#outcomes.sealed(record, checkpoint, attempt));
      }
      remaining = remaining.filter((item) => !outcomes.has(item.index));
      // Redeliveries of a record sealed in this same run are answered once it is stored.
      for (const item of remaining) outcomes.set(item.index, await this.#duplicateOfRun(item, sealed, checkpoint));
      return outcomes;
    }
    for (const item of remaining) {
      const reason = lastRace instanceof StaleEpochError ? Conflict.STALE_EPOCH : Conflict.LOST_RACE;
      outcomes.set(
        item.index,
        await this.#outcomes.conflict(item, reason, `head moved on each of ${attempts} attempts`, {
          expectedHead,
          observedHead: lastRace instanceof StaleHeadError ? lastRace.observedHead : null,
          attemptedHeader: attempted.get(item.index) ?? null,
        }),
      );
    }
    return outcomes;
  }

  /**
   * Step 3: seals each pending write on the authenticated tip, in order. Settles duplicates,
   * reuses, fenced-out epochs and writes the core refuses; returns the records to append.
   */
  async #sealOnTip(
    items: readonly Pending[],
    state: LogState,
    expectedHead: LineageHead | null,
  ): Promise<{ sealed: Sealed[]; settled: Map<number, SealOutcome> }> {
    const { store, anchor, clock, logger } = this.#deps;
    const sealed: Sealed[] = [];
    const settled = new Map<number, SealOutcome>();
    let tip: ChainTip | null = state.tip;
    for (const item of items) {
      const { lineageId, residualId } = item.request.request;
      logger.appendKeys({ lineageId, residualId, messageId: item.message.messageId });
      if (sealed.some((s) => s.record.header.residualId === residualId)) continue; // answered after the append
      const existing = await store.findByResidualId(lineageId, residualId);
      if (existing) {
        settled.set(item.index, await this.#duplicate(item, existing.seq));
        continue;
      }
      const supersedes = item.request.request.supersedes;
      if (supersedes && tip && supersedes.seq < tip.seq) {
        // An earlier record than the tip (sealRecord checks the tip itself): the hash must be the one
        // the signed tree holds at that seq, or the record would break the chain for good.
        const held = await this.#log.recordHashAt(lineageId, supersedes.seq, state, sealed);
        if (held !== supersedes.recordHash) {
          settled.set(
            item.index,
            await this.#outcomes.reject(
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
        const record = await sealValidated(item.seal, tip, anchor, clock());
        sealed.push({ item, record });
        tip = {
          lineageId,
          seq: record.header.monotonicSequenceNumber,
          recordHash: record.recordHash,
          generationEpoch: record.header.generationEpoch,
        };
      } catch (error) {
        if (error instanceof StaleEpochError) {
          settled.set(
            item.index,
            await this.#outcomes.conflict(item, Conflict.STALE_EPOCH, error.message, {
              expectedHead,
              observedHead: null,
            }),
          );
          continue;
        }
        if (error instanceof ResealError && !error.retryable) {
          // The core refused the input (header too large, bad supersedes): permanent. A retryable
          // error (the MAC key unavailable) is rethrown, so the group is delivered again.
          settled.set(
            item.index,
            await this.#outcomes.reject(item.message, item.request, RejectionReason.SEAL_REFUSED, error.message),
          );
          continue;
        }
        throw error;
      }
    }
    return { sealed, settled };
  }

  /** A message whose residual id was sealed earlier in the same run. */
  async #duplicateOfRun(item: Pending, sealed: readonly Sealed[], checkpoint: string): Promise<SealOutcome> {
    const { residualId } = item.request.request;
    const record = sealed.find((s) => s.record.header.residualId === residualId)?.record;
    if (!record) throw new Error(`residual ${residualId} is neither sealed nor settled`);
    return this.#outcomes.duplicate(item, record, checkpoint);
  }

  /**
   * The residual id is sealed in this lineage already (its marker names `seq`): a redelivery or a
   * reuse ({@link SealOutcomes.duplicate}). A marker whose record is missing or unreadable: a
   * `LINEAGE_INCONSISTENT` conflict record.
   */
  async #duplicate(item: Pending, seq: number): Promise<SealOutcome> {
    const { lineageId, residualId } = item.request.request;
    const stored = SealedRecordSchema.safeParse(await this.#deps.store.readRecord(lineageId, seq));
    if (!stored.success) {
      // The marker names a record that is missing or unreadable: the write is neither sealed
      // (nothing to compare its content with) nor dropped silently; it is left as a conflict.
      return this.#outcomes.conflict(
        item,
        Conflict.LINEAGE_INCONSISTENT,
        `residual id ${residualId} is marked as sealed in lineage ${lineageId} at seq ${seq}, but that record is missing or unreadable`,
        { expectedHead: null, observedHead: null },
      );
    }
    return this.#outcomes.duplicate(item, stored.data, await this.#log.checkpointCovering(lineageId, seq));
  }
}
