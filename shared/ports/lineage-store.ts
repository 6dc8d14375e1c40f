import type { LineagePolicy } from '../authorship/lineage-policy';
import type { HexDigest } from '../canonical/digest';
import type { InputIssue, ResidualLocation } from '../errors';
import type { HeadKeyMac } from '../log/head-key-mac';
import type { HeadStateMac } from '../log/head-state-mac';
import type { LogEntry } from '../log/log-extension';
import type { StoredLogHead } from '../log/log-state';
import type { NodeRef } from '../log/node-ref';
import type { RejectionReason } from '../pipeline/rejection-reason';
import type { RejectionStage } from '../pipeline/rejection-stage';
import type { TriageCompletedDetail } from '../pipeline/triage-completed-detail';
import type { LineageHead } from '../seal/lineage-head';
import type { ConflictReason } from './conflict-reason';

/**
 * Port for the lineage table. Adapters: `DynamoDBLineageStore`
 * (adapters/) and `InMemoryLineageStore` (test/helpers), which share the conditional
 * semantics below. Records are returned as stored (`unknown`): the caller verifies them with
 * `verifyChain` and never trusts the table (docs/sealing.md, "Authority: why no record is read unverified").
 */
/** Options of {@link LineageStore.readChain}: how fresh a copy may be and where manifests may come from. */
export interface ReadChainOptions {
  readonly eventual?: boolean;
  readonly recheck?: boolean;
  readonly keptManifests?: boolean;
}

