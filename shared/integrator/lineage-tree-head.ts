import type { Checkpoint } from '../log/checkpoint';
import { checkConsistency } from '../log/tree-consistency';
import type { VerifiedCheckpoint } from '../log/verified-checkpoint';
import { VerificationVerdict as V, type VerificationVerdict } from '../seal/verification-verdict';
import type { ReadDeploymentChain } from './record-freshness';

/**
 * What vouches for a lineage's tree head (docs/deployment-log.md, "Clients", "What changes for the
 * sealer"), strongest first:
 * - `INDEX`: the lineage's entry in the verifiable index under a deployment checkpoint that meets
 *   the client's policy (the chain `DeploymentChainReader.read` verified);
 * - `SIGNED_CHECKPOINT`: a lineage checkpoint signed with the log key, stored in the head item by a
 *   sealer that still signs (heads stored before): only past the indexed head, as a consistent
 *   extension of it, or for a lineage the index does not hold yet.
 */
export const TreeHeadVoucher = {
  INDEX: 'INDEX',
  SIGNED_CHECKPOINT: 'SIGNED_CHECKPOINT',
} as const;
/** One of {@link TreeHeadVoucher}. */
export type TreeHeadVoucher = (typeof TreeHeadVoucher)[keyof typeof TreeHeadVoucher];

/**
 * A lineage's tree head (size, RFC 9162 root) and what vouches for it: the one value every reader
 * (recall, write outcomes, receipts, whole-lineage walks) proves records in. A record at a seq below
 * `size` proven by inclusion in `rootHash` is proven memory; below `integratedSize` it is also
 * `PROVEN` fresh. Records a table shows past `size` are the sealer's word alone: sealed, awaiting
 * integration, never `VERIFIED_INTACT` and never tampering.
 */
export interface LineageTreeHead extends Checkpoint {
  readonly vouchedBy: TreeHeadVoucher;
  /**
   * The signed lineage checkpoint (C2SP signed note) of exactly this tree, when one was read and
   * verified (always for `SIGNED_CHECKPOINT`; for `INDEX` when the head item's signed checkpoint is
   * of the indexed size), else `null`: what a client may keep in a lineage checkpoint store.
   */
  readonly note: string | null;
  /**
   * Records the index holds of the lineage (the entry's `treeSize`), `null` when the index holds
   * none or no chain was read: records below it are integrated.
   */
  readonly integratedSize: number | null;
  /** Size of the deployment checkpoint the index entry was read under, or `null` (no chain read or published). */
  readonly deploymentCheckpointSize: number | null;
}

/** What {@link decideLineageTreeHead} finds. */
export type LineageTreeHeadFinding =
  | { readonly kind: 'VOUCHED'; readonly head: LineageTreeHead }
  /**
   * Nothing vouches for any tree of the lineage yet (not indexed, no signed checkpoint): every
   * record it shows is sealed, awaiting integration.
   */
  | { readonly kind: 'UNVOUCHED'; readonly reason: string }
  /** The chain does not verify (fail closed), or the signed checkpoint and the index are two histories. */
  | {
      readonly kind: 'REFUSED';
      readonly verdict: Exclude<VerificationVerdict, typeof V.VERIFIED_INTACT>;
      readonly reason: string;
    };

/** Input of {@link decideLineageTreeHead}. */
export interface LineageTreeHeadInput {
  /** The lineage's checkpoint origin (`<LogName>/<lineageId>`), carried by the head decided. */
  readonly origin: string;
  /** The deployment chain read for the lineage, or `null` when the client reads no deployment log. */
  readonly chain: ReadDeploymentChain | null;
  /** The head item's signed lineage checkpoint, verified with the log key and origin, or `null` (none stored). */
  readonly signed: VerifiedCheckpoint | null;
  /**
   * An RFC 9162 consistency proof (`ConsistencyProof` JSON form) between `signed` and the indexed
   * head, smaller to larger, built from the table's nodes; `null` when none is needed or could be built.
   */
  readonly consistency: unknown;
}

