import { Authority } from '../schemas/primitives';
import { VerificationVerdict } from './verification-verdict';

/** What a reader may do with a record, given its authority and its verification verdict. */
export interface AuthorityAssessment {
  /** May be acted on as current operational truth: only `OPERATIONAL` records `VERIFIED_INTACT`. */
  readonly operational: boolean;
  /** May be read (shown, summarized, cited) as information, never acted on unless `operational`. */
  readonly informational: boolean;
  /** Why, in one sentence. */
  readonly reason: string;
}

/**
 * Seed 003 "Decision Boundary" 4 (with seed 004 "Decision Boundary" 4): what a record's verdict
 * allows, given the authority its header carries.
 *
 * | authority \ verdict      | VERIFIED_INTACT          | UNVERIFIED_TAMPER_RISK | any other (evidence of tampering) |
 * |--------------------------|--------------------------|------------------------|-----------------------------------|
 * | `OPERATIONAL`            | operational, informational | nothing             | nothing                           |
 * | `INFORMATIONAL_ONLY`     | informational            | informational (seed: may be read unverified) | nothing      |
 * | `HISTORICAL_ATTRIBUTION` | informational            | nothing                | nothing                           |
 *
 * `INFORMATIONAL_ONLY` and `HISTORICAL_ATTRIBUTION` never carry operational authority. A verdict
 * that shows tampering (`HASH_MISMATCH`, `LINEAGE_BROKEN`, `SEQUENCE_REPLAYED`,
 * `TRUNCATION_DETECTED`) denies reading too: the seed lets a successor skip verification, not
 * ignore its failure. Pass the record's own verdict from `verifyChain(...).records`; to act on the
 * *latest* record, pass the chain's verdict (a truncated chain's last record is not the latest).
 *
 * @param record - a record (only `header.authority` is read; it is covered by the MAC)
 * @param verdict - its verification verdict
 */
export function assessAuthority(
  record: { readonly header: { readonly authority: Authority } },
  verdict: VerificationVerdict,
): AuthorityAssessment {
  const { authority } = record.header;
  if (verdict === VerificationVerdict.VERIFIED_INTACT) {
    if (authority === Authority.OPERATIONAL) {
      return { operational: true, informational: true, reason: 'operational record, verified intact' };
    }
    return {
      operational: false,
      informational: true,
      reason: `${authority} record, verified intact: readable, never operational`,
    };
  }
  if (verdict === VerificationVerdict.UNVERIFIED_TAMPER_RISK && authority === Authority.INFORMATIONAL_ONLY) {
    return {
      operational: false,
      informational: true,
      reason: 'INFORMATIONAL_ONLY record read unverified (seed 003 Decision Boundary 4): never operational',
    };
  }
  return {
    operational: false,
    informational: false,
    reason: `${authority} record with verdict ${verdict}: neither acted on nor read (fail closed)`,
  };
}