export interface LineageStore {
  /**
   * Current head item of a lineage (strongly consistent read), or `null` before its first record.
   * It lives in the same table as the records, so it is a claim, not a checkpoint: readers check it
   * against the records (`checkStoredHead`, shared/seal/stored-head.ts).
   */
  head(lineageId: string): Promise<LineageHead | null>;
  /**
   * Seq of the last stored record of a lineage (highest record key, strongly consistent), or
   * `null` when it has none. Independent of the head item, so a reader can see records past a
   * rewound head, or records whose head was deleted.
   */
  lastRecordSeq(lineageId: string): Promise<number | null>;
  /**
   * The head item with the log state it carries (head-state MAC or, for older heads, a signed
   * checkpoint; frontier; head header), or `null` before the first record. Every field is a claim:
   * the sealer authenticates it (`authenticateHeadState`) before extending it. `options.eventual`:
   * read a copy up to about a second old (half the read units), which may be an older head: for a
   * caller whose conditional append catches a stale one and that re-reads strongly before any other
   * decision (the sealer's first read of a run, docs/sealing.md, "The reads of a run").
   */
  logHead(lineageId: string, options?: { readonly eventual?: boolean }): Promise<StoredLogHead | null>;
  /**
   * Step 1 of an append (docs/sealing.md, "The write"): puts each record with the tree nodes it
   * completes, in seq order, each only if its seq is new and only after the previous one landed,
   * so an honest crash never leaves a gap. Stored records are past the head until
   * {@link LineageStore.moveHead}; the sealer's roll-forward takes a crash's ones. Before them, each
   * distinct manifest of the records is put in its content-addressed item (docs/sealing.md,
   * "Writing it").
   *
   * @param entries - at least one, consecutive seqs of `lineageId`
   * @throws {RecordSeqTakenError} a record is stored at one of the seqs; its `landed` says how
   *   many of `entries` (the first ones) were stored before it (none: a lost race, nothing stored)
   */
  putRecords(lineageId: string, entries: readonly LogEntry[]): Promise<void>;
  /**
   * Step 2 of an append (docs/sealing.md, "The write"): moves the head item to the last of
   * `move.entries` (already stored by {@link LineageStore.putRecords}) with the new head-state MAC,
   * frontier and policy, only if it still equals `move.expectedHead` (seq, record hash and epoch;
   * `null`: no head item yet); then puts each entry's residual-id marker, unconditionally (the
   * record is stored and the sealer found no sealing of that id before it sealed). The store fences
   * no epoch: the head item's epoch is the table's claim, so the sealer fences against the epoch
   * of its authenticated tip (`authenticateHeadState`) before it appends.
   *
   * @throws {StaleHeadError} the head changed since `expectedHead` was read (nothing moved; the
   *   records stay past the head: re-read, and roll them forward)
   */
  moveHead(move: AppendBatch): Promise<void>;
  /**
   * Hashes (hex) of Merkle tree nodes, in the order of `refs`, from the record items that hold
   * them (node (L, j) with record `(j + 1) · 2^L − 1`), `null` for each one not stored. Unverified:
   * a proof built from them either verifies against a signed root or fails.
   */
  readNodes(lineageId: string, refs: readonly NodeRef[]): Promise<(HexDigest | null)[]>;
  /** The stored record at `seq` (parsed JSON, unverified), or `null`. */
  readRecord(lineageId: string, seq: number): Promise<unknown | null>;
  /**
   * Where a residual id was sealed in this lineage, from its idempotency marker, or `null`.
   * Residual ids are scoped to their lineage: the same id in another lineage is another residual.
   * `options.eventual`: read a copy up to about a second old (half the read units), which may miss
   * a marker just put or show one since put again: for a caller that decides on a strong read.
   */
  findByResidualId(
    lineageId: string,
    residualId: string,
    options?: { readonly eventual?: boolean },
  ): Promise<ResidualLocation | null>;
  /**
   * Stored records with `fromSeq ≤ seq ≤ toSeq` in seq order (all pages), unverified. Missing
   * seqs are simply absent, so the verifier sees the gap. `options.eventual`: read a copy up to
   * about a second old first (half the read units), and strongly again unless it holds every seq
   * of the range: for a range known to be full (ending at a head read strongly), where the records,
   * written once, are then the same as a strong read's. `options.recheck: false` (with `eventual`)
   * keeps the copy even when it misses seqs: only for a caller a missed record cannot mislead (the
   * sealer's tentative read past a head, whose first record put is conditional on its seq being new).
   * `options.keptManifests`: take the records' manifests from the store's manifest cache where it
   * holds them (a kept copy is used only once it hashes to the record's digest), for a reader that
   * needs the records' hashes, not evidence of a deleted manifest item (the integrator); walks and
   * audits read the table as it stands.
   */
  readChain(lineageId: string, fromSeq: number, toSeq: number, options?: ReadChainOptions): Promise<unknown[]>;
  /** Writes a conflict record; never overwrites anything (docs/sealing.md, "Sealing"). */
  recordConflict(conflict: ConflictRecord): Promise<void>;
  /** Writes a rejection record for a refused or malformed write. */
  recordRejection(rejection: RejectionRecord): Promise<void>;
  /** Stores a triage report (pk `TRIAGE#<lineageId>`, sk `<requestId>`), overwriting a retry of the same request. */
  putTriageReport(report: TriageCompletedDetail): Promise<void>;
  /** A stored triage report as stored (unverified: parse it with `TriageCompletedDetailSchema`), or `null`. */
  getTriageReport(lineageId: string, requestId: string): Promise<TriageCompletedDetail | null>;

  // --- Outcome reads (client `waitForOutcome`, `reseal publish --wait`, `reseal inspect`) ---
  /**
   * Conflict records of a lineage (sk `CONFLICT#…`, all pages), oldest first (`atMs`, then
   * residual id); with `residualId`, only that write's (sk prefix `CONFLICT#<residualId>#`).
   */
  listConflicts(lineageId: string, options?: OutcomeFilter): Promise<ConflictRecord[]>;
  /**
   * Rejection records filed under a lineage (pk `REJECTION#<lineageId>`, all pages), oldest first
   * (`atMs`, then message id); with `residualId`, only that write's. A body too broken to name its
   * lineage is filed under `REJECTION#~unparsed` and is not listed here.
   */
  listRejections(lineageId: string, options?: OutcomeFilter): Promise<RejectionRecord[]>;
}

/**
 * One append (docs/sealing.md, "The write"): its records, stored by {@link LineageStore.putRecords},
 * and the head move to the last of them with their markers ({@link LineageStore.moveHead}).
 */