/**
 * Decides which tree head of a lineage a reader proves records in, and what vouches for it
 * (docs/deployment-log.md, "Clients"). **The index always wins**: with an indexed entry, a signed
 * lineage checkpoint of the same size must carry the same root, a smaller one must be a prefix of
 * it (the indexed head is then the head), and a larger one must extend it (then the signed head,
 * its records past `integratedSize` awaiting integration); two histories are `LINEAGE_BROKEN`.
 * Without an indexed entry (none published, the lineage not indexed, or no chain read) a signed
 * checkpoint vouches alone, and without one nothing does (`UNVOUCHED`). A chain that does not
 * verify is `REFUSED` (`UNVERIFIED_TAMPER_RISK`), whatever the head item holds: fail closed. Pure.
 */
export function decideLineageTreeHead(input: LineageTreeHeadInput): LineageTreeHeadFinding {
  const { chain, signed, origin } = input;
  if (chain?.kind === 'REFUSED') {
    return {
      kind: 'REFUSED',
      verdict: V.UNVERIFIED_TAMPER_RISK,
      reason: `no tree head of the lineage is vouched for: the deployment checkpoint does not verify (${chain.refusal}): ${chain.reason}`,
    };
  }
  const deploymentCheckpointSize = chain && chain.kind !== 'UNPUBLISHED' ? chain.checkpoint.size : null;
  const entry = chain && chain.kind !== 'UNPUBLISHED' ? chain.lineage : null;
  // The head item's signed checkpoint as the head, its records from `integratedSize` on awaiting integration.
  const signedHead = (checkpoint: VerifiedCheckpoint, integratedSize: number | null): LineageTreeHead => ({
    origin,
    size: checkpoint.size,
    rootHash: checkpoint.rootHash,
    vouchedBy: TreeHeadVoucher.SIGNED_CHECKPOINT,
    note: checkpoint.note,
    integratedSize,
    deploymentCheckpointSize,
  });
  if (entry === null) {
    if (signed === null) {
      const why =
        chain === null
          ? 'this client reads no deployment log'
          : chain.kind === 'UNPUBLISHED'
            ? 'no deployment checkpoint is published'
            : `the lineage is not in the index as of deployment checkpoint ${chain.checkpoint.size}`;
      return {
        kind: 'UNVOUCHED',
        reason: `no tree head of the lineage is vouched for (${why}, and its head item carries no signed checkpoint): its records are sealed, awaiting integration`,
      };
    }
    return { kind: 'VOUCHED', head: signedHead(signed, null) };
  }
  const indexed: LineageTreeHead = {
    origin,
    size: entry.treeSize,
    rootHash: Uint8Array.from(Buffer.from(entry.rootHash, 'hex')),
    vouchedBy: TreeHeadVoucher.INDEX,
    note: null,
    integratedSize: entry.treeSize,
    deploymentCheckpointSize,
  };
  if (signed === null) return { kind: 'VOUCHED', head: indexed };
  const [older, newer] = signed.size <= indexed.size ? [signed, indexed] : [indexed, signed];
  const proof = older.size === newer.size ? { fromSize: older.size, toSize: newer.size, proof: [] } : input.consistency;
  const consistent = checkConsistency(older, newer, proof);
  if (consistent.verdict !== V.VERIFIED_INTACT) {
    return {
      kind: 'REFUSED',
      verdict: V.LINEAGE_BROKEN,
      reason: `the head item's signed checkpoint (${signed.size} records) and the head the index holds (${indexed.size} records, deployment checkpoint ${deploymentCheckpointSize}) are not shown to be one history: ${consistent.reason}`,
    };
  }
  if (signed.size <= indexed.size) {
    return { kind: 'VOUCHED', head: signed.size === indexed.size ? { ...indexed, note: signed.note } : indexed };
  }
  return { kind: 'VOUCHED', head: signedHead(signed, indexed.size) };
}

/** Whether a record at `seq` of a head is integrated (below the indexed size): `PROVEN` fresh, not only proven. */
export function isTreeHeadIntegrated(head: LineageTreeHead, seq: number): boolean {
  return head.integratedSize !== null && seq < head.integratedSize;
}
