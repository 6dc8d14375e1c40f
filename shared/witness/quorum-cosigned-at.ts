import { ResealError } from '../errors';
import { parseSignedNote } from '../log/signed-note';
import { verifyCosignature } from './cosignature';
import { claimsCosigner } from './cosigner-key';
import { quorumMet } from './quorum-met';
import type { TlogPolicy } from './tlog-policy';

/**
 * The earliest time, POSIX seconds, by which a quorum of the policy's witnesses had cosigned the
 * note (C2SP tlog-cosignature `cosignature/v1` timestamps; docs/deployment-log.md, "What clients
 * see"): each witness counts from its oldest valid cosignature, and the answer is the timestamp
 * at which the witnesses counted so far, oldest first, first meet the quorum. It is the time the
 * witnesses vouch the checkpoint existed by, which a table writer cannot move (it holds no
 * witness key). `null` for `quorum none`, a quorum not met, a cosignature line claiming a policy
 * witness that does not verify, or a note that does not parse. Checks no log signature (the
 * caller verified the note with the log key). Never throws.
 */
export function quorumCosignedAt(note: string, policy: TlogPolicy): number | null {
  if (policy.quorum.kind === 'NONE') return null;
  let parsed: ReturnType<typeof parseSignedNote>;
  try {
    parsed = parseSignedNote(note);
  } catch (error) {
    if (error instanceof ResealError) return null;
    throw error;
  }
  const oldest: { name: string; timestamp: number }[] = [];
  for (const witness of policy.witnesses) {
    let first: number | null = null;
    for (const line of parsed.signatures.filter((sig) => claimsCosigner(sig, witness.key))) {
      const timestamp = verifyCosignature(parsed.text, line, witness.key);
      if (timestamp === null) return null;
      first = first === null ? timestamp : Math.min(first, timestamp);
    }
    if (first !== null) oldest.push({ name: witness.name, timestamp: first });
  }
  oldest.sort((a, b) => a.timestamp - b.timestamp);
  const present = new Set<string>();
  for (const witness of oldest) {
    present.add(witness.name);
    if (quorumMet(policy.quorum, present)) return witness.timestamp;
  }
  return null;
}
