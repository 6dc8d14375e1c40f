import type { LineageStore } from '../ports/lineage-store';
import { VerificationVerdict as V } from '../seal/verification-verdict';
import type { Checkpoint } from './checkpoint';
import { checkpointOrigin } from './checkpoint-origin';
import { readLatestCheckpoint, type StoredTreeHead } from './latest-checkpoint';
import type { NoteVerifierKey } from './note-key';
import { buildLogProof, type LogFinding, storedLogNodes } from './stored-log';
import { type ConsistencyProof, checkConsistency, proveTreeConsistency } from './tree-consistency';

/** What {@link proveLatestCheckpoint} found. */
export type LatestCheckpointProof =
  | {
      readonly kind: 'PROVEN';
      /** The head item's tree: signed, or claimed by a head the sealer MAC'd ({@link StoredTreeHead}). */
      readonly checkpoint: StoredTreeHead;
      /** The consistency proof from the trusted checkpoint, or `null` (none trusted). */
      readonly consistency: ConsistencyProof | null;
    }
  /** Neither a head nor records, and the caller saw none: the lineage does not exist. */
  | { readonly kind: 'NONE' }
  | LogFinding;

/**
 * The composition that proves a stored lineage's log for triage (docs/verifiable-log.md, "Recall"):
 * the head item's tree (signed, or claimed by a MAC'd head), read and checked against the table
 * ({@link readLatestCheckpoint}), then shown to extend the caller's trusted checkpoint (RFC 9162 consistency proof built from the
 * table's nodes, which either verify against the signed roots or fail). Findings are return
 * values (shared/errors.ts: verdicts are never errors).
 *
 * @param trusted - a checkpoint the caller verified (kept, or sent with a recall), or `null`
 * @param options.trustedSaw - whether the caller holds a checkpoint of this lineage (an empty table is then a cut)
 * @param options.checkTail - whether records ending before the checkpoint are a finding here
 *   (see {@link readLatestCheckpoint})
 * @returns the proven checkpoint; `NONE`; or the finding: a forged note, a rewound head, a
 *   rollback (`TRUNCATION_DETECTED`), a fork or a missing node (`LINEAGE_BROKEN`)
 * @throws what the store throws, and `SignerUnavailableError` when the key cannot be read
 */
export async function proveLatestCheckpoint(
  store: Pick<LineageStore, 'lastRecordSeq' | 'logHead' | 'readNodes'>,
  lineageId: string,
  key: NoteVerifierKey,
  trusted: Checkpoint | null,
  options: { readonly trustedSaw: boolean; readonly checkTail: boolean },
): Promise<LatestCheckpointProof> {
  const read = await readLatestCheckpoint(
    store,
    lineageId,
    key,
    checkpointOrigin(key.name, lineageId),
    options.trustedSaw,
    options.checkTail,
  );
  if (read.kind !== 'CHECKPOINT') return read;
  const { checkpoint } = read;
  if (!trusted) return { kind: 'PROVEN', checkpoint, consistency: null };
  // A rollback (trusted larger) has no proof to build: checkConsistency says TRUNCATION_DETECTED.
  const consistency =
    trusted.size > checkpoint.size
      ? null
      : await buildLogProof(trusted.size, () =>
          proveTreeConsistency(trusted.size, checkpoint.size, storedLogNodes(store, lineageId)),
        );
  if (consistency !== null && 'kind' in consistency) return consistency;
  const checked = checkConsistency(trusted, checkpoint, consistency);
  if (checked.verdict !== V.VERIFIED_INTACT) {
    // A signed head smaller than the trusted checkpoint: two signed checkpoints, no table node.
    const proven = checkpoint.note !== null && trusted.size > checkpoint.size;
    return { kind: 'FINDING', verdict: checked.verdict, reason: checked.reason, seq: null, ...(proven && { proven }) };
  }
  return { kind: 'PROVEN', checkpoint, consistency };
}