export interface AppendBatch {
  readonly lineageId: string;
  /** The records, in seq order, each with the tree nodes it completes (rolled forward or newly sealed). */
  readonly entries: readonly LogEntry[];
  /** The head read before sealing (the condition), or `null` for a new lineage. */
  readonly expectedHead: LineageHead | null;
  /**
   * The sealer's MAC of the tree after the batch: under its notice data key (shared/log/head-key-mac.ts),
   * stored as the head item's `headKeyMac` and `headDataKey`; or, without a data key, the KMS
   * head-state MAC (shared/log/head-state-mac.ts), stored as `headMac` (a batch MAC's `heads`
   * beside it); `null` only for a head written the way it was before the sealer stopped signing
   * (tests of old heads).
   */
  readonly headMac: HeadStateMac | HeadKeyMac | null;
  /**
   * A signed lineage checkpoint of the tree after the batch (C2SP signed note): what heads carried
   * before the sealer stopped signing; the sealer stores none (absent or `null`).
   */
  readonly checkpoint?: string | null;
  /** Compact range of every leaf but the batch's last (hex), as the head item stores it. */
  readonly frontier: readonly HexDigest[];
  /**
   * The lineage write policy in force after the batch (the body its last header names by
   * `policyDigest`), stored on the head item; `null` for a legacy (format-1) lineage.
   */
  readonly policy?: LineagePolicy | null;
}

/** Narrows {@link LineageStore.listConflicts} and {@link LineageStore.listRejections} to one write. */
export interface OutcomeFilter {
  readonly residualId?: string;
  /**
   * Read a copy up to about a second old (half the read units), which may miss a refusal just put:
   * for a caller that decides on a strong read.
   */
  readonly eventual?: boolean;
  /**
   * Records timed (`atMs`, ms) before this may be left out, unread: for a caller that ignores them
   * anyway (a wait's refusals since its publish). A rejection read bounds its `Query` by sort key
   * (`<ISO time>#<messageId>`), so rejections older than it cost nothing, however many a lineage has.
   */
  readonly sinceMs?: number;
}

/** A write that could not be appended (sk `CONFLICT#<residualId>#<isoTime>`). */
export interface ConflictRecord {
  readonly lineageId: string;
  readonly residualId: string;
  readonly reason: ConflictReason;
  readonly detail: string;
  /** Header the writer tried to seal, when it got that far (JSON). */
  readonly attemptedHeader: unknown | null;
  /** Head the writer expected. */
  readonly expectedHead: LineageHead | null;
  /** Head found instead, when known. */
  readonly observedHead: LineageHead | null;
  readonly atMs: number;
  /** SQS message id of the seal request. */
  readonly messageId: string;
  /** Digest of the write request that was not appended (`requestDigest`). */
  readonly requestDigest: string | null;
  /** The sealer's signed outcome statement of this conflict (C2SP signed note), or `null` when unsigned. */
  readonly statement: string | null;
  /**
   * Set when the stored item could not be read whole (e.g. `unreadable observedHead`): its
   * malformed fields read as `null`, and it never counts as signed.
   */
  readonly unreadable?: string;
}

/** A refused or malformed write (pk `REJECTION#<lineageId|~unparsed>`, sk `<isoTime>#<messageId>`). */
export interface RejectionRecord {
  readonly stage: RejectionStage;
  readonly reason: RejectionReason;
  readonly lineageId: string | null;
  readonly residualId: string | null;
  readonly messageId: string;
  readonly verdictDigest: string | null;
  /** SHA-256 hex of the raw body. */
  readonly bodyDigest: string;
  /**
   * First 1 KiB of the raw body, stored as data, never interpreted; `''` when `requestDigest`
   * names the write (its signed request is not kept where a table writer reads it).
   */
  readonly bodyPreview: string;
  readonly issues: readonly InputIssue[];
  readonly rejectedVariables: readonly { name: string; reason: string; detail: string }[];
  readonly requestViolations: readonly { field: string; reason: string; detail: string }[];
  readonly atMs: number;
  /** Digest of the write request it refused (`requestDigest`), or `null` when the body did not parse. */
  readonly requestDigest: string | null;
  /** The deciding function's signed outcome statement (C2SP signed note), or `null` when unsigned. */
  readonly statement: string | null;
  /**
   * Set when the stored item could not be read whole (e.g. `unreadable rejectedVariables`): its
   * malformed lists read as `[]`, and it never counts as signed.
   */
  readonly unreadable?: string;
}
