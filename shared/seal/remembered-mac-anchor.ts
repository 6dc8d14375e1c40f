import { createHash } from 'node:crypto';
import type { AnchorSignature, MacAnchor } from '../ports/mac-anchor';

/** Options of {@link RememberedMacAnchor}. */
export interface RememberedMacAnchorOptions {
  /** Most (message, MAC) pairs remembered; the least recently used is forgotten first. @default {@link REMEMBERED_MAC_ENTRIES} */
  readonly maxEntries?: number;
  /**
   * Longest a remembered pair is honoured, milliseconds from its `generateMac`: a key disabled in
   * KMS stops being honoured from memory within this age. @default {@link REMEMBERED_MAC_MAX_AGE_MS}
   */
  readonly maxAgeMs?: number;
  /** Milliseconds since the epoch. @default `Date.now` */
  readonly clock?: () => number;
}

/** Default bound on remembered pairs: 10,000 (about 2 MB; a warm sealer's runs between cold starts). */
export const REMEMBERED_MAC_ENTRIES = 10_000;

/** Default age bound on a remembered pair: 15 minutes, the longest a disabled key is still honoured from memory. */
export const REMEMBERED_MAC_MAX_AGE_MS = 15 * 60_000;

/** One remembered `generateMac` answer. */
interface Remembered {
  readonly signature: AnchorSignature;
  readonly atMs: number;
}

/**
 * A {@link MacAnchor} that remembers the MACs it generated, so that it can answer `verifyMac` for
 * exactly those pairs without asking the wrapped anchor (the head check of docs/verifiable-log.md,
 * "Appending"). HMAC is deterministic: KMS `VerifyMac(message, mac)` is true exactly when `mac` is
 * what `GenerateMac(message)` returned under that key, so a pair this process received from
 * `GenerateMac` verifies. A table writer cannot put a pair into this memory: only the wrapped
 * anchor's `generateMac` answers go in. It says nothing about freshness (an older genuine head
 * verifies under KMS too; rollbacks are the index floor's, docs/sealing.md, "The index floor").
 *
 * - `generateMac` delegates, then remembers SHA-256(message) → the returned signature.
 * - `verifyMac` answers `true` from memory only when an entry for the message, younger than
 *   `maxAgeMs`, has the same `keyId`, `algorithm` and MAC text; in every other case (no entry,
 *   another MAC, another key, expired) it delegates. It never answers `false` from memory, and
 *   the wrapped anchor's answers to `verifyMac` are not remembered.
 *
 * Bounded: at most `maxEntries` pairs (least recently used forgotten first) and `maxAgeMs` each,
 * so that a key disabled in KMS (`DisableKey`) stops being honoured from memory within
 * `maxAgeMs` (15 minutes by default); its `generateMac` fails at once as before. The LRU is a
 * `Map` in insertion order (a hit is moved to the end): no LRU library is a dependency (neither
 * package.json nor node_modules has `lru-cache` or another).
 *
 * @example
 * const anchor = new RememberedMacAnchor(new KMSMacAnchor(kms, keyId)); // at module scope: lives across warm invocations
 */
export class RememberedMacAnchor implements MacAnchor {
  readonly keyId: string;
  readonly #inner: MacAnchor;
  readonly #maxEntries: number;
  readonly #maxAgeMs: number;
  readonly #clock: () => number;
  /** Hex SHA-256 of the message → its remembered MAC, least recently used first. */
  readonly #remembered = new Map<string, Remembered>();

  /**
   * @param inner - the anchor asked for every MAC and every check not answered from memory
   * @throws {RangeError} when `maxEntries` is not a positive integer or `maxAgeMs` not a positive number
   */
  constructor(inner: MacAnchor, options: RememberedMacAnchorOptions = {}) {
    const maxEntries = options.maxEntries ?? REMEMBERED_MAC_ENTRIES;
    const maxAgeMs = options.maxAgeMs ?? REMEMBERED_MAC_MAX_AGE_MS;
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new RangeError(`maxEntries ${maxEntries}`);
    if (!(maxAgeMs > 0)) throw new RangeError(`maxAgeMs ${maxAgeMs}`);
    this.keyId = inner.keyId;
    this.#inner = inner;
    this.#maxEntries = maxEntries;
    this.#maxAgeMs = maxAgeMs;
    this.#clock = options.clock ?? Date.now;
  }

  /** Number of pairs remembered now (expired ones included until looked up or evicted). */
  get size(): number {
    return this.#remembered.size;
  }

  /**
   * The wrapped anchor's MAC of `message`, remembered.
   * @throws what the wrapped anchor throws (nothing is remembered then)
   */
  async generateMac(message: Uint8Array): Promise<AnchorSignature> {
    const signature = await this.#inner.generateMac(message);
    const key = digestOf(message);
    this.#remembered.delete(key);
    this.#remembered.set(key, { signature: { ...signature }, atMs: this.#clock() });
    while (this.#remembered.size > this.#maxEntries) {
      const oldest = this.#remembered.keys().next().value as string;
      this.#remembered.delete(oldest);
    }
    return signature;
  }

  /**
   * `true` from memory when this anchor generated exactly `signature` for `message` within
   * `maxAgeMs`; otherwise the wrapped anchor's answer.
   * @throws what the wrapped anchor throws when it is asked (key disabled, unreachable)
   */
  async verifyMac(message: Uint8Array, signature: AnchorSignature): Promise<boolean> {
    const key = digestOf(message);
    const entry = this.#remembered.get(key);
    if (entry !== undefined) {
      if (this.#clock() - entry.atMs >= this.#maxAgeMs) {
        this.#remembered.delete(key);
      } else if (sameSignature(entry.signature, signature)) {
        this.#remembered.delete(key);
        this.#remembered.set(key, entry);
        return true;
      }
    }
    return this.#inner.verifyMac(message, signature);
  }
}

function digestOf(message: Uint8Array): string {
  return createHash('sha256').update(message).digest('hex');
}

/** Same key, algorithm and MAC text (the wrapped anchor's one spelling; any other spelling is asked of it). */
function sameSignature(remembered: AnchorSignature, given: AnchorSignature): boolean {
  return (
    typeof given.mac === 'string' &&
    given.keyId === remembered.keyId &&
    given.algorithm === remembered.algorithm &&
    given.mac === remembered.mac
  );
}
