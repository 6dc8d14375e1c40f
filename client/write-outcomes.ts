import { createHash } from 'node:crypto';
import { REPLAY_SEARCH_MARGIN_MS } from '../shared/authorship/signed-write';
import { canonicalJson } from '../shared/canonical/canonical-json';
import { InvalidInputError, OutcomeVerificationError, ResealError, SignerUnavailableError } from '../shared/errors';
import { decideAbsence } from '../shared/integrator/decide-absence';
import { FreshnessState } from '../shared/integrator/record-freshness';
import type { Checkpoint } from '../shared/log/checkpoint';
import type { NoteVerifierKey } from '../shared/log/note-key';
import {
  checkConflictOutcome,
  checkRejectionOutcome,
  type OutcomeKeyRole,
  type OutcomeStatement,
  openOutcomeOfStage,
  outcomeKeyRoles,
} from '../shared/log/outcome-statement';
import type { RecordProof } from '../shared/log/record-proof';
import { RejectionStage } from '../shared/pipeline/rejection-stage';
import type { ConflictRecord, LineageStore, RejectionRecord } from '../shared/ports/lineage-store';
import { type LineageHead, lineageHeadOf } from '../shared/seal/lineage-head';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import { differingWriteContent } from '../shared/seal/write-content';
import { requestDigest } from '../shared/write/request-digest';
import type { ResidualWriteRequest } from '../shared/write/write-request';
import type { DeploymentChainReader } from './deployment-chain-reader';
import { HiddenSealError, LogVerificationError, TimeoutError, UnverifiedOutcomeError } from './errors';
import type { LogReader, ProvenRecord } from './log-reader';
import { searchLoggedSeal } from './logged-seal-search';
import { DEFAULT_POLL_INTERVAL_MS, type PollAttempt, type PollClock, pollUntil, type WaitOptions } from './poll';
import { freshnessOf, provenRecordFreshness } from './proven-record-freshness';
import { isProvenSeal } from './proven-seal';
import { RefusalChecks } from './refusal-checks';
import type { SeenSeals } from './seen-seals';
import type { Freshness } from './verified-recall';

/**
 * What became of a published write ({@link WriteOutcomes.waitFor}), every kind proven with
 * public keys alone (docs/verifiable-log.md, "Signed outcomes"):
 * - `SEALED`: its record is proven by inclusion (`proof`) in the lineage's head tree `treeHead`:
 *   a signed lineage checkpoint (`checkpoint`, the C2SP signed note, consistent with the kept one),
 *   or a head the sealer MAC'd (`checkpoint` `null`: the sealer's word alone until the index holds
 *   it); `head` is the record's head; `freshness` says where it stands against the deployment log
 *   (docs/deployment-log.md, "Clients"): `PROVEN` once the lineage's indexed head covers it and the
 *   index maps its residual id to it under a deployment checkpoint meeting the policy,
 *   `SEALED_AWAITING_INTEGRATION` before (the sealer's word: not proven memory yet),
 *   `INCONSISTENT` or `REFUSED` when the chain contradicts it or does not verify (never act on
 *   those); `null` when the client reads no deployment log, for a record in a signed lineage
 *   checkpoint (in a head the sealer MAC'd it is `SEALED_AWAITING_INTEGRATION`: nothing the
 *   client can check vouches for that tree);
 * - `REJECTED`: the guard or the sealer refused it, in a rejection signed by that function;
 * - `CONFLICT`: it could not be appended (`STALE_EPOCH`, `LOST_RACE`, `LINEAGE_INCONSISTENT`),
 *   in a conflict signed by the sealer.
 */
export type WriteOutcome =
  | {
      readonly kind: 'SEALED';
      readonly head: LineageHead;
      /** The tree the record is proven in: origin, size and RFC 9162 root. */
      readonly treeHead: Checkpoint;
      /** Its signed lineage checkpoint (C2SP signed note), or `null`: a head the sealer MAC'd. */
      readonly checkpoint: string | null;
      readonly proof: RecordProof;
      readonly freshness: Freshness | null;
    }
  | { readonly kind: 'REJECTED'; readonly rejection: RejectionRecord; readonly statement: OutcomeStatement }
  | { readonly kind: 'CONFLICT'; readonly conflict: ConflictRecord; readonly statement: OutcomeStatement };

/** Options of {@link WriteOutcomes.waitFor}: the wait ({@link WaitOptions}) and what ties an outcome to this write. */
export interface WaitForOutcomeOptions extends WaitOptions {
  /**
   * The request that was published: a record counts only when its header binds this request's
   * content, and a refusal only when it names this request (`requestDigest`, or the digest of its
   * canonical body). Without it, any proven record or signed refusal under the id counts.
   */
  readonly request?: ResidualWriteRequest;
  /**
   * Refusals recorded before this time (`atMs`, ms) belong to earlier attempts and are ignored;
   * the rejections filed before it are not even read (a key bound of the `Query`, `OutcomeFilter.sinceMs`).
   */
  readonly sinceMs?: number;
  /**
   * Wait past the seal until the record is `PROVEN` through the deployment log (docs/deployment-log.md,
   * "Clients"). When the time runs out while the write is only sealed, the `SEALED` outcome is
   * returned with `freshness.state` `SEALED_AWAITING_INTEGRATION` (not a timeout: the write is
   * sealed). An `INCONSISTENT` or `REFUSED` chain ends the wait at once. Without a deployment log
   * (`freshness: null`) it changes nothing. @default false
   */
  readonly untilProven?: boolean;
}

