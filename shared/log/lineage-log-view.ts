import type { LineageTreeHeadFinding } from '../integrator/lineage-tree-head';
import type { VerificationVerdict } from '../seal/verification-verdict';
import type { NoteVerifierKey } from './note-key';
import type { VerifiedCheckpoint } from './verified-checkpoint';

/** A finding of the log a walk is tied to: a verdict (never `VERIFIED_INTACT`) and why. */
export interface LogViewFinding {
  readonly kind: 'FINDING';
  readonly verdict: VerificationVerdict;
  readonly reason: string;
}

/**
 * The tree head a walk of a head item without a signed lineage checkpoint is tied to: the
 * lineage's tree head and what vouches for it (`decideLineageTreeHead`,
 * shared/integrator/lineage-tree-head.ts: the index entry under the authenticated deployment
 * checkpoint), or `UNAVAILABLE` when the reader reads no deployment log (then nothing can vouch).
 */
export type WalkTreeHead = LineageTreeHeadFinding | { readonly kind: 'UNAVAILABLE'; readonly reason: string };

/**
 * The signed lineage log as a reader sees it: the log key, and the latest signed lineage
 * checkpoint proven (`proveLatestCheckpoint`, shared/log/latest-checkpoint-proof.ts) against the
 * kept one, which it then keeps. The client's `LogReader.view()` is one.
 */
export interface SignedLogView {
  /** The log's verifier key. */
  key(): Promise<NoteVerifierKey>;
  /**
   * The latest signed checkpoint, proven and then kept; `truncationChecked` says whether a kept
   * checkpoint was there to check it against. `NONE`: no signed checkpoint to compare.
   * `FINDING`: the log does not prove (a rollback, a fork, a note that does not verify).
   */
  latestKept(
    lineageId: string,
  ): Promise<
    | { readonly kind: 'PROVEN'; readonly checkpoint: VerifiedCheckpoint; readonly truncationChecked: boolean }
    | { readonly kind: 'NONE' }
    | LogViewFinding
  >;
}

/**
 * The log a whole-lineage walk is tied to (docs/verifiable-log.md, "Verifying a whole lineage"):
 * the signed lineage log ({@link SignedLogView}), the checkpoint the reader kept, and the
 * lineage's tree head in the verifiable index under the authenticated deployment checkpoint.
 */
export interface LineageLogView extends SignedLogView {
  /** The checkpoint this reader kept for the lineage, verified again; `FINDING` when the kept note does not verify. */
  kept(
    lineageId: string,
  ): Promise<
    { readonly kind: 'KEPT'; readonly checkpoint: VerifiedCheckpoint } | { readonly kind: 'NONE' } | LogViewFinding
  >;
  /** The lineage's tree head and what vouches for it ({@link WalkTreeHead}), read before the walk. */
  treeHead(lineageId: string): Promise<WalkTreeHead>;
}
