import { InvalidInputError, ResealError, SignerUnavailableError } from '../shared/errors';
import type { ReadDeploymentChain } from '../shared/integrator/record-freshness';
import type { Checkpoint } from '../shared/log/checkpoint';
import { proveCheckpointConsistency } from '../shared/log/checkpoint-consistency';
import { checkpointOrigin } from '../shared/log/checkpoint-origin';
import { checkHeldRecord } from '../shared/log/held-record-check';
import type { KnownLogNodes } from '../shared/log/known-log-nodes';
import type { StoredTreeHead } from '../shared/log/latest-checkpoint';
import { proveLatestCheckpoint } from '../shared/log/latest-checkpoint-proof';
import type { SignedLogView } from '../shared/log/lineage-log-view';
import type { NoteVerifierKey } from '../shared/log/note-key';
import type { Receipt } from '../shared/log/receipt';
import type { RecordProof } from '../shared/log/record-proof';
import { type LogFinding, proveStoredRecord, type StoredLogReads } from '../shared/log/stored-log';
import type { ConsistencyProof } from '../shared/log/tree-consistency';
import { openCheckpoint, type VerifiedCheckpoint } from '../shared/log/verified-checkpoint';
import type { SealedRecord } from '../shared/seal/sealed-record';
import type { TrustedHead } from '../shared/seal/trusted-head';
import { VerificationVerdict as V } from '../shared/seal/verification-verdict';
import type { CheckpointStore } from './checkpoint-store';
import type { DeploymentChainReader } from './deployment-chain-reader';
import { LogVerificationError } from './errors';
import { LineageTreeHeads, type ReadLineageTreeHead } from './lineage-tree-heads';

/** The reads the log reader makes (the `LineageStore` port, read side). */
export type LogStoreReader = StoredLogReads;

/** The head item's tree, verified where signed and checked against the kept one. */
export interface LatestCheckpoint {
  /**
   * The head item's tree: its signed lineage checkpoint (`note`), or the tree a head the sealer
   * MAC'd claims (`note` `null`): the sealer's word, vouched for only by the deployment index
   * ({@link LogReader.treeHead}, `decideLineageTreeHead`).
   */
  readonly checkpoint: StoredTreeHead;
  /** The kept checkpoint it was checked against, or `null` (truncation could not be checked). */
  readonly trusted: VerifiedCheckpoint | null;
}

/** A record proven by inclusion in the head item's tree (see {@link LatestCheckpoint.checkpoint} for what vouches for it). */
export interface ProvenRecord extends LatestCheckpoint {
  readonly record: SealedRecord;
  readonly inclusion: RecordProof;
}

/**
 * The client's view of the verifiable log (docs/verifiable-log.md, "Checkpoints the client
 * keeps"): the latest signed checkpoint of a lineage, verified with the pinned log key and shown
 * consistent with the checkpoint the client kept (consistency proofs built from the table's
 * nodes, which either verify against signed roots or fail); records proven by inclusion; newer
 * checkpoints kept. Nothing read from the table is used before it is proven.
 */
export class LogReader {
  readonly #store: LogStoreReader;
  readonly #key: () => Promise<NoteVerifierKey>;
  readonly #checkpoints: CheckpointStore | null;

  readonly #heads: LineageTreeHeads;

  /**
   * @param store - the table's reads
   * @param key - the log's verifier key (pinned, or read once from KMS `GetPublicKey`)
   * @param checkpoints - where the last verified checkpoint per lineage is kept, or `null`
   * @param chains - the deployment chain's reader, or `null`: then only signed lineage checkpoints vouch for a tree head
   */
  constructor(
    store: LogStoreReader,
    key: () => Promise<NoteVerifierKey>,
    checkpoints: CheckpointStore | null,
    chains: Pick<DeploymentChainReader, 'read'> | null = null,
  ) {
    this.#store = store;
    this.#key = key;
    this.#checkpoints = checkpoints;
    this.#heads = new LineageTreeHeads({ store, key, chains });
  }

  /**
   * The lineage's tree head and what vouches for it (`decideLineageTreeHead`,
   * docs/deployment-log.md, "Clients"): the index entry under the verified deployment checkpoint,
   * or a signed lineage checkpoint where the index does not contradict it.
   *
   * @param latest - the head item's tree already read ({@link latest}), else it is read here
   * @param chain - the deployment chain already read for this lineage, else read here (when configured)
   * @throws what the table reads throw; never for a forged item (that is a `REFUSED` finding)
   */
  async treeHead(
    lineageId: string,
    latest?: LatestCheckpoint | null,
    chain?: ReadDeploymentChain | null,
  ): Promise<ReadLineageTreeHead> {
    if (latest === undefined) return this.#heads.read(lineageId, chain);
    const signed = latest?.checkpoint.note ? (latest.checkpoint as VerifiedCheckpoint) : null;
    return this.#heads.vouch(lineageId, signed, chain);
  }

