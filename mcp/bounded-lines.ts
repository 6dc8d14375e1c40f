/** What {@link BoundedLines} hands on from the bytes it was given. */
export type BoundedLine =
  /**
   * A whole line, its bytes as received, line ending kept (none on a last line the input ended
   * without one): passed on as bytes, it stays within the bound for the reader after it too
   * (decoded and encoded again, a byte that is not UTF-8 would grow to three).
   */
  | { readonly kind: 'LINE'; readonly bytes: Buffer }
  /** A line that ran past the bound: `head` is its first bytes, decoded; the rest is discarded up to its newline. */
  | { readonly kind: 'OVER_BOUND'; readonly head: string };

/** How many of an over-long line's first bytes are kept to name it. */
const HEAD_BYTES = 1024;

/**
 * Splits a byte stream into lines of at most `maxBytes` bytes each, newline included, holding at
 * most that many bytes at any time (`bufferedBytes`), so a peer that never sends a newline cannot
 * grow memory without bound. A line that passes the bound is reported once, as soon as it passes
 * it (`OVER_BOUND`), and its bytes are dropped as they come, up to and including its newline; the
 * line after it is split as any other. Lines are cut at the byte `\n`, which is never part of a
 * multi-byte UTF-8 sequence, so each line decodes whole whatever the chunks' boundaries.
 */
export class BoundedLines {
  readonly #maxBytes: number;
  /** The line in progress: its first `#heldBytes` bytes (capacity grown by doubling, never past the bound). */
  #held: Buffer = Buffer.alloc(0);
  #heldBytes = 0;
  /** Inside a line that passed the bound, until its newline. */
  #discarding = false;

  /** @param maxBytes - the longest line, in bytes, its newline included (a positive integer) */
  constructor(maxBytes: number) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
      throw new RangeError(`maxBytes must be a positive integer, got ${maxBytes}`);
    }
    this.#maxBytes = maxBytes;
  }

  /** Bytes allocated now for the line in progress (its bytes so far, and room to grow): never more than the bound. */
  get bufferedBytes(): number {
    return this.#held.length;
  }

  /** The lines `chunk` completes, and any line it takes past the bound, in input order. */
  push(chunk: Buffer): BoundedLine[] {
    const out: BoundedLine[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      const piece = chunk.subarray(start, end);
      start = end;
      if (this.#discarding) {
        this.#discarding = newline === -1;
        continue;
      }
      if (this.#heldBytes + piece.length > this.#maxBytes) {
        out.push({ kind: 'OVER_BOUND', head: this.#headWith(piece) });
        this.#clear();
        this.#discarding = newline === -1;
      } else if (newline === -1) {
        this.#hold(piece);
      } else {
        const bytes = this.#heldBytes === 0 ? piece : Buffer.concat([this.#line(), piece]);
        this.#clear();
        out.push({ kind: 'LINE', bytes });
      }
    }
    return out;
  }

  /** The input has ended: the last line, when it had no newline (and did not pass the bound). */
  end(): BoundedLine[] {
    const last = this.#line();
    this.#clear();
    this.#discarding = false;
    return last.length === 0 ? [] : [{ kind: 'LINE', bytes: last }];
  }

  /** Copies `piece` in (a slice would keep the caller's whole chunk alive), one buffer however many chunks the line came in. */
  #hold(piece: Buffer): void {
    const needed = this.#heldBytes + piece.length;
    if (needed > this.#held.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.#maxBytes, Math.max(needed, 2 * this.#held.length, 4096)));
      this.#held.copy(grown, 0, 0, this.#heldBytes);
      this.#held = grown;
    }
    piece.copy(this.#held, this.#heldBytes);
    this.#heldBytes = needed;
  }

  #line(): Buffer {
    return this.#held.subarray(0, this.#heldBytes);
  }

  #headWith(piece: Buffer): string {
    const held = this.#line().subarray(0, HEAD_BYTES);
    return Buffer.concat([held, piece.subarray(0, HEAD_BYTES - held.length)]).toString('utf8');
  }

  #clear(): void {
    this.#held = Buffer.alloc(0);
    this.#heldBytes = 0;
  }
}
