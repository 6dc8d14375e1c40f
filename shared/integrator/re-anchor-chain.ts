import type { NoteVerifierKey } from '../log/note-key';
import type { StoredDeploymentHead } from '../ports/deployment-log-store';
import { type ReAnchorNotice, reAnchorNotice, verifyReAnchorStatement } from './re-anchor-statement';

/**
 * The earlier re-anchors a deployment head names (its `reAnchorChain`, docs/deployment-log.md,
 * "Re-anchor", "A chain of re-anchors"), oldest first, each verified as a statement of `origin`
 * signed by the log key. The list is the table's claim: an entry that is not such a note breaks the
 * chain there, and only the entries after the last broken one are returned (a link missing or
 * forged explains nothing older). Never throws.
 *
 * @param stored - the head item's `reAnchorChain` as read (anything)
 */
export function verifyReAnchorChain(stored: unknown, key: NoteVerifierKey, origin: string): ReAnchorNotice[] {
  if (!Array.isArray(stored)) return [];
  const chain: ReAnchorNotice[] = [];
  for (const note of stored) {
    const verified =
      typeof note === 'string' ? verifyReAnchorStatement(note, { origin, logKeys: [key], recoveryKeys: null }) : null;
    if (verified?.kind !== 'VERIFIED') chain.splice(0);
    else chain.push(reAnchorNotice(verified));
  }
  return chain;
}

/**
 * What an append carries forward of the head it extends: the notes of its verified chain
 * ({@link verifyReAnchorChain}), as the next head item's `reAnchorChain`; nothing when empty.
 */
export function carriedReAnchorChain(
  read: StoredDeploymentHead | null,
  key: NoteVerifierKey,
  origin: string,
): { reAnchorChain?: string[] } {
  const chain = verifyReAnchorChain(read?.reAnchorChain ?? null, key, origin).map((n) => n.note);
  return chain.length > 0 ? { reAnchorChain: chain } : {};
}
