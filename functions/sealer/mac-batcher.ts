import type { MacAnchor } from '../../shared/ports/mac-anchor';
import { macRecords, type RecordMac, type RecordToMac } from '../../shared/seal/mac-records';

/**
 * One member of a {@link MacBatcher}: a message group of the invocation, whose runs ask it for
 * MACs. It must {@link MacBatchMember.leave} when the group is done, however it ends (`finally`):
 * until then the batch may wait for it.
 */
export interface MacBatchMember<Ask, Answer> {
  /**
   * The answer to `ask` from the invocation's batch MAC, or, for an ask after the batch fired (at
   * its deadline, or a retry after a lost race, a second run of the group) or after the member
   * left, from a batch of its own.
   * @throws what the anchor's `generateMac` throws (every member waiting on the batch gets it)
   */
  mac(ask: Ask): Promise<Answer>;
  /** The member is done, or its put failed: the batch no longer waits for it. Idempotent. */
  leave(): void;
}

/**
 * Longest an invocation's MAC batch waits, from the first ask, for the members that have neither
 * asked nor left: 1 s. A run seals its records and stores them tens of milliseconds after its
 * invocation starts (a few DynamoDB and KMS calls of single-digit ms), so a batch still forms
 * whole in the normal case; a run that hangs (a slow read, a throttled call) holds the others for
 * a second at most, never until the Lambda timeout fails the whole invocation. A member asking
 * after the batch fired gets a batch of its own: one `GenerateMac` more, what every run paid
 * before batches, never a wrong or missing MAC.
 */
export const MAC_BATCH_WAIT_MS = 1_000;

/** Most asks in one batch (it fires when reached): 64, far above the 10 message groups of an invocation. */
export const MAX_BATCH_ASKS = 64;

/**
 * Makes one batch's answers, one per ask by position, with one `GenerateMac`.
 * @throws what the anchor's `generateMac` throws
 */
export type BatchMac<Ask, Answer> = (asks: readonly Ask[]) => Promise<readonly Answer[]>;

