import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { Identifier } from '../../shared/schemas/identifier';
import { withErrorResult } from '../error-result';
import { verifyWithLog } from '../log-check';
import { VerifyOutput } from '../outputs/verify-output';
import { registerResealTool } from '../register-reseal-tool';
import type { ResealMcpDeps } from '../reseal-mcp-deps';
import { verifyResult } from '../verify-result';
import { WalkCheckpointArg } from '../walk-checkpoint-arg';

/** Name of the verify tool. */
export const VERIFY_TOOL = 'reseal_verify';

/** Arguments of {@link VERIFY_TOOL}. */
export const VerifyInputSchema = z.strictObject({
  lineageId: Identifier.describe('the lineage to verify'),
  checkpoint: WalkCheckpointArg,
});
/** Type of {@link VerifyInputSchema}. */
export type VerifyInput = z.infer<typeof VerifyInputSchema>;

/**
 * `reseal_verify`: the full audit of a lineage (`verifyWithLog`): every hash and link, every MAC
 * through KMS, the stored head, and the tail against the caller's `checkpoint`, tied to the
 * lineage's tree head: the head item's signed lineage checkpoint (consistent with the kept one),
 * or the lineage's entry in the index under the authenticated deployment checkpoint. Intact → the
 * verified head and the tree head; records sealed past the indexed tree head → an
 * `AWAITING_INTEGRATION` tool error; anything else → `TAMPER_DETECTED` (docs/mcp.md, `reseal_verify`).
 */
export function verifyLineage(deps: ResealMcpDeps, input: VerifyInput): Promise<CallToolResult> {
  return withErrorResult({ lineageId: input.lineageId }, async () => {
    const { verification, log } = await verifyWithLog(deps.client, input.lineageId, input.checkpoint);
    return verifyResult(input.lineageId, verification, log, input.checkpoint);
  });
}

/** Registers {@link VERIFY_TOOL} on `server`. */
export function registerVerifyTool(server: McpServer, deps: ResealMcpDeps): void {
  registerResealTool(
    server,
    VERIFY_TOOL,
    {
      title: 'Verify a lineage (full audit against the signed log)',
      description:
        "Verify every record of a lineage (hashes, links, MACs, stored head) against its tree head (the lineage's signed checkpoint, or its entry in the deployment index) and its tail against a { seq, recordHash } you give. Intact: returns the verified head, the tree head and whether truncation was checked. Records sealed but not yet integrated: isError (AWAITING_INTEGRATION), ask again shortly. Tampered, truncated or unverifiable: isError (TAMPER_DETECTED) with the first failure.",
      input: VerifyInputSchema,
      output: VerifyOutput,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) => verifyLineage(deps, input),
  );
}
