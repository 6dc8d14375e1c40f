import { VerificationVerdict } from '../../shared/seal/verification-verdict';

/**
 * How the text of `verify`, `inspect` and their sections names a walk whose only shortfall is
 * records sealed past the tree head the index holds, from seq `fromSeq` on (docs/cli.md, "Online
 * commands": sealed, awaiting integration, exit 3). Those records are not proven yet (the sealer's
 * word alone: a table writer could have put them there) and not tampering: the text says
 * `AWAITING_INTEGRATION`, never a tamper verdict. `--json` keeps the walk's verdicts as they are.
 */
export const AwaitingIntegrationText = {
  /** The `chain:` / `verdict:` value: one token, as every verdict there (readers take the first word). */
  verdict: 'AWAITING_INTEGRATION',
  /** What verified, and from which seq the records await integration (the report's `Chain:` line). */
  summary(fromSeq: number): string {
    const verified =
      fromSeq === 0
        ? 'no record integrated yet'
        : `seq 0 to ${fromSeq - 1} VERIFIED_INTACT against the tree head the index holds`;
    return `AWAITING_INTEGRATION: ${verified}; seq ${fromSeq} on sealed, awaiting integration (not tampering)`;
  },
  /** The `first failure:` value: none, since records awaiting integration did not fail; what verified instead. */
  firstFailure(fromSeq: number): string {
    return `(none: ${AwaitingIntegrationText.summary(fromSeq).slice('AWAITING_INTEGRATION: '.length)})`;
  },
  /** The verification shown for a record of seq `seq` in a timeline row. */
  rowVerdict(seq: number | null, verdict: string, fromSeq: number | null): string {
    return isAwaiting(seq, verdict, fromSeq) ? 'AWAITING_INTEGRATION' : verdict;
  },
} as const;

/**
 * Whether the record of seq `seq` with walk verdict `verdict` is one sealed past the indexed tree
 * head (`fromSeq`, `null` when none is): the walk marks each such record `UNVERIFIED_TAMPER_RISK`
 * with that reason, and only when everything before it verified (docs/verifiable-log.md,
 * "Verifying a whole lineage").
 */
export function isAwaiting(seq: number | null, verdict: string, fromSeq: number | null): boolean {
  return fromSeq !== null && seq !== null && seq >= fromSeq && verdict === VerificationVerdict.UNVERIFIED_TAMPER_RISK;
}