/** An ask waiting for the batch. */
interface Waiting<Ask, Answer> {
  readonly ask: Ask;
  readonly resolve: (answer: Answer) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * One `GenerateMac` for what the runs of one sealer invocation ask for (docs/pipeline.md,
 * "Concurrency"): each message group joins ({@link MacBatcher.join}) when it starts, and the batch
 * fires once every member has either asked or left (refused, conflict, redelivery, error: `leave`
 * in a `finally`), when `maxAsks` asks wait, or `waitMs` after the first ask (a member still
 * running then gets a batch of its own). After it fired every ask gets a batch of its own, so
 * nothing ever waits for a batch that has gone. One per invocation: the records' MAC, asked for
 * before the records are stored ({@link recordMacBatcher}; docs/sealing.md, "The record and its
 * seal"); the head states are MAC'd in process under the notice data key (docs/verifiable-log.md,
 * "Appending").
 *
 * Never deadlocks: a waiting member waits only for members that joined, are running (a group
 * joins from its own code, not while queued behind the handler's concurrency limit), and either
 * ask (which fires the batch when they are the last) or leave, and never longer than `waitMs`. The cost
 * is latency: a run waits for the slowest run of the invocation, a second at most.
 */
export class MacBatcher<Ask, Answer> {
  readonly #batchMac: BatchMac<Ask, Answer>;
  readonly #maxAsks: number;
  readonly #waitMs: number;
  /** Members joined that have neither asked nor left. */
  readonly #open = new Set<object>();
  readonly #waiting: Waiting<Ask, Answer>[] = [];
  #fired = false;
  /** The deadline's timer, from the first ask until the batch fires. */
  #deadline: ReturnType<typeof setTimeout> | null = null;

  /**
   * @param maxAsks - most asks in the batch (fires when reached) @default {@link MAX_BATCH_ASKS}
   * @param waitMs - the deadline, ms after the first ask @default {@link MAC_BATCH_WAIT_MS}
   * @throws {RangeError} when `maxAsks` is not an integer in 1..{@link MAX_BATCH_ASKS}, or `waitMs`
   *   not a non-negative integer
   */
  constructor(batchMac: BatchMac<Ask, Answer>, maxAsks: number = MAX_BATCH_ASKS, waitMs: number = MAC_BATCH_WAIT_MS) {
    if (!Number.isSafeInteger(maxAsks) || maxAsks < 1 || maxAsks > MAX_BATCH_ASKS) {
      throw new RangeError(`maxAsks ${maxAsks}`);
    }
    if (!Number.isSafeInteger(waitMs) || waitMs < 0) throw new RangeError(`waitMs ${waitMs}`);
    this.#batchMac = batchMac;
    this.#maxAsks = maxAsks;
    this.#waitMs = waitMs;
  }

  /** A new member; after the batch fired, one whose every ask gets a batch of its own. */
  join(): MacBatchMember<Ask, Answer> {
    if (this.#fired) return { mac: (ask) => this.#alone(ask), leave: () => {} };
    const entry = {};
    this.#open.add(entry);
    const close = () => this.#open.delete(entry);
    return {
      mac: (ask) => {
        if (!close() || this.#fired) return this.#alone(ask);
        const answer = new Promise<Answer>((resolve, reject) => {
          this.#waiting.push({ ask, resolve, reject });
        });
        this.#fireWhenReady();
        return answer;
      },
      leave: () => {
        if (close()) this.#fireWhenReady();
      },
    };
  }

  /** The answer from a batch of `ask` alone. */
  async #alone(ask: Ask): Promise<Answer> {
    return (await this.#batchMac([ask]))[0] as Answer;
  }

  #fireWhenReady(): void {
    if (this.#fired || this.#waiting.length === 0) return;
    if (this.#open.size > 0 && this.#waiting.length < this.#maxAsks) {
      // Not `unref`'d: the waiting runs need it to end, and it is cleared when the batch fires.
      this.#deadline ??= setTimeout(() => this.#fire(), this.#waitMs);
      return;
    }
    this.#fire();
  }

  /** Makes the batch MAC for the asks waiting now; every later ask gets a batch of its own. */
  #fire(): void {
    if (this.#fired) return;
    if (this.#deadline !== null) clearTimeout(this.#deadline);
    this.#deadline = null;
    this.#fired = true;
    const waiting = this.#waiting.splice(0);
    this.#open.clear();
    // `then` of a promise: a synchronous throw of the batch function rejects every waiter too.
    Promise.resolve()
      .then(() => this.#batchMac(waiting.map((w) => w.ask)))
      .then(
        (answers) => {
          for (const [i, w] of waiting.entries()) w.resolve(answers[i] as Answer);
        },
        (error: unknown) => {
          for (const w of waiting) w.reject(error);
        },
      );
  }
}

/**
 * The invocation's record MAC batch: each run asks once with the records it sealed on its tip (seq
 * order) and gets their seals by position; the batch's leaves are the waiting runs' records, runs
 * in the order they asked (`macRecords`: a batch of one record is that record's own MAC, the single
 * form). Asked before the records are stored; a MAC of records that are then not stored goes
 * nowhere (a failed put's records are sealed again, in a batch of their own), and since each
 * leaf is salted with bytes only the record's own item stores, a stored batch-mate's path never
 * lets one be rebuilt (docs/sealing.md, "The record and its seal").
 */
export function recordMacBatcher(
  anchor: MacAnchor,
  maxAsks?: number,
  waitMs?: number,
): MacBatcher<readonly RecordToMac[], readonly RecordMac[]> {
  return new MacBatcher<readonly RecordToMac[], readonly RecordMac[]>(
    async (runs) => {
      const macs = await macRecords(runs.flat(), anchor);
      let next = 0;
      return runs.map((run) => {
        const mine = macs.slice(next, next + run.length);
        next += run.length;
        return mine;
      });
    },
    maxAsks,
    waitMs,
  );
}
