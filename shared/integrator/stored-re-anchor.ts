import type { NoteVerifierKey } from '../log/note-key';
import type { StoredDeploymentHead } from '../ports/deployment-log-store';
import { type VerifiedReAnchor, verifyReAnchorStatement } from './re-anchor-statement';

/**
 * The head's re-anchor statement, verified with the log key (docs/deployment-log.md, "Re-anchor"):
 * `null` when the head names none, else the statement, whose re-anchor leaf the head must cover
 * (its restored size below the head's); a reason when it does not hold.
 */
export function storedReAnchor(
  stored: StoredDeploymentHead,
  key: NoteVerifierKey,
  origin: string,
): VerifiedReAnchor | null | string {
  const note = stored.reAnchor ?? null;
  if (note === null) return null;
  if (typeof note !== 'string') return 'the re-anchor statement is not a note';
  const verified = verifyReAnchorStatement(note, { origin, logKeys: [key], recoveryKeys: null });
  if (verified.kind === 'REFUSED') return `the re-anchor statement: ${verified.reason}`;
  if (verified.statement.restored.size >= stored.size) {
    return `the re-anchor leaf (index ${verified.statement.restored.size}) is not in the head of ${stored.size}`;
  }
  return verified;
}
