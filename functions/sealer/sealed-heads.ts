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

  /** Why `state` is behind (or beside) what was sealed for its lineage, or `null` when it is not. */
  rolledBack(state: LogState): string | null {
    const sealed = this.#sealed.get(state.lineageId);
    if (!sealed) return null;
    const behind = state.size < sealed.size;
    const forked = state.size === sealed.size && !Buffer.from(state.rootHash).equals(Buffer.from(sealed.rootHash));
    return behind || forked
      ? `rolled back: this sealer stored a head of ${sealed.size} records, the table holds an authenticated head of ${state.size}; extending it would seal a second history`
      : null;
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
