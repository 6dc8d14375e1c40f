import { canonicalJson } from '../canonical/canonical-json';
import { type AdmissionCandidate, AdmissionKind, type AdmissionState } from './admission';
import { type LineagePolicy, lineageIdMatchesPolicy } from './lineage-policy';

/**
 * Decides whether a writer may extend a lineage (docs/authorship.md, "Lineage write policy"):
 * inception at seq 0 (the policy the self-certifying id names, signed by one of its writers), a
 * current writer's write or rotation (recovery keys unchanged, so a stolen writer key cannot
 * remove the way to recover from it), or a recovery key's new policy. A lineage whose tip is
 * format 1 is never extended. The reason never names the tip's epoch or head.
 *
 * @returns how the write is admitted, or `{ refused }` with why not
 */
export function admitWrite(
  state: AdmissionState,
  candidate: AdmissionCandidate,
): { readonly admitted: AdmissionKind } | { readonly refused: string } {
  const { publicKey, policy } = candidate;
  if (state.legacyTip) {
    return {
      refused: 'the lineage ends in a format-1 record: a legacy lineage is read-only (start a key-bound lineage)',
    };
  }
  const isWriter = (p: LineagePolicy) => p.writers.some((w) => w.publicKey === publicKey);
  if (state.seq === 0 || state.inForce === null) {
    if (state.seq !== 0) return { refused: 'no lineage write policy is in force' };
    if (policy === null) return { refused: 'the first record of a lineage must set its write policy (inception)' };
    if (!lineageIdMatchesPolicy(state.lineageId, policy)) {
      return { refused: 'the lineage id does not end in the digest of the inception policy' };
    }
    if (!isWriter(policy)) return { refused: 'the inception record is not signed by a writer of its policy' };
    return { admitted: AdmissionKind.INCEPTION };
  }
  const inForce = state.inForce;
  if (isWriter(inForce)) {
    if (policy === null) return { admitted: AdmissionKind.WRITE };
    if (canonicalJson(policy.recoveryKeys) !== canonicalJson(inForce.recoveryKeys)) {
      return { refused: 'a writer may not change the recovery keys (only a recovery key may)' };
    }
    return { admitted: AdmissionKind.ROTATION };
  }
  if (policy !== null && inForce.recoveryKeys.includes(publicKey)) return { admitted: AdmissionKind.RECOVERY };
  return { refused: 'the writer key is not admitted to this lineage' };
}
