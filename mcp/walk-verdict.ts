import type { CallToolResult } from '@modelcontextprotocol/server';
import { escapedText } from '../shared/schemas/escaped-text';
import type { ChainVerification } from '../shared/seal/chain-verification';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import type { LogCheck } from './log-check';
import { ToolErrorCode } from './outputs/tool-error-code';
import { toolError } from './tool-error';

/**
 * The verdict of a walk and of the signed log together: the walk's first failure wins (it names
 * a record; `detectedBy: 'log'` when it is the log's finding, `log: …`); else the signed log's
 * failure; else intact. The reason is the verifier's, with
 * control characters escaped (`escapedText`): it may quote a field of the record at fault.
 */
export function walkVerdict(verification: ChainVerification, log: LogCheck) {
  if (verification.verdict !== VerificationVerdict.VERIFIED_INTACT) {
    const failure = verification.firstFailure;
    // The walk is tied to its log: a finding of the log (its tree head) says so in its reason.
    const byLog = failure?.reason.startsWith('log: ') === true;
    return {
      verdict: verification.verdict,
      firstFailure: failure && { ...failure, reason: escapedText(failure.reason) },
      detectedBy: byLog ? ('log' as const) : ('walk' as const),
    };
  }
  if (log.failure) {
    return {
      verdict: log.failure.verdict,
      firstFailure: {
        seq: null,
        verdict: log.failure.verdict,
        reason: escapedText(`signed log: ${log.failure.reason}`),
      },
      detectedBy: 'log' as const,
    };
  }
  return { verdict: VerificationVerdict.VERIFIED_INTACT, firstFailure: null, detectedBy: null };
}

/** The verdict, first failure and finder of a walk and its signed log together ({@link walkVerdict}). */
export type WalkVerdict = ReturnType<typeof walkVerdict>;

/**
 * The tool error of a walk that is not intact (`reseal_verify`, `reseal_inspect`): its verdict,
 * first failure and finder, then `details`. `AWAITING_INTEGRATION` when `details` names a first seq
 * sealed past the indexed tree head (`awaitingIntegrationFromSeq`), else `TAMPER_DETECTED`.
 */
export function walkTamperResult(
  lineageId: string,
  found: WalkVerdict,
  details: Record<string, unknown>,
): CallToolResult {
  // Records sealed past the tree head the index holds: awaiting integration, not tamper.
  const awaiting = details.awaitingIntegrationFromSeq;
  if (typeof awaiting === 'number') {
    return toolError(
      ToolErrorCode.AWAITING_INTEGRATION,
      `lineage ${lineageId}: records from seq ${awaiting} on are sealed, awaiting integration (${found.firstFailure?.reason ?? 'past the tree head the index holds'})`,
      'not tampering: the records through the tree head verified; ask again after the next integration (seconds) before acting on the newer records',
      { lineageId, verdict: found.verdict, firstFailure: found.firstFailure, detectedBy: found.detectedBy, ...details },
    );
  }
  return toolError(
    ToolErrorCode.TAMPER_DETECTED,
    `lineage ${lineageId} does not verify (${found.verdict}): ${found.firstFailure?.reason ?? 'no reason given'}`,
    found.verdict === VerificationVerdict.UNVERIFIED_TAMPER_RISK
      ? 'the MACs or the signed log could not be checked (KMS unreachable or another key): treat the lineage as unverified until it verifies'
      : 'do not act on this memory: treat every claim of the lineage as unverified, rebuild them from live ground truth, and report the lineage',
    { lineageId, verdict: found.verdict, firstFailure: found.firstFailure, detectedBy: found.detectedBy, ...details },
  );
}