/**
 * The freshness of a seal proven only in a head the sealer MAC'd, for a client that reads no
 * deployment log: the head's MAC is checked by the sealer alone (clients hold no `kms:VerifyMac`),
 * so a table writer could have put the record, its marker and the head there. Such a seal is the
 * sealer's word, never proven memory (docs/verifiable-log.md, "Signed outcomes"; docs/cli.md,
 * `publish --wait`, exit 3): the same end as a recall of it (`AWAITING_INTEGRATION`).
 */
const UNREAD_MAC_HEAD: Freshness = {
  state: FreshnessState.SEALED_AWAITING_INTEGRATION,
  checkpointSize: null,
  reason:
    "this client reads no deployment log: the record is proven only in the head item's tree (the sealer's word, no signed checkpoint), which nothing the client can check vouches for",
  witnessing: 'UNWITNESSED',
  windowSeconds: null,
};

/**
 * A refusal signed for the write waited for, seen beside a seal of it that is not proven
 * ({@link isProvenSeal}); `tamper` when the sealer signed a refusal of this very request (see
 * {@link sealerRefusalFinding}): a finding, never an outcome.
 */
interface Contested {
  refusal: WriteOutcome | null;
  tamper: UnverifiedOutcomeError | null;
}

/**
 * The finding when a seal of this request (not proven) stands beside a refusal the sealer signed
 * for this very request: the sealer answers a delivery of a request it sealed as a duplicate,
 * never with a refusal (docs/pipeline.md, "Polling the table", and its one known exception).
 * Both cannot be honest: a table writer edited the table (a marker pointed away, then back; a
 * rolled-back head), so neither is an answer to act on.
 */
function sealerRefusalFinding(
  lineageId: string,
  residualId: string,
  seal: Extract<WriteOutcome, { kind: 'SEALED' }>,
  refusal: WriteOutcome,
): UnverifiedOutcomeError {
  const signed =
    refusal.kind === 'CONFLICT'
      ? `a ${refusal.conflict.reason} conflict (at ${refusal.conflict.atMs} ms)`
      : refusal.kind === 'REJECTED'
        ? `a ${refusal.rejection.reason} rejection (at ${refusal.rejection.atMs} ms)`
        : 'a refusal';
  return new UnverifiedOutcomeError(
    lineageId,
    residualId,
    seal.head.seq,
    VerificationVerdict.UNVERIFIED_TAMPER_RISK,
    `its seal (seq ${seal.head.seq}, record ${seal.head.recordHash}, ${seal.freshness?.state ?? 'not proven'}) stands beside ${signed} the sealer signed for this very request; an honest sealer answers a request it sealed as a duplicate and never refuses it, so the table was edited: act on neither`,
  );
}

/** The longest a parked wait goes without a full proof, ms (the backoff's cap). */
export const MAX_PARKED_PROOF_INTERVAL_MS = 8_000;

/**
 * When a wait whose seal awaits integration proves it again (docs/pipeline.md, "Polling the
 * table"): the seal can become `PROVEN`, or its chain refused, only through the deployment head,
 * so between full proofs a poll reads that head's mark alone (`DeploymentChainReader.headMark`,
 * eventually consistent). The proof runs again when the mark differs from the one seen at
 * parking, and in any case after a backoff (twice the poll interval, doubling to
 * {@link MAX_PARKED_PROOF_INTERVAL_MS}: a checkpoint aging past the policy's window moves no
 * mark). The mark is a trigger only: a forged one costs a proof, and the deadline's attempt is
 * always a full one.
 */
class ProofParking {
  #mark: string | null = null;
  #parked = false;
  #dueAtMs = 0;
  #everyMs: number;
  readonly #firstEveryMs: number;

  constructor(pollIntervalMs: number) {
    this.#firstEveryMs = Math.min(2 * pollIntervalMs, MAX_PARKED_PROOF_INTERVAL_MS);
    this.#everyMs = this.#firstEveryMs;
  }

  get parked(): boolean {
    return this.#parked;
  }

  /** Whether a poll that read `mark` at `nowMs` skips the proof: the head unmoved and no proof due. */
  skips(mark: string | null, nowMs: number): boolean {
    if (mark !== this.#mark) {
      this.#everyMs = this.#firstEveryMs;
      return false;
    }
    return nowMs < this.#dueAtMs;
  }