  /** The log's verifier key. */
  key(): Promise<NoteVerifierKey> {
    return this.#key();
  }

  /** Whether this reader keeps checkpoints. */
  get keepsCheckpoints(): boolean {
    return this.#checkpoints !== null;
  }

  /**
   * The kept checkpoint of a lineage, verified again (a store file is not trusted either).
   * @throws {LogVerificationError} when the kept note does not verify
   */
  async trusted(lineageId: string): Promise<VerifiedCheckpoint | null> {
    const note = (await this.#checkpoints?.load(await this.#storeKey(lineageId))) ?? null;
    if (note === null) return null;
    try {
      return await this.open(lineageId, note);
    } catch (error) {
      // A key that cannot be read is an outage, not a forged note: it propagates as is.
      if (!(error instanceof ResealError) || error instanceof SignerUnavailableError) throw error;
      throw new LogVerificationError(
        lineageId,
        V.UNVERIFIED_TAMPER_RISK,
        `the kept checkpoint does not verify: ${error.message}`,
      );
    }
  }

  /** Verifies a signed checkpoint of `lineageId` with the log key. @throws {ResealError} when it does not */
  async open(lineageId: string, note: string): Promise<VerifiedCheckpoint> {
    const key = await this.#key();
    return openCheckpoint(note, key, checkpointOrigin(key.name, lineageId));
  }

  /**
   * The head item's tree of a lineage (its signed checkpoint, verified, or the tree a MAC'd head
   * claims), checked against the records stored past it and against the kept checkpoint.
   *
   * @returns `null` when the lineage has no head and no records and nothing was kept for it
   * @throws {LogVerificationError} when anything does not verify (rollback, fork, forged note)
   */
  async latest(lineageId: string): Promise<LatestCheckpoint | null> {
    const trusted = await this.trusted(lineageId);
    // Each record read is proven by inclusion: a missing one shows when it is read (checkTail false).
    const proven = await proveLatestCheckpoint(this.#store, lineageId, await this.#key(), trusted, {
      trustedSaw: trusted !== null,
      checkTail: false,
    });
    if (proven.kind === 'NONE') return null;
    if (proven.kind === 'FINDING') throw findingError(lineageId, proven);
    return { checkpoint: proven.checkpoint, trusted };
  }

  /**
   * {@link latest}, then kept ({@link keep}): the latest signed checkpoint, verified and consistent
   * with the kept one, which it then replaces; `null` for an unknown lineage.
   * @throws {LogVerificationError} on a rollback, a fork, or a checkpoint that does not verify
   */
  async latestKept(lineageId: string): Promise<LatestCheckpoint | null> {
    const latest = await this.latest(lineageId);
    if (latest) await this.keep(lineageId, latest.checkpoint, latest.trusted);
    return latest;
  }

  /** This reader as the core's {@link SignedLogView} (`verifyStoredLineage`, `checkWalkAgainstLog`). */
  view(): SignedLogView {
    return {
      key: () => this.key(),
      latestKept: async (lineageId) => {
        try {
          const latest = await this.latestKept(lineageId);
          if (latest === null) return { kind: 'NONE' };
          const { checkpoint } = latest;
          if (checkpoint.note === null) {
            // A walk is tied to a signed lineage checkpoint (docs/verifiable-log.md, "Verifying a whole lineage").
            return {
              kind: 'FINDING',
              verdict: V.UNVERIFIED_TAMPER_RISK,
              reason:
                "the head carries no signed checkpoint (a head the sealer MAC'd): the walk cannot be tied to a signed tree",
            };
          }
          return {
            kind: 'PROVEN',
            checkpoint: { ...checkpoint, note: checkpoint.note },
            truncationChecked: latest.trusted !== null,
          };
        } catch (error) {
          if (error instanceof LogVerificationError)
            return { kind: 'FINDING', verdict: error.verdict, reason: error.reason };
          throw error;
        }
      },
    };
  }

  /**
   * Record `seq`, proven by inclusion in the head item's tree (see {@link LatestCheckpoint} for what vouches for it).
   * @throws {LogVerificationError} when the log or the record does not verify, or `seq` is past the head's tree
   */
  async proveRecord(lineageId: string, seq: number): Promise<ProvenRecord> {
    const latest = await this.latest(lineageId);
    if (latest === null) throw new LogVerificationError(lineageId, V.TRUNCATION_DETECTED, 'the lineage has no records');
    return this.proveIn(lineageId, seq, latest);
  }

