import type { HexDigest } from '../../shared/canonical/digest';
import { headStateBatchMessage, headStateBatchOf, MAX_HEAD_STATE_BATCH } from '../../shared/log/head-state-batch';
import { type HeadState, type HeadStateMac, headStateDigest, macHeadState } from '../../shared/log/head-state-mac';
import type { MacAnchor } from '../../shared/ports/mac-anchor';

/**
 * One member of a {@link HeadMacBatcher}: a message group of the invocation, whose runs ask it for
 * their head states' MACs. It must {@link HeadMacMember.leave} when the group is done, however it
 * ends (`finally`): until then the batch may wait for it.
 */
export interface HeadMacMember {
  /**
   * The head-state MAC of `state`: the invocation's batch MAC (`heads` naming `state` among the
   * others), or, for a head state asked for after the batch fired (at its deadline, or a retry
   * after a lost race, a second run of the group, a roll-forward's second head) or after the
   * member left, a MAC of its own (no `heads`). Asked only for a state whose records are stored.
   * @throws what the anchor's `generateMac` throws (every member waiting on the batch gets it)
   */
  mac(state: HeadState): Promise<HeadStateMac>;
  /** The member is done, or its record put failed: the batch no longer waits for it. Idempotent. */
  leave(): void;
}

/**
 * Longest the invocation's head-state MAC batch waits, from the first head state asked for, for
 * the members that have neither asked nor left: 1 s. A run stores its records tens of
 * milliseconds after its invocation starts (a few DynamoDB and KMS calls of single-digit ms), so
 * the batch still forms whole in the normal case; a run that hangs (a slow read, a throttled
 * call) holds the others' head moves for a second at most, never until the Lambda timeout fails
 * the whole invocation. A member asking after the batch fired gets a MAC of its own: one
 * `GenerateMac` more, what every run paid before the batch, never a wrong or missing MAC.
 */
export const HEAD_MAC_BATCH_WAIT_MS = 1_000;

/** A head state waiting for the batch. */
interface Waiting {
  readonly digest: HexDigest;
  readonly resolve: (mac: HeadStateMac) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * One `GenerateMac` for the new head states of one sealer invocation (docs/verifiable-log.md,
 * "Appending"; docs/pipeline.md, "Concurrency"): each message group joins ({@link HeadMacBatcher.join})
 * when it starts, and the batch fires once every member has either asked for a head-state MAC or
 * left (refused, conflict, redelivery, error: `leave` in a `finally`), when
 * {@link MAX_HEAD_STATE_BATCH} heads wait, or {@link HEAD_MAC_BATCH_WAIT_MS} after the first head
 * state was asked for (a member still running then gets a MAC of its own). The batch MAC is over `headStateBatchMessage` of the
 * waiting heads' digests (distinct, ascending); a batch of one head is that head's own MAC (the
 * single form). After it fired every request gets a MAC of its own, so nothing ever waits for a
 * batch that has gone.
 *
 * Never deadlocks: a waiting member waits only for members that joined, are running (a group
 * joins from its own code, not while queued behind the handler's concurrency limit), and either
 * ask (which fires the batch when they are the last) or leave, and never longer than
 * {@link HEAD_MAC_BATCH_WAIT_MS}. The cost is latency: a run's head waits for the slowest run of
 * the invocation to store its records or end, a second at most.
 */
export class HeadMacBatcher {
  readonly #anchor: MacAnchor;
  readonly #maxHeads: number;
  /** Members joined that have neither asked nor left. */
  #open = 0;
  readonly #waiting: Waiting[] = [];
  readonly #waitMs: number;
  #fired = false;
  /** The deadline's timer, from the first head state asked for until the batch fires. */
  #deadline: ReturnType<typeof setTimeout> | null = null;

  /**
   * @param maxHeads - most heads in the batch (fires when reached) @default {@link MAX_HEAD_STATE_BATCH}
   * @param waitMs - the deadline, ms after the first head state asked for @default {@link HEAD_MAC_BATCH_WAIT_MS}
   * @throws {RangeError} when `maxHeads` is not an integer in 1..{@link MAX_HEAD_STATE_BATCH}, or
   *   `waitMs` not a non-negative integer
   */
  constructor(anchor: MacAnchor, maxHeads: number = MAX_HEAD_STATE_BATCH, waitMs: number = HEAD_MAC_BATCH_WAIT_MS) {
    if (!Number.isSafeInteger(maxHeads) || maxHeads < 1 || maxHeads > MAX_HEAD_STATE_BATCH) {
      throw new RangeError(`maxHeads ${maxHeads}`);
    }
    if (!Number.isSafeInteger(waitMs) || waitMs < 0) throw new RangeError(`waitMs ${waitMs}`);
    this.#anchor = anchor;
    this.#maxHeads = maxHeads;
    this.#waitMs = waitMs;
  }

  /** A new member; after the batch fired, one whose every head gets a MAC of its own. */
  join(): HeadMacMember {
    if (this.#fired) return { mac: (state) => macHeadState(state, this.#anchor), leave: () => {} };
    this.#open++;
    let open = true;
    const close = () => {
      if (!open) return false;
      open = false;
      this.#open--;
      return true;
    };
    return {
      mac: (state) => {
        if (!close() || this.#fired) return macHeadState(state, this.#anchor);
        const mac = new Promise<HeadStateMac>((resolve, reject) => {
          this.#waiting.push({ digest: headStateDigest(state), resolve, reject });
        });
        this.#fireWhenReady();
        return mac;
      },
      leave: () => {
        if (close()) this.#fireWhenReady();
      },
    };
  }

  #fireWhenReady(): void {
    if (this.#fired || this.#waiting.length === 0) return;
    if (this.#open > 0 && this.#waiting.length < this.#maxHeads) {
      // Not `unref`'d: the waiting runs need it to end, and it is cleared when the batch fires.
      this.#deadline ??= setTimeout(() => this.#fire(), this.#waitMs);
      return;
    }
    this.#fire();
  }

  /** Makes the batch MAC for the heads waiting now; every later request gets a MAC of its own. */
  #fire(): void {
    if (this.#fired) return;
    if (this.#deadline !== null) clearTimeout(this.#deadline);
    this.#deadline = null;
    this.#fired = true;
    const waiting = this.#waiting.splice(0);
    const heads = headStateBatchOf(waiting.map((w) => w.digest));
    const signed: Promise<HeadStateMac> =
      heads.length === 1
        ? this.#anchor.generateMac(Buffer.from(heads[0] as HexDigest, 'hex'))
        : this.#anchor.generateMac(headStateBatchMessage(heads)).then((signature) => ({ ...signature, heads }));
    signed.then(
      (mac) => {
        for (const w of waiting) w.resolve(mac);
      },
      (error: unknown) => {
        for (const w of waiting) w.reject(error);
      },
    );
  }
}
