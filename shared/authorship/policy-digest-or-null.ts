import type { HexDigest } from '../canonical/digest';
import { type LineagePolicy, policyDigest } from './lineage-policy';

/** `policyDigest(policy)`, or `null` for a write that sets no policy. */
export function policyDigestOrNull(policy: LineagePolicy | null | undefined): HexDigest | null {
  return policy ? policyDigest(policy) : null;
}