  /** Record `seq`, proven by inclusion in an already checked `latest`. @throws {LogVerificationError} */
  async proveIn(lineageId: string, seq: number, latest: LatestCheckpoint): Promise<ProvenRecord> {
    const { checkpoint } = latest;
    if (seq >= checkpoint.size) {
      throw new LogVerificationError(
        lineageId,
        V.TRUNCATION_DETECTED,
        `seq ${seq} is past the lineage's head (${checkpoint.size} records)`,
      );
    }
    const proven = await proveStoredRecord(this.#store, lineageId, seq, checkpoint);
    if (proven.kind === 'MISSING')
      throw new LogVerificationError(lineageId, V.LINEAGE_BROKEN, `record ${seq} is missing`);
    if (proven.kind === 'FINDING') throw findingError(lineageId, proven);
    return { ...latest, record: proven.record, inclusion: proven.inclusion };
  }

  /**
   * Checks a `{ seq, recordHash }` the caller holds against a verified checkpoint (`checkHeldRecord`).
   * @returns `null` when the record at `seq` is proven there with that hash, else the finding
   */
  checkHeld(lineageId: string, held: TrustedHead, checkpoint: StoredTreeHead): Promise<LogFinding | null> {
    return checkHeldRecord(this.#store, lineageId, held, checkpoint);
  }

  /**
   * A consistency proof from `from` to `to` (verified checkpoints of `lineageId`, `from` no
   * larger), built from the table's nodes but those in `known` (`knownLogNodes`: no record item
   * is read for them), for the caller to check; a finding when it cannot be built.
   */
  consistency(
    lineageId: string,
    from: Checkpoint,
    to: Checkpoint,
    known?: KnownLogNodes,
  ): Promise<ConsistencyProof | LogFinding> {
    return proveCheckpointConsistency(this.#store, lineageId, from, to, known);
  }

  /**
   * Keeps `checkpoint` when it is a signed lineage checkpoint newer than the kept one (a tree
   * without a note, a head the sealer MAC'd, is nobody's signature: nothing to keep). The caller
   * has shown it consistent with the kept one ({@link latest} does).
   */
  async keep(
    lineageId: string,
    checkpoint: Pick<StoredTreeHead, 'size' | 'note'>,
    trusted: VerifiedCheckpoint | null,
  ): Promise<void> {
    if (!this.#checkpoints || checkpoint.note === null || (trusted && trusted.size >= checkpoint.size)) return;
    // Read again just before saving: the store never moves back, even if another reader (another
    // process sharing the file) kept a larger checkpoint meanwhile.
    const current = await this.trusted(lineageId);
    if (current && current.size >= checkpoint.size) return;
    // And keep it only if the store still holds that note when it writes (docs/verifiable-log.md,
    // "Checkpoints the client keeps", concurrency): a concurrent newer save is never overwritten.
    const read = current?.note ?? null;
    await this.#checkpoints.save(await this.#storeKey(lineageId), checkpoint.note, (now) => now === read);
  }

  /** The store key of a lineage: its checkpoint origin, so one file can serve several stacks. */
  async #storeKey(lineageId: string): Promise<string> {
    return checkpointOrigin((await this.#key()).name, lineageId);
  }

  /**
   * A format-1 receipt for record `seq` (docs/verifiable-log.md, "Receipts"): its inclusion in the
   * lineage's signed checkpoint. Produced only while the head item carries one (a sealer that still
   * signs lineage checkpoints, docs/deployment-log.md "What changes for the sealer"); a head the
   * sealer MAC'd has no signed note to put in it, so the receipt is format 2 (`buildChainReceipt`,
   * `ResealClient.chainReceipt`). Format-1 receipts already held still verify (`verifyReceipt`).
   *
   * @throws {InvalidInputError} naming format 2 when the head carries no signed lineage checkpoint
   * @throws {LogVerificationError} when the log or the record does not verify
   */
  async receipt(lineageId: string, seq: number): Promise<Receipt> {
    const proven = await this.proveRecord(lineageId, seq);
    const note = proven.checkpoint.note;
    if (note === null) {
      throw new InvalidInputError('receipt', [
        {
          path: 'formatVersion',
          message: `format 1 needs a signed lineage checkpoint, and the head of lineage ${lineageId} carries none (the sealer no longer signs them): export format 2, the deployment chain (--receipt-format 2, the default)`,
        },
      ]);
    }
    await this.keep(lineageId, proven.checkpoint, proven.trusted);
    return {
      formatVersion: 1,
      type: 'reseal-receipt',
      lineageId,
      record: proven.record,
      inclusion: proven.inclusion,
      checkpoint: note,
    };
  }
}

/** The client's error for a finding of the stored log (the error behind it, if any, as its cause). */
function findingError(lineageId: string, finding: LogFinding): LogVerificationError {
  return new LogVerificationError(
    lineageId,
    finding.verdict,
    finding.reason,
    finding.cause || finding.proven
      ? { ...(finding.cause && { cause: finding.cause }), ...(finding.proven && { proven: true }) }
      : undefined,
  );
}
