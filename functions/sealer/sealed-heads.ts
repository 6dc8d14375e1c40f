import type { LogState } from '../../shared/log/log-state';

/** Lineages whose last sealed head a warm sealer remembers (oldest forgotten first). */
export const MAX_REMEMBERED_LINEAGES = 10_000;

/**
 * The largest head this sealer instance sealed and stored per lineage (tree size and root), while
 * it is warm: a table put back to an earlier head (its head-state MAC still verifies) is then
 * refused instead of extended a second time (a fork). Across cold starts the deployment index is
 * the floor (docs/sealing.md, "The index floor"); a rollback within one integration interval is
 * caught by the integrator (docs/deployment-log.md, "Evidence"). Bounded: the oldest lineage is
 * forgotten first past {@link MAX_REMEMBERED_LINEAGES}.
 */
export class SealedHeads {
  readonly #sealed = new Map<string, { readonly size: number; readonly rootHash: Uint8Array }>();

  /**
   * Why `state` is behind (or beside) what was sealed for its lineage, or `null` when it is not:
   * the signed `LINEAGE_INCONSISTENT` reason (docs/sealing.md, "Rolled back behind a warm sealer").
   * It says what happened, what `reseal verify --lineage` can and cannot show of it (records removed
   * before they were integrated are not there to check, so the walk may well be intact), and what
   * the operator can do, so the advice never contradicts the verify that follows.
   */
  rolledBack(state: LogState): string | null {
    const sealed = this.#sealed.get(state.lineageId);
    if (!sealed) return null;
    const behind = state.size < sealed.size;
    const forked = state.size === sealed.size && !Buffer.from(state.rootHash).equals(Buffer.from(sealed.rootHash));
    if (!behind && !forked) return null;
    const what = behind
      ? `the stored head went back: it holds ${state.size} records, behind the ${sealed.size} this sealer sealed and stored (records sealed after seq ${state.size - 1} were removed, or the table was restored to an earlier state)`
      : `the stored head holds ${state.size} records, as many as this sealer sealed and stored, but another tree (the table was restored to, or rewritten as, another history)`;
    return (
      `rolled back: ${what}; extending it would seal a second history, so this sealer refuses every write of the lineage while it remembers its head. ` +
      'reseal verify --lineage checks the records the table holds now against the tree head the index holds (and a kept checkpoint): ' +
      'records removed before they were integrated are not there to check, so it may say VERIFIED_INTACT. ' +
      `To do: restore the lineage's items to the head of ${sealed.size} records (a backup or point-in-time restore), ` +
      'or accept the loss: the writes answered SEALED past the indexed head recall ABSENT and must be written again once the sealer restarts (the integrator records their notices as evidence)'
    );
  }

  /** Remembers `state` as the lineage's latest sealed head. */
  remember(state: LogState): void {
    if (this.#sealed.size >= MAX_REMEMBERED_LINEAGES && !this.#sealed.has(state.lineageId)) {
      this.#sealed.delete(this.#sealed.keys().next().value as string);
    }
    this.#sealed.delete(state.lineageId);
    this.#sealed.set(state.lineageId, { size: state.size, rootHash: state.rootHash });
  }
}
