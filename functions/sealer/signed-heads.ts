import type { LogState } from '../../shared/log/log-state';

/** Lineages whose last signed checkpoint a warm sealer remembers (oldest forgotten first). */
export const MAX_REMEMBERED_LINEAGES = 10_000;

/**
 * The largest checkpoint this sealer instance signed per lineage (size and root), while it is
 * warm: a table put back to an earlier signed state is then refused instead of signed a second
 * time (a fork). Across cold starts only clients' kept checkpoints and witnesses catch that
 * (docs/verifiable-log.md, "Appending", the limits). Bounded: the oldest lineage is forgotten
 * first past {@link MAX_REMEMBERED_LINEAGES}.
 */
export class SignedHeads {
  readonly #signed = new Map<string, { readonly size: number; readonly rootHash: Uint8Array }>();

  /** Why `state` is behind (or beside) what was signed for its lineage, or `null` when it is not. */
  rolledBack(state: LogState): string | null {
    const signed = this.#signed.get(state.lineageId);
    if (!signed) return null;
    const behind = state.size < signed.size;
    const forked = state.size === signed.size && !Buffer.from(state.rootHash).equals(Buffer.from(signed.rootHash));
    return behind || forked
      ? `rolled back: this sealer signed a checkpoint of ${signed.size} records, the table holds a signed state of ${state.size}; extending it would sign a second history`
      : null;
  }

  /** Remembers `state` as the lineage's latest signed checkpoint. */
  remember(state: LogState): void {
    if (this.#signed.size >= MAX_REMEMBERED_LINEAGES && !this.#signed.has(state.lineageId)) {
      this.#signed.delete(this.#signed.keys().next().value as string);
    }
    this.#signed.delete(state.lineageId);
    this.#signed.set(state.lineageId, { size: state.size, rootHash: state.rootHash });
  }
}
