import type { VerificationVerdict } from '../seal/verification-verdict';
import type { FreshnessState, RecordFreshness } from './record-freshness';

/**
 * A freshness the chain refutes (docs/deployment-log.md, "Clients"): `state` with the verdict a
 * reader reports and one reason, shown both as the freshness's reason and as its finding.
 */
export const refutedFreshness = (
  state: FreshnessState,
  checkpointSize: number | null,
  verdict: VerificationVerdict,
  reason: string,
): RecordFreshness => ({ state, checkpointSize, reason, finding: { verdict, reason } });
