import type { Freshness, VerifiedRecall } from '../../client/verified-recall';
import type { WrittenBy } from '../../client/written-by';
import type { ChainReceipt } from '../../shared/integrator/chain-receipt';
import type { Receipt } from '../../shared/log/receipt';
import type { EnvSnapshot } from '../../shared/schemas/env-snapshot';
import type { LineageHead } from '../../shared/seal/lineage-head';
import type { ResidualWriteRequest } from '../../shared/write/write-request';

/**
 * A recall as the client decided it (client/verified-recall.ts): its end, the client's verdict and
 * reason, the recomputed delta, the recalled seq, and whether the record was proven against a
 * signed checkpoint.
 */
export type DemoRecall = Pick<VerifiedRecall, 'end' | 'verdict' | 'reason' | 'delta'> & {
  readonly seq: number | null;
  readonly proven: boolean;
  /**
   * The client's freshness result against the deployment log (docs/deployment-log.md, "Clients"):
   * state, deployment checkpoint size and the policy's witnessing; `null` (or absent) when none.
   */
  readonly freshness?: Pick<Freshness, 'state' | 'checkpointSize' | 'witnessing'> | null;
};

/** Every stored item of one lineage's partition, as a table writer would copy them (opaque to the demo). */
export interface LineageItems {
  readonly lineageId: string;
  /** Seq of the head the copy holds. */
  readonly headSeq: number;
}

/** A rejection record the guard (or sealer) left for a write. */
export interface RejectionFound {
  readonly stage: string;
  readonly reason: string;
  readonly residualId: string | null;
  readonly rejectedVariables: readonly { readonly name: string; readonly reason: string; readonly detail: string }[];
}

/**
 * A refusal as the client lists it (`readRefusals`): stage and reason as stored, and whether the
 * deciding function's signed statement checks. An unsigned one is an untrusted claim of the table.
 */
export interface RefusalListed {
  readonly stage: string;
  readonly reason: string;
  readonly signatureVerified: boolean;
}

/** A lineage verified through the signed log, and who wrote each record (client/written-by.ts). */
export interface LineageWriters {
  readonly verdict: string;
  /** Per record in seq order; `writtenBy` `null` for a record that does not verify. */
  readonly records: readonly { readonly seq: number | null; readonly writtenBy: WrittenBy | null }[];
}

/** What the tamper step changed. */
export interface TamperEdit {
  /** Path of the edited value, e.g. `record.payload.claims.pip-resolver-backtracks.observed.package-manager:pip`. */
  readonly path: string;
  readonly before: string;
  readonly after: string;
}

/**
 * What the demo needs from a deployed Reseal stack. `scripts/demo/aws-backend.ts` implements it
 * over the real pipeline (SQS → guard → sealer, EventBridge → triage, DynamoDB); unit tests use an
 * in-process stand-in built from the core.
 */
export interface DemoBackend {
  /** Where the stack runs, for the summary (an endpoint URL, or `aws`). */
  readonly endpoint: string;
  /** Sends a residual write to `residual-writes`. */
  publishWrite(request: ResidualWriteRequest): Promise<void>;
  /**
   * Sends a signed write straight to `residual-writes`, past the client's own admission check:
   * what an agent that ignores its client (or any principal that may send to the queue) can do.
   */
  publishUnchecked(request: ResidualWriteRequest): Promise<void>;
  /** The refusal of a residual id as the client lists it, or `null` when there is none (yet). */
  readRefusal(lineageId: string, residualId: string): Promise<RefusalListed | null>;
  /** Verifies a lineage through the signed log and says who wrote each record. */
  writers(lineageId: string): Promise<LineageWriters>;
  /** The lineage head as stored, or `null`. */
  readHead(lineageId: string): Promise<LineageHead | null>;
  /**
   * Waits until the sealed write `residualId` is `PROVEN` through the deployment log
   * (docs/deployment-log.md, "Clients"): the sealer signs no lineage checkpoint, so until the
   * integrator takes the record a recall of it answers sealed, awaiting integration.
   * @throws when it is not proven within the backend's wait
   */
  untilIntegrated(lineageId: string, residualId: string): Promise<void>;
  /** The rejection record of a residual id, or `null` when there is none (yet). */
  findRejection(lineageId: string, residualId: string): Promise<RejectionFound | null>;
  /**
   * Puts `RecallRequested` for the latest record (with the checkpoint the agent trusts), waits
   * for the triage report and returns the recall as the client decided it (docs/verifiable-log.md,
   * "Recall").
   */
  recall(
    lineageId: string,
    currentEnv: EnvSnapshot,
    checkpoint: { seq: number; recordHash: string } | undefined,
  ): Promise<DemoRecall>;
  /**
   * A portable receipt for record `seq` as `reseal export --receipt` writes it (format 2, the
   * deployment chain; docs/verifiable-log.md, "Receipts") and the tlog-policy a third party checks
   * it with, as `reseal policy` prints it, so the demo can check the receipt offline; `null` while
   * the record is sealed but not integrated yet (the demo polls).
   */
  receipt(lineageId: string, seq: number): Promise<DemoReceipt | null>;
  /**
   * Edits the payload of a stored record directly in the table, as someone with table write
   * access and no MAC key would (docs/sealing.md, "What an HMAC anchor can and cannot prove").
   */
  tamperWithPayload(lineageId: string, seq: number): Promise<TamperEdit>;
  /**
   * Copies every item of a lineage's partition (head, records, markers, checkpoint), as a table
   * writer could. Optional: a backend without a table skips the rollback step.
   */
  copyLineage?(lineageId: string): Promise<LineageItems>;
  /** Puts a lineage's partition back exactly as `copy` holds it (items added since are deleted). */
  putLineageBack?(copy: LineageItems): Promise<void>;
  /**
   * Recalls the latest record as a successor session with no local state would: a new client with
   * no checkpoint store and no checkpoint, whose only freshness is the deployment log.
   */
  recallCold?(lineageId: string, currentEnv: EnvSnapshot): Promise<DemoRecall>;
}

/**
 * A receipt handed to the demo's offline check: format 2 (the deployment chain, checked with the
 * policy) or a format-1 receipt already held (checked with the policy's one log key).
 */
export interface DemoReceipt {
  readonly receipt: ChainReceipt | Receipt;
  /** C2SP tlog-policy text (docs/witness.md, "Policy"). */
  readonly policy: string;
}
