import { appendLeaf } from './append-leaf';
import { frontierRoot } from './frontier-root';
import { leafHash } from './merkle-hash';

/** The RFC 9162 tree head of the first `size` walked records: its root and its last leaf's record hash. */
export interface WalkedPrefix {
  readonly size: number;
  readonly rootHash: Uint8Array;
  /** Record hash (64 hex) of the prefix's last record, `null` for the empty prefix. */
  readonly lastRecordHash: string | null;
}

/**
 * The record hashes of a whole-lineage walk, folded in seq order into an RFC 9162 frontier as
 * the pages come (docs/verifiable-log.md, "Verifying a whole lineage"), remembering the tree head
 * of the prefixes asked for when built (a tree head taken from the index, a kept checkpoint), so a
 * walk of any length is checked against them in O(log n) memory. Record hashes are read without
 * trusting them: a malformed one makes every later prefix unknown (the walk reports the record).
 */
export class WalkedTree {
  readonly #wanted: ReadonlySet<number>;
  readonly #prefixes = new Map<number, WalkedPrefix>();
  #frontier: Uint8Array[] = [];
  #size = 0;
  #malformed = false;

  /** @param prefixSizes - the prefix sizes whose tree heads to remember (0 always is) */
  constructor(prefixSizes: Iterable<number> = []) {
    this.#wanted = new Set(prefixSizes);
    this.#remember();
  }

  /** Folds a page of raw records (in seq order, following the previous page). */
  add(page: readonly unknown[]): void {
    for (const raw of page) {
      const hex = (raw as { recordHash?: unknown } | null)?.recordHash;
      if (typeof hex !== 'string' || !/^[0-9a-f]{64}$/.test(hex)) {
        this.#malformed = true;
        this.#size += 1;
        continue;
      }
      this.#frontier = appendLeaf(this.#frontier, this.#size, leafHash(Buffer.from(hex, 'hex'))).frontier;
      this.#size += 1;
      this.#remember(hex);
    }
  }

  /** How many records were folded. */
  get size(): number {
    return this.#size;
  }

  /**
   * The tree head of the first `size` records: one asked for when built, or the whole walk;
   * `null` when unknown (not asked for, past the walk, or after a malformed record hash).
   */
  prefix(size: number): WalkedPrefix | null {
    const remembered = this.#prefixes.get(size);
    if (remembered) return remembered;
    if (this.#malformed || size !== this.#size) return null;
    return { size, rootHash: frontierRoot(this.#frontier), lastRecordHash: this.#last };
  }

  #last: string | null = null;

  #remember(lastRecordHash: string | null = null): void {
    if (this.#malformed) return;
    this.#last = lastRecordHash;
    if (this.#size === 0 || this.#wanted.has(this.#size)) {
      this.#prefixes.set(this.#size, { size: this.#size, rootHash: frontierRoot(this.#frontier), lastRecordHash });
    }
  }
}