  /** A proof found the seal still waiting; `mark` was read before it (or just after, at the first parking). */
  park(mark: string | null, nowMs: number): void {
    if (this.#parked && mark === this.#mark) this.#everyMs = Math.min(2 * this.#everyMs, MAX_PARKED_PROOF_INTERVAL_MS);
    this.#mark = mark;
    this.#parked = true;
    this.#dueAtMs = nowMs + this.#everyMs;
  }

  unpark(): void {
    this.#parked = false;
    this.#everyMs = this.#firstEveryMs;
  }
}

/** A wait for `PROVEN` that ran out while the write was sealed: it ends with that outcome, not a timeout. */
class SealedAtDeadline extends Error {
  constructor(readonly outcome: WriteOutcome) {
    super('sealed, awaiting integration at the deadline');
  }
}

/** A stored refusal with whether its statement, signed by the function that decided it, checks. */
export interface Signed {
  readonly signatureVerified: boolean;
}

/** Dependencies of {@link WriteOutcomes}. */
export interface WriteOutcomesDeps extends PollClock {
  readonly store: Pick<LineageStore, 'findByResidualId' | 'listRejections' | 'listConflicts'>;
  readonly log: LogReader;
  /** The guard's verifier key (its refusals are signed by it). */
  readonly guardKey: () => Promise<NoteVerifierKey>;
  /** The sealer's verifier key (its refusals are signed by it; older ones by the log key, `log.key()`). */
  readonly sealerKey: () => Promise<NoteVerifierKey>;
  /** The stack's log name, named by every signed outcome. */
  readonly logName: string;
  /**
   * The deployment chain's reader, or `null`: then no freshness is checked (`freshness: null`,
   * or `SEALED_AWAITING_INTEGRATION` for a seal proven only in a head the sealer MAC'd).
   */
  readonly freshness: DeploymentChainReader | null;
  /**
   * The seals this client saw awaiting integration (docs/verifiable-log.md, "Seals seen awaiting
   * integration"): the seal of a write waited for with its `request` (the content this client
   * sent), seen `SEALED_AWAITING_INTEGRATION`, is remembered, and forgotten once `PROVEN`; a wait
   * without `request` remembers nothing. Absent or `null`: nothing is remembered.
   */
  readonly seen?: SeenSeals | null;
}

/**
 * Learns what became of a write from the table without trusting it: a seal counts once its record
 * is proven in a signed checkpoint; a refusal once its statement's signature, by the function that
 * decided it, checks and names this write. Items that do not check are ignored, so a table writer
 * can delay an answer (the wait times out) but never change it.
 */
export class WriteOutcomes {
  readonly #deps: WriteOutcomesDeps;
  constructor(deps: WriteOutcomesDeps) {
    this.#deps = deps;
  }

