import type { CallToolResult } from '@modelcontextprotocol/server';
import { freshnessShape } from '../client/shapes/freshness-shape';
import { writtenByOutput } from '../client/shapes/written-by-output';
import { truncationCheckText } from '../client/truncation-check-text';
import type { Freshness } from '../client/verified-recall';
import { writtenByOf, writtenByText } from '../client/written-by';
import type { ChainVerification } from '../shared/seal/chain-verification';
import type { TrustedHead } from '../shared/seal/trusted-head';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import { headOf } from './head-of';
import type { LogCheck } from './log-check';
import { logCheckFields } from './log-check-fields';
import type { VerifyOutput } from './outputs/verify-output';
import { serverWalkTruncationBasis } from './server-walk-truncation-basis';
import { toolResult } from './tool-result';
import { MCP_TRUNCATION_HINTS } from './truncation-hints';
import { walkTamperResult, walkVerdict } from './walk-verdict';

/**
 * The answer of `reseal_verify`: the walk (every hash, link and MAC, the stored head, the tail
 * against `tailCheckedAgainst`) and the signed log (latest checkpoint consistent with the kept
 * one) both intact → the verified head and the signed checkpoint; anything else → `TAMPER_DETECTED`.
 */
export function verifyResult(
  lineageId: string,
  verification: ChainVerification & { readonly freshness?: Freshness | null },
  log: LogCheck,
  caller?: TrustedHead,
): CallToolResult {
  const fields = logCheckFields(log, caller, verification.freshness ?? null);
  const found = walkVerdict(verification, log);
  if (found.verdict !== VerificationVerdict.VERIFIED_INTACT) {
    return walkTamperResult(lineageId, found, {
      ...fields,
      freshness: freshnessShape(verification.freshness ?? null),
      logFailure: log.failure,
    });
  }
  // Intact: every record verified, so every one has a writer (signed, or a format-1 record's UNATTRIBUTED).
  const writers = verification.records.flatMap((r) => {
    const writtenBy = writtenByOf(r);
    return r.seq === null || writtenBy === null ? [] : [{ seq: r.seq, writtenBy }];
  });
  const verified: VerifyOutput = {
    lineageId,
    verdict: VerificationVerdict.VERIFIED_INTACT,
    records: verification.records.length,
    head: verification.head && headOf(verification.head),
    writtenBy: writers.map((w) => ({ seq: w.seq, writtenBy: writtenByOutput(w.writtenBy) })),
    freshness: freshnessShape(verification.freshness ?? null),
    ...fields,
  };
  const at = verification.head ? ` through seq ${verification.head.seq}` : '';
  const signed = fields.checkpoint ? `; signed checkpoint of ${fields.checkpoint.size} records` : '';
  return toolResult(
    `VERIFIED_INTACT: ${lineageId}, ${verified.records} record(s)${at}${signed}; truncation ${truncationCheckText(serverWalkTruncationBasis(verification, log, caller), MCP_TRUNCATION_HINTS)}${verified.freshness ? `; freshness ${verified.freshness.state}` : ''}${writers.map((w) => `\n  seq ${w.seq}: written by ${writtenByText(w.writtenBy)}`).join('')}`,
    verified,
  );
}
