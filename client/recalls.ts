import { InvalidInputError, ResealError, SignerUnavailableError } from '../shared/errors';
import { checkRecallAnswer, type RecallCheck } from '../shared/log/recall-check';
import { RefusalCode, type TriageCompletedDetail, TriageCompletedDetailSchema } from '../shared/pipeline/messages';
import type { LineageStore } from '../shared/ports/lineage-store';
import type { ChainCheckpoint } from '../shared/seal/chain-verification';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import { LogVerificationError, TimeoutError } from './errors';
import type { LatestCheckpoint, LogReader } from './log-reader';
import { type PollClock, pollUntil, type WaitOptions } from './poll';
import type { RecallRequest, StackPublisher } from './publisher';

/** A recall answered and checked by the client ({@link Recalls.recall}): the stored report and the client's own verdict. */
export interface VerifiedRecall extends RecallCheck {
  readonly requestId: string;
  /** Triage's answer as stored: diagnostic only, never acted on as is. */
  readonly report: TriageCompletedDetail;
}

/** Dependencies of {@link Recalls}. */
export interface RecallsDeps extends PollClock {
  readonly store: Pick<LineageStore, 'getTriageReport' | 'readRecord' | 'findByResidualId'>;
  readonly log: LogReader;
  readonly publisher: Pick<StackPublisher, 'requestRecall'>;
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
   * Requests a recall, waits for triage's answer and checks it with public keys alone
   * (`checkRecallAnswer`): the record proven in the latest signed checkpoint, consistent with the
   * kept one (sent as `trustedCheckpoint`), and the delta recomputed from the proven record and
   * `currentEnv`. A proven newer checkpoint is kept. The stored answer is never acted on as is.
   *
   * @throws {TimeoutError} when no answer appears within `timeoutMs` (default 60,000)
   * @throws {LogVerificationError} when the kept checkpoint does not verify
   */
  async recall(request: RecallRequest, options: WaitOptions = {}): Promise<VerifiedRecall> {
    const { lineageId } = request;
    // The larger of the kept checkpoint and the caller's own binds the answer (each must verify):
    // a caller's older checkpoint can never stand in for a newer one this client kept.
    const kept = await this.#deps.log.trusted(lineageId);
    const given = request.trustedCheckpoint ? await this.#openGiven(lineageId, request.trustedCheckpoint) : null;
    const trusted = kept && (!given || kept.size >= given.size) ? kept : given;
    const requestId = await this.#deps.publisher.requestRecall({
      ...request,
      ...(trusted ? { trustedCheckpoint: trusted.note } : {}),
    });
    const report = await this.waitForTriageReport(lineageId, requestId, options);
    const seq = report.proof?.seq;
    const record = seq === undefined ? null : await this.#deps.store.readRecord(lineageId, seq);
    let check = checkRecallAnswer({
      report,
      record,
      key: await this.#deps.log.key(),
      lineageId,
      requestId,
      target: request.target,
      currentEnv: request.currentEnv,
      trusted,
    });
    if (check.verdict === VerificationVerdict.VERIFIED_INTACT && check.checkpoint && request.checkpoint) {
      check = await this.#checkLegacyCheckpoint(lineageId, request.checkpoint, check);
    }
    if (check.verdict === null && check.refusal) check = await this.#checkRefusal(request, check);
    if (check.verdict === VerificationVerdict.VERIFIED_INTACT && check.checkpoint) {
      await this.#deps.log.keep(lineageId, check.checkpoint, trusted);
    }
    return { requestId, report, ...check };
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
   * is not either. Both become `UNVERIFIED_TAMPER_RISK`. A `NOT_FOUND` the log cannot contradict
   * stands, as triage's claim.
   */
  async #checkRefusal(request: RecallRequest, check: RecallCheck): Promise<RecallCheck> {
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
    let latest: LatestCheckpoint | null;
    try {
      latest = await this.#deps.log.latest(lineageId);
    } catch (error) {
      if (error instanceof LogVerificationError) return { ...check, verdict: error.verdict, reason: error.reason };
      throw error;
    }
    if (latest === null) return check;
    const size = latest.checkpoint.size;
    if (('seq' in target && target.seq < size) || ('latest' in target && size > 0)) {
      return forged(
        `the stored answer says the record does not exist, but the signed checkpoint covers ${size} records`,
      );
    }
    if ('residualId' in target) {
      const location = await this.#deps.store.findByResidualId(lineageId, target.residualId);
      if (location && location.seq < size) {
        const proven = await this.#deps.log.proveIn(lineageId, location.seq, latest).catch(() => null);
        if (proven?.record.header.residualId === target.residualId) {
          return forged(
            `the stored answer says residual ${target.residualId} does not exist, but it is proven at seq ${location.seq}`,
          );
        }
      }
    }
    return check;
  }

  /**
   * A `{ seq, recordHash }` checkpoint the caller trusts (from a `ResidualSealed` event): the
   * record at `seq` must be in the proven checkpoint with that hash, checked here, not taken from
   * triage's word.
   */
  async #checkLegacyCheckpoint(lineageId: string, legacy: ChainCheckpoint, check: RecallCheck): Promise<RecallCheck> {
    const latest = check.checkpoint as NonNullable<RecallCheck['checkpoint']>;
    const fail = (verdict: VerificationVerdict, reason: string): RecallCheck => ({
      ...check,
      verdict,
      reason,
      record: null,
      delta: null,
    });
    if (legacy.seq >= latest.size) {
      return fail(
        VerificationVerdict.TRUNCATION_DETECTED,
        `truncated: the signed checkpoint covers ${latest.size} records but a trusted checkpoint saw seq ${legacy.seq}`,
      );
    }
    try {
      const proven = await this.#deps.log.proveIn(lineageId, legacy.seq, { checkpoint: latest, trusted: null });
      if (proven.record.recordHash !== legacy.recordHash) {
        return fail(VerificationVerdict.LINEAGE_BROKEN, `fork: seq ${legacy.seq} differs from the trusted checkpoint`);
      }
      return check;
    } catch (error) {
      if (error instanceof LogVerificationError) return fail(error.verdict, error.reason);
      throw error;
    }
  }
}