  /**
   * Polls until the write `residualId` on `lineageId` has a proven outcome. A proven seal of this
   * write (in a signed lineage checkpoint, or `PROVEN` through the deployment log) wins over a
   * refusal (a duplicate delivery may be refused after the write was sealed); a seal that is only
   * the table's word (a head the sealer MAC'd, not yet integrated) never outranks a refusal signed
   * for this very request: the wait goes on for the seal to become proven, and at the deadline
   * (at once for a client that reads no deployment log: nothing could prove it) the outcome is
   * that refusal (docs/pipeline.md, "Polling the table"). A refusal the sealer signed for the very
   * `request` whose seal is also found is no answer at all: the sealer answers a request it sealed
   * as a duplicate, so both stand only on an edited table; unless the seal becomes proven, the
   * wait ends in an `UnverifiedOutcomeError` naming both. Between refusals, the latest. Until the
   * write shows, every poll reads its marker but the refusals only on a backoff ({@link RefusalChecks}:
   * at most 4 s apart, and at the deadline), so a refusal answers up to about 4 s after it landed.
   *
   * @throws {TimeoutError} naming the write when nothing proven appears within `timeoutMs`
   * @throws {UnverifiedOutcomeError} when the marker names a record that cannot be proven, or an
   *   unproven seal of `request` stands beside a refusal the sealer signed for it
   *   (`UNVERIFIED_TAMPER_RISK`, at the deadline; at once without a deployment log)
   * @throws {HiddenSealError} when nothing came but this write's seal is proven (the deployment
   *   index maps its residual id, or its record is in the signed log) without a marker; a record
   *   found only in a head the sealer MAC'd, by a client that reads no deployment log, is the
   *   `SEALED` outcome awaiting integration instead (that tree vouches for nothing here)
   * @throws {InvalidInputError} when `options.request` names another lineage or residual id
   * @throws {LogVerificationError} `UNVERIFIED_TAMPER_RISK` when nothing came and a seal this
   *   client kept of the lineage no longer holds (this residual id absent, a tree smaller than a
   *   seal's seq, another record there): a rollback, as a recall reports it
   */
  async waitFor(lineageId: string, residualId: string, options: WaitForOutcomeOptions = {}): Promise<WriteOutcome> {
    const { request } = options;
    if (request && (request.lineageId !== lineageId || request.residualId !== residualId)) {
      throw new InvalidInputError('waitForOutcome request', [
        {
          path: 'request',
          message: `names residual ${request.residualId} of lineage ${request.lineageId}, not ${residualId} of ${lineageId}`,
        },
      ]);
    }
    const foreign = { seq: null as number | null };
    const contested: Contested = { refusal: null, tamper: null };
    let sealed: WriteOutcome | null = null;
    const reader = this.#deps.freshness;
    const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    const parking = new ProofParking(pollIntervalMs);
    const refusalChecks = new RefusalChecks(pollIntervalMs);
    let shown = false;
    const attempt = async ({ final }: PollAttempt): Promise<WriteOutcome | null> => {
      // Until the write shows sealed or refused, a poll looks at the marker and the refusals in an
      // eventually consistent copy first (half the read units), the refusals only when their
      // backoff is due (RefusalChecks): nothing there only means "poll again", and whatever is
      // there is decided on the strong reads that follow (a copy can miss a marker beside a
      // refusal, or show a marker since put again). The deadline's attempt reads all, strongly.
      if (!final && !shown) {
        if (!(await this.#shows(lineageId, residualId, options, foreign, refusalChecks))) return null;
        shown = true;
      }
      // A seal waiting on the deployment log: the full proof is run again only when the head moved,
      // the backoff is due, or at the deadline (never skipped there: the answer rests on a proof).
      const mark = reader && parking.parked && !final ? await reader.headMark() : undefined;
      if (mark !== undefined && parking.skips(mark, this.#deps.nowMs())) return null;
      const outcome = await this.#outcomeOf(lineageId, residualId, options, foreign, contested, final);
      // Without a deployment log nothing can make it PROVEN: waiting on would only time out.
      const awaiting =
        options.untilProven &&
        reader !== null &&
        outcome?.kind === 'SEALED' &&
        outcome.freshness?.state === 'SEALED_AWAITING_INTEGRATION';
      if (awaiting) sealed = outcome;
      // Waiting only for the seal to become proven (awaiting integration, or contested by a signed
      // refusal that answers only at the deadline): what can change that is the deployment head.
      if (!final && reader && (awaiting || (outcome === null && contested.refusal !== null)))
        parking.park(mark === undefined ? await reader.headMark() : mark, this.#deps.nowMs());
      else parking.unpark();
      return awaiting ? null : outcome;
    };
    try {
      return await pollUntil(attempt, this.#deps, {
        ...options,
        timedOut: (timeoutMs) =>
          sealed
            ? new SealedAtDeadline(sealed)
            : new TimeoutError(
                `a proven outcome of residual ${residualId} in lineage ${lineageId} (sealed record, signed rejection or conflict)`,
                timeoutMs,
              ),
      });
    } catch (error) {
      // The sealer refused the request it sealed: the table was edited, neither is the outcome.
      if (contested.tamper && (error instanceof SealedAtDeadline || error instanceof TimeoutError))
        throw contested.tamper;
      // A guard refusal signed for this request outranks a seal that is only the table's word.
      if (contested.refusal && (error instanceof SealedAtDeadline || error instanceof TimeoutError))
        return contested.refusal;
      if (error instanceof SealedAtDeadline) return error.outcome;
      // Nothing under the marker at the deadline: a proven seal whose marker is hidden is a
      // tamper finding, not "no outcome" (docs/cli.md, `publish --wait`).
      if (error instanceof TimeoutError && foreign.seq === null) {
        const found = await this.#hiddenSeal(lineageId, residualId, options, foreign);
        if (found) return found;
        await this.#unlessSeenRolledBack(lineageId, residualId);
      }
      throw error;
    }
  }

  /**
   * At the deadline with no marker: looks for this write's seal where a table writer cannot forge
   * it, the deployment index (its residual id mapped, as of a verified deployment checkpoint),
   * then the lineage's signed log, newest record first, back to the request's signing time (else
   * `options.sinceMs`; at most {@link MAX_HIDDEN_SEAL_SCAN} records). The marker is read once more before a finding (the
   * seal may have landed since the last poll), so an honest table never reads as tampered.
   *
   * @returns the outcome when the marker is back, else `null` (no seal found: the timeout stands)
   * @throws {HiddenSealError} when a seal is proven but its marker is absent, or the log does not verify
   */
  async #hiddenSeal(
    lineageId: string,
    residualId: string,
    options: WaitForOutcomeOptions,
    foreign: { seq: number | null },
  ): Promise<WriteOutcome | null> {
    const finding =
      (await this.#indexedSeal(lineageId, residualId)) ?? (await this.#loggedSeal(lineageId, residualId, options));
    if (finding === null) return null;
    const again = await this.#outcomeOf(lineageId, residualId, options, foreign, undefined, true);
    if (again) return again;
    if (finding instanceof HiddenSealError) throw finding;
    return finding;
  }

  /**
   * At the deadline with nothing found for `residualId` (no marker, no hidden seal): the seals this
   * client kept of the lineage held against the lineage as read now, as a recall holds them
   * (docs/verifiable-log.md, "Seals seen awaiting integration"): `residualId` seen sealed but
   * absent now, a tree no larger than a seal's seq, or another record at it is a rollback.
   * Nothing is read when no seal of the lineage is kept.
   *
   * @throws {LogVerificationError} `UNVERIFIED_TAMPER_RISK` naming the seal, or the log's own finding
   */
  async #unlessSeenRolledBack(lineageId: string, residualId: string): Promise<void> {
    const seen = this.#deps.seen;
    if (!seen || (await seen.load(lineageId)).length === 0) return;
    const { log } = this.#deps;
    const found = await seen.contradiction(log, lineageId, await log.latest(lineageId), residualId);
    if (found) throw new LogVerificationError(lineageId, VerificationVerdict.UNVERIFIED_TAMPER_RISK, found.reason);
  }

  /** The index maps the residual id (verified chain) though the table shows no marker: `INCONSISTENT`. */
  async #indexedSeal(lineageId: string, residualId: string): Promise<HiddenSealError | null> {
    const reader = this.#deps.freshness;
    if (!reader) return null;
    const chain = await reader.read({ lineageId, residualId });
    if (chain.kind !== 'PROVEN' || !chain.residual) return null;
    const absence = decideAbsence(chain, { residualId });
    if (!absence?.finding) return null;
    return new HiddenSealError(
      lineageId,
      residualId,
      chain.residual.seq,
      absence.finding.verdict,
      absence.finding.reason,
    );
  }

  /**
   * This write's record in the lineage's signed log (past the index, or with no deployment log),
   * though no marker names it: a `HiddenSealError`. For a client that reads no deployment log, a
   * record found only in a head the sealer MAC'd is no finding: that tree vouches for nothing this
   * client can check (a table writer could have put the head there), so it is the `SEALED` outcome,
   * `SEALED_AWAITING_INTEGRATION` (docs/verifiable-log.md, "Signed outcomes"), never tampering.
   * `signedOnly`: `null` unless the lineage's latest head carries a signed checkpoint (beside a
   * signed refusal, a head the sealer MAC'd is the table's word; `#sealHiddenBeside`).
   */
  async #loggedSeal(
    lineageId: string,
    residualId: string,
    options: WaitForOutcomeOptions,
    signedOnly = false,
  ): Promise<HiddenSealError | WriteOutcome | null> {
    const { log } = this.#deps;
    // A record sealed before the request could have reached the sealer is not its seal: the sealer
    // seals a signed write no earlier than its signing time less REPLAY_SEARCH_MARGIN_MS, the bound
    // its own search past the index uses (docs/sealing.md, "The index floor"; docs/authorship.md,
    // "Replay"). An earlier publish of the same request counts, as the marker's seal would.
    const since = options.request
      ? options.request.writer.signedAtMs - REPLAY_SEARCH_MARGIN_MS
      : (options.sinceMs ?? Number.NEGATIVE_INFINITY);
    try {
      const latest = await log.latest(lineageId);
      if (latest === null || (signedOnly && latest.checkpoint.note === null)) return null;
      const { request } = options;
      const found = await searchLoggedSeal(log, {
        lineageId,
        residualId,
        latest,
        sinceMs: since,
        ...(request ? { matches: (record) => differingWriteContent(request, record).length === 0 } : {}),
      });
      if (found.kind !== 'FOUND') return null;
      if (latest.checkpoint.note === null && this.#deps.freshness === null) {
        const proven = await log.proveIn(lineageId, found.seq, latest);
        // Found matching the request: this client's own write (see #outcomeOf).
        if (request) await this.#deps.seen?.remember(proven.record, proven.checkpoint);
        return {
          kind: 'SEALED',
          head: lineageHeadOf(proven.record),
          treeHead: {
            origin: proven.checkpoint.origin,
            size: proven.checkpoint.size,
            rootHash: proven.checkpoint.rootHash,
          },
          checkpoint: null,
          proof: proven.inclusion,
          freshness: {
            ...UNREAD_MAC_HEAD,
            reason: `${UNREAD_MAC_HEAD.reason}; no residual-id marker names it (found at seq ${found.seq} by searching the head item's tree), which that tree cannot show to be tampering`,
          },
        };
      }
      return new HiddenSealError(
        lineageId,
        residualId,
        found.seq,
        'UNVERIFIED_TAMPER_RISK',
        `its record is sealed at seq ${found.seq}, proven in the lineage's ${latest.checkpoint.note === null ? 'head tree' : 'signed checkpoint'} of ${latest.checkpoint.size} records: the marker was deleted`,
      );
    } catch (error) {
      if (!(error instanceof LogVerificationError)) throw error;
      return new HiddenSealError(
        lineageId,
        residualId,
        null,
        error.verdict,
        `the lineage's signed log does not verify: ${error.reason}`,
      );
    }
  }

  /**
   * The rejection and conflict records filed under a lineage, oldest first (from the table,
   * diagnostic: they are not part of the sealed chain), each marked `signatureVerified` when its
   * signed statement checks; an unmarked one may be a forgery. Rejections of bodies too broken to
   * name their lineage are not among them.
   */
  async readRefusals(
    lineageId: string,
  ): Promise<{ rejections: (RejectionRecord & Signed)[]; conflicts: (ConflictRecord & Signed)[] }> {
    const { store } = this.#deps;
    const [rejections, conflicts] = await Promise.all([
      store.listRejections(lineageId),
      store.listConflicts(lineageId),
    ]);
    return {
      rejections: await Promise.all(
        rejections.map(async (record) => ({
          ...record,
          signatureVerified: await this.isSigned({ kind: 'rejection', record }),
        })),
      ),
      conflicts: await Promise.all(
        conflicts.map(async (record) => ({
          ...record,
          signatureVerified: await this.isSigned({ kind: 'conflict', record }),
        })),
      ),
    };
  }

  async #outcomeOf(
    lineageId: string,
    residualId: string,
    options: WaitForOutcomeOptions,
    foreign: { seq: number | null },
    contested: Contested = { refusal: null, tamper: null },
    final = false,
  ): Promise<WriteOutcome | null> {
    const { store, log } = this.#deps;
    contested.refusal = null;
    contested.tamper = null;
    const location = await store.findByResidualId(lineageId, residualId);
    if (location && location.lineageId === lineageId && location.seq !== foreign.seq) {
      let proven: Awaited<ReturnType<LogReader['proveRecord']>>;
      try {
        proven = await log.proveRecord(lineageId, location.seq);
      } catch (error) {
        if (!(error instanceof LogVerificationError)) throw error;
        throw new UnverifiedOutcomeError(lineageId, residualId, location.seq, error.verdict, error.reason);
      }
      const { record } = proven;
      if (record.header.residualId !== residualId) {
        throw new UnverifiedOutcomeError(
          lineageId,
          residualId,
          location.seq,
          'LINEAGE_BROKEN',
          `the marker points at seq ${location.seq}, which seals ${record.header.residualId}`,
        );
      }
      if (!options.request || differingWriteContent(options.request, record).length === 0) {
        await log.keep(lineageId, proven.checkpoint, proven.trusted);
        // A plain wait answers with the first seal it proves, so that proof is its last word: it
        // reads the deployment head strongly, as the deadline's proof of a wait until proven does.
        const freshness = await this.#freshnessOf(lineageId, residualId, proven, final || !options.untilProven);
        // Remembered only as the seal of the request this client published (its content bound by
        // the record): never a record it did not send, which a table writer could have planted
        // past the index (docs/verifiable-log.md, "Seals seen awaiting integration").
        if (options.request && freshness?.state === FreshnessState.SEALED_AWAITING_INTEGRATION)
          await this.#deps.seen?.remember(record, proven.checkpoint);
        // Proven through the index: every seal kept of this residual id is settled, at whatever seq.
        else if (freshness?.state === FreshnessState.PROVEN) await this.#deps.seen?.forget(lineageId, residualId);
        const seal: WriteOutcome = {
          kind: 'SEALED',
          head: lineageHeadOf(record),
          treeHead: {
            origin: proven.checkpoint.origin,
            size: proven.checkpoint.size,
            rootHash: proven.checkpoint.rootHash,
          },
          checkpoint: proven.checkpoint.note,
          proof: proven.inclusion,
          freshness,
        };
        if (isProvenSeal(seal)) return seal;
        // Waited past the seal until proven, with a deployment log: a seal awaiting integration is
        // waited past whatever refusal stands beside it, which only the deadline's attempt answers
        // (contested), so only that attempt reads the refusals.
        if (
          options.untilProven &&
          this.#deps.freshness !== null &&
          !final &&
          freshness?.state === FreshnessState.SEALED_AWAITING_INTEGRATION
        )
          return seal;
        // Only the table's word: a table writer can build this record from the refused request and
        // put it, its marker and the head there. A guard refusal signed for this request outranks
        // it; one the sealer signed for this very request contradicts it (sealerRefusalFinding).
        const { latest, sealer } = await this.#signedRefusals(lineageId, residualId, options);
        if (latest === null) return seal;
        contested.refusal = latest;
        contested.tamper = options.request && sealer ? sealerRefusalFinding(lineageId, residualId, seal, sealer) : null;
        if (this.#deps.freshness !== null) return null;
        if (contested.tamper) throw contested.tamper;
        return latest;
      }
      foreign.seq = location.seq; // another write's seal: this one's refusal is awaited
    }
    const refusal = await this.#refusalOf(lineageId, residualId, options);
    if (refusal !== null && foreign.seq === null && (await this.#sealHiddenBeside(lineageId, residualId, options)))
      return null;
    return refusal;
  }

  /**
   * No marker, but a refusal signed for this request (a refused duplicate delivery, or one the
   * writer caused by sending the request again): before that refusal is the answer, this write's
   * seal is looked for where a table writer cannot forge it (`#indexedSeal`, then `#loggedSeal`),
   * as the deadline does, so deleting the marker cannot turn a proven seal into `REJECTED`
   * (docs/pipeline.md, "Polling the table"). Read only on the way to a refusal.
   *
   * @returns `true` when the marker is back (poll again: it answers), `false` when no seal is found
   * @throws {HiddenSealError} when a seal is proven but its marker is absent, or the log does not verify
   */
  async #sealHiddenBeside(lineageId: string, residualId: string, options: WaitForOutcomeOptions): Promise<boolean> {
    // A seal only a head the sealer MAC'd shows is the table's word, which a refusal signed for the
    // request outranks (as beside its marker): only the index or a signed lineage checkpoint count.
    const finding =
      (await this.#indexedSeal(lineageId, residualId)) ??
      (await this.#loggedSeal(lineageId, residualId, options, true));
    if (!(finding instanceof HiddenSealError)) return false;
    // The seal may have landed since (record, then head, then marker): an honest table never reads as tampered.
    const again = await this.#deps.store.findByResidualId(lineageId, residualId);
    if (again && again.lineageId === lineageId) return true;
    throw finding;
  }

  /**
   * Whether an eventually consistent copy shows this write's marker (at a seq not known to be
   * another write's) or, when `refusalChecks` has a read due, a refusal signed for it: a trigger
   * for the strong reads, never an answer.
   */
  async #shows(
    lineageId: string,
    residualId: string,
    options: WaitForOutcomeOptions,
    foreign: { seq: number | null },
    refusalChecks: RefusalChecks,
  ): Promise<boolean> {
    const location = await this.#deps.store.findByResidualId(lineageId, residualId, { eventual: true });
    if (location && location.lineageId === lineageId && location.seq !== foreign.seq) return true;
    if (!refusalChecks.due(this.#deps.nowMs())) return false;
    return (await this.#signedRefusals(lineageId, residualId, options, true)).latest !== null;
  }

  /** The latest refusal of this write signed by the function that decided it (since `options.sinceMs`), or `null`. */
  async #refusalOf(
    lineageId: string,
    residualId: string,
    options: WaitForOutcomeOptions,
  ): Promise<WriteOutcome | null> {
    return (await this.#signedRefusals(lineageId, residualId, options)).latest;
  }

  /**
   * The refusals of this write signed by the function that decided each (since `options.sinceMs`):
   * the latest (`latest`), and the latest the sealer decided (`sealer`: every conflict, and a rejection of `RejectionStage.SEALER`).
   * `eventual`: from a copy up to about a second old ({@link WriteOutcomes.waitFor}'s trigger alone).
   */
  async #signedRefusals(
    lineageId: string,
    residualId: string,
    options: WaitForOutcomeOptions,
    eventual = false,
  ): Promise<{ latest: WriteOutcome | null; sealer: WriteOutcome | null }> {
    const { store } = this.#deps;
    const since = options.sinceMs ?? Number.NEGATIVE_INFINITY;
    const [rejections, conflicts] = await Promise.all([
      // Bounded by `sinceMs` in the key: the older ones, filtered out below anyway, are never read.
      store.listRejections(lineageId, { residualId, eventual, sinceMs: since }),
      store.listConflicts(lineageId, { residualId, eventual }),
    ]);
    const signedRejections = (await this.#proven(rejections, (r) => this.#openRejection(r, options))).filter(
      (r) => r.item.atMs >= since,
    );
    const conflict = (await this.#proven(conflicts, (c) => this.#openConflict(c, options)))
      .filter((c) => c.item.atMs >= since)
      .at(-1);
    const latestOf = (rejection: (typeof signedRejections)[number] | undefined): WriteOutcome | null => {
      if (conflict && (!rejection || conflict.item.atMs >= rejection.item.atMs)) {
        return { kind: 'CONFLICT', conflict: conflict.item, statement: conflict.statement };
      }
      return rejection ? { kind: 'REJECTED', rejection: rejection.item, statement: rejection.statement } : null;
    };
    return {
      latest: latestOf(signedRejections.at(-1)),
      sealer: latestOf(signedRejections.filter((r) => r.item.stage === RejectionStage.SEALER).at(-1)),
    };
  }

  /**
   * Where a sealed record stands against the deployment log: the chain read for its lineage and
   * residual id, decided as a recall by residual id is (`provenRecordFreshness`), so `PROVEN`
   * needs the index to map the residual id to this very record. Without a deployment log: `null`
   * for a record in a signed lineage checkpoint, {@link UNREAD_MAC_HEAD} for one in a head the
   * sealer MAC'd (as a recall ends there, docs/verifiable-log.md, "Signed outcomes").
   */
  async #freshnessOf(
    lineageId: string,
    residualId: string,
    proven: ProvenRecord,
    final: boolean,
  ): Promise<Freshness | null> {
    const reader = this.#deps.freshness;
    if (!reader) return proven.checkpoint.note === null ? UNREAD_MAC_HEAD : null;
    const policy = await reader.policy();
    const decide = async (eventual: boolean) => {
      const { chain } = await reader.open({ lineageId, residualId }, { eventual });
      return provenRecordFreshness(this.#deps.log, lineageId, chain, proven.checkpoint, proven.record, {
        latest: false,
        residualAsked: true,
      });
    };
    // Before the last word (`final`: a plain wait's answer, a wait until proven's deadline) the
    // deployment head is read eventually consistent (half a read unit, OpenOptions.eventual), as
    // a recall reads it: a copy a second old can only leave the seal awaiting integration one poll
    // longer, and any finding against it (the chain refused, the record inconsistent with it) is
    // decided again on a strong read. The last word reads it strongly, so a wait never answers
    // "awaiting" from a stale copy where the deployment log already proves the write.
    const first = await decide(!final);
    const decided = first.finding && !final ? await decide(false) : first;
    return freshnessOf(decided, policy);
  }

  /**
   * Whether a stored refusal carries a valid statement signed by the function that decided it
   * (for listings such as `reseal inspect`; no request to match, so any write's refusal counts).
   */
  async isSigned(
    item:
      | { readonly kind: 'rejection'; readonly record: RejectionRecord }
      | { readonly kind: 'conflict'; readonly record: ConflictRecord },
  ): Promise<boolean> {
    try {
      if (item.kind === 'rejection') await this.#openRejection(item.record, {});
      else await this.#openConflict(item.record, {});
      return true;
    } catch (error) {
      if (!(error instanceof ResealError) || error instanceof SignerUnavailableError) throw error;
      return false;
    }
  }

  /** The items whose statement checks, each with it. */
  async #proven<T>(items: readonly T[], open: (item: T) => Promise<OutcomeStatement>) {
    const proven: { item: T; statement: OutcomeStatement }[] = [];
    for (const item of items) {
      try {
        proven.push({ item, statement: await open(item) });
      } catch (error) {
        // Anything that does not check (a bad signature, an edited field, a string that cannot be
        // canonicalized) makes the item not an outcome; only infrastructure errors propagate.
        if (!(error instanceof ResealError) || error instanceof SignerUnavailableError) throw error;
      }
    }
    return proven;
  }

  async #openRejection(rejection: RejectionRecord, options: WaitForOutcomeOptions): Promise<OutcomeStatement> {
    if (rejection.statement === null) throw new OutcomeVerificationError('unsigned rejection');
    if (rejection.unreadable) throw new OutcomeVerificationError(`rejection item ${rejection.unreadable}`);
    const statement = openOutcomeOfStage(
      rejection.statement,
      rejection.stage,
      await this.#outcomeKeys(rejection.stage),
      this.#deps.logName,
    );
    checkRejectionOutcome(rejection, statement);
    this.#checkNamesRequest(statement, rejection.bodyDigest, options);
    return statement;
  }

  async #openConflict(conflict: ConflictRecord, options: WaitForOutcomeOptions): Promise<OutcomeStatement> {
    if (conflict.statement === null) throw new OutcomeVerificationError('unsigned conflict');
    if (conflict.unreadable) throw new OutcomeVerificationError(`conflict item ${conflict.unreadable}`);
    const statement = openOutcomeOfStage(
      conflict.statement,
      RejectionStage.SEALER,
      await this.#outcomeKeys(RejectionStage.SEALER),
      this.#deps.logName,
    );
    checkConflictOutcome(conflict, statement);
    this.#checkNamesRequest(statement, null, options);
    return statement;
  }

  /** The verifier keys of the stage's signers (docs/verifiable-log.md, "Signed outcomes"), each read only when the stage has it. */
  async #outcomeKeys(stage: RejectionStage): Promise<Partial<Record<OutcomeKeyRole, NoteVerifierKey>>> {
    const read: Record<OutcomeKeyRole, () => Promise<NoteVerifierKey>> = {
      guard: this.#deps.guardKey,
      sealer: this.#deps.sealerKey,
      log: () => this.#deps.log.key(),
    };
    const roles = outcomeKeyRoles(stage);
    return Object.fromEntries(await Promise.all(roles.map(async (role) => [role, await read[role]()] as const)));
  }

  /** A refusal of another write under the same id is not this write's outcome. */
  #checkNamesRequest(statement: OutcomeStatement, bodyDigest: string | null, options: WaitForOutcomeOptions): void {
    const { request } = options;
    if (!request) return;
    if (statement.requestDigest !== null) {
      if (statement.requestDigest !== requestDigest(request))
        throw new OutcomeVerificationError('refusal of another write');
      return;
    }
    // A body refused before it parsed names no request digest; the client sent its canonical JSON.
    const sent = createHash('sha256').update(canonicalJson(request), 'utf8').digest('hex');
    if (bodyDigest !== sent) throw new OutcomeVerificationError('refusal of another body');
  }
}
