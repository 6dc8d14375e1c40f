import { LogStateError, ResealError } from '../../shared/errors';
import { extendLog, type LogExtension } from '../../shared/log/log-extension';
import { checkpointOrigin } from '../../shared/log/log-names';
import { authenticateLogState, type LogState, type StoredLogHead } from '../../shared/log/log-state';
import { type NoteVerifierKey, noteVerifierKey } from '../../shared/log/note-key';
import { nodeSourceOf, proveRecord, proveTreeConsistency, verifyRecordProof } from '../../shared/log/record-proof';
import { signCheckpoint } from '../../shared/log/signed-checkpoint';
import type { LineageStore } from '../../shared/ports/lineage-store';
import type { NoteSigner } from '../../shared/ports/note-signer';
import type { SealedRecord } from '../../shared/seal/sealed-record';
import { SignedHeads } from './signed-heads';

/**
 * The sealer's side of the verifiable log (docs/verifiable-log.md, "Appending"): the stored log
 * state authenticated with the log's public key before it is extended, the tree extended and its
 * checkpoint signed, and what an earlier record or a redelivery needs proven. Remembers the heads
 * it signed while warm (`SignedHeads`), so a state rolled back behind them is refused.
 */
export class SealerLog {
  readonly #signer: NoteSigner;
  readonly #store: LineageStore;
  readonly #signed = new SignedHeads();
  #verifierKey: NoteVerifierKey | null = null;

  constructor(signer: NoteSigner, store: LineageStore) {
    this.#signer = signer;
    this.#store = store;
  }

  /**
   * The lineage state authenticated with the log's public key, and not behind what this sealer
   * signed while warm; else why not (each write then gets a `LINEAGE_INCONSISTENT` conflict: a
   * state that does not authenticate is never extended).
   */
  async authenticatedState(lineageId: string, stored: StoredLogHead | null): Promise<LogState | string> {
    let state: LogState;
    try {
      state = authenticateLogState(stored, {
        lineageId,
        origin: this.origin(lineageId),
        key: await this.verifierKey(),
      });
    } catch (error) {
      if (!(error instanceof LogStateError)) throw error;
      return error.message;
    }
    return this.#signed.rolledBack(state) ?? state;
  }

  /** The tree after `records` (RFC 9162), and its checkpoint signed (one `Sign`). */
  async extend(
    lineageId: string,
    state: LogState,
    records: readonly SealedRecord[],
  ): Promise<{ extension: LogExtension; checkpoint: string }> {
    const extension = extendLog(state, records, this.origin(lineageId));
    return { extension, checkpoint: await signCheckpoint(extension.checkpoint, this.#signer) };
  }

  /** Remembers a state this sealer signed and stored. */
  remember(state: LogState): void {
    this.#signed.remember(state);
  }

  /** The record hash at `seq`: from this run, or proven by inclusion in the authenticated state; `null` if unprovable. */
  async recordHashAt(
    lineageId: string,
    seq: number,
    state: LogState,
    sealed: readonly { record: SealedRecord }[],
  ): Promise<string | null> {
    if (seq >= state.size) {
      return sealed.find((s) => s.record.header.monotonicSequenceNumber === seq)?.record.recordHash ?? null;
    }
    return (await this.provenRecordAt(lineageId, seq, state))?.recordHash ?? null;
  }

  /**
   * The stored record at `seq`, proven by inclusion in the authenticated state (its own hashes,
   * its lineage and seq, its leaf under the signed root); `null` when `seq` is not a seq of that
   * state or the record does not prove (missing, edited, forged, a node missing). What the table
   * says is at `seq` counts only then: a residual-id marker names a record, it proves none.
   *
   * @throws a retryable error (the store unavailable): the message is retried
   */
  async provenRecordAt(lineageId: string, seq: number, state: LogState): Promise<SealedRecord | null> {
    if (!Number.isSafeInteger(seq) || seq < 0 || seq >= state.size) return null;
    const store = this.#store;
    try {
      const proof = await proveRecord(
        seq,
        state.size,
        nodeSourceOf((refs) => store.readNodes(lineageId, refs)),
      );
      const checkpoint = { origin: this.origin(lineageId), size: state.size, rootHash: state.rootHash };
      const proven = verifyRecordProof(await store.readRecord(lineageId, seq), proof, checkpoint, lineageId);
      return proven.verdict === 'VERIFIED_INTACT' ? proven.record : null;
    } catch (error) {
      // Unprovable for good (a node or record missing or forged); a retryable error is rethrown.
      if (error instanceof ResealError && !error.retryable) return null;
      throw error;
    }
  }

  /**
   * The RFC 9162 consistency proof (hex) from the lineage's first `size` records to `state`, built
   * from the stored tree nodes (one read); empty when a node is missing, so the check that uses it
   * fails (docs/sealing.md, "The index floor").
   * @throws a retryable error (the store unavailable): the message is retried
   */
  async consistencyFrom(lineageId: string, size: number, state: LogState): Promise<readonly string[]> {
    const store = this.#store;
    try {
      const nodes = nodeSourceOf((refs) => store.readNodes(lineageId, refs));
      return (await proveTreeConsistency(size, state.size, nodes)).proof;
    } catch (error) {
      if (error instanceof ResealError && !error.retryable) return [];
      throw error;
    }
  }

  /** The log's origin line for a lineage (the signer's key name is the log name). */
  origin(lineageId: string): string {
    return checkpointOrigin(this.#signer.keyName, lineageId);
  }

  /**
   * The log's verifier key, from the signer's public key (fetched once per cold start; a run
   * starts the fetch beside its head read).
   * @throws {SignerUnavailableError} when KMS refuses (the message group is retried)
   */
  async verifierKey(): Promise<NoteVerifierKey> {
    this.#verifierKey ??= noteVerifierKey(this.#signer.keyName, await this.#signer.publicKey());
    return this.#verifierKey;
  }
}
