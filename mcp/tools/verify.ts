import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { Identifier } from '../../shared/schemas/primitives';
import { SupersedesSchema } from '../../shared/seal/record-header';
import type { ResealMcpDeps } from '../context';
import { withErrorResult } from '../error-result';
import { checkLogForWalk } from '../log-check';
import { VerifyOutput } from '../outputs/verify-output';
import { registerResealTool } from '../tool-schema';
import { verifyResult } from '../verify-result';

/** Name of the verify tool. */
export const VERIFY_TOOL = 'reseal_verify';

/**
 * The `checkpoint` argument of the walks, `reseal_verify` and `reseal_inspect`: the head the
 * stored tail is checked against instead of the signed log's last record.
 */
export const WalkCheckpointArg = SupersedesSchema.optional().describe(
  'a record you trust, { seq, recordHash }, to check the tail against (default: the last record of the latest signed checkpoint)',
);

/** Arguments of {@link VERIFY_TOOL}. */
export const VerifyInputSchema = z.strictObject({
  lineageId: Identifier.describe('the lineage to verify'),
  checkpoint: WalkCheckpointArg,
});
/** Type of {@link VerifyInputSchema}. */
export type VerifyInput = z.infer<typeof VerifyInputSchema>;

/**
 * `reseal_verify`: the full audit of a lineage. First the signed log: the latest signed
 * checkpoint, verified with the log's public key and shown consistent with the one the client
 * kept (`client.latestCheckpoint`), and its last record proven by inclusion. Then the walk
 * (`client.verifyLineage`): every hash and link, every MAC through KMS, the stored head, and the
 * tail against the caller's `checkpoint`, else that proven last record. Both intact → the
 * verified head and the signed checkpoint; anything else → a `TAMPER_DETECTED` tool error
 * (docs/mcp.md, `reseal_verify`).
 */
export function verifyLineage(deps: ResealMcpDeps, input: VerifyInput): Promise<CallToolResult> {
  return withErrorResult({ lineageId: input.lineageId }, async () => {
    const { log, walk } = await checkLogForWalk(deps.client, input.lineageId, input.checkpoint);
    const verification = await deps.client.verifyLineage(input.lineageId, walk);
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
        'Verify every record of a lineage (hashes, links, MACs, stored head) and its tail against the latest signed checkpoint (consistent with the one kept) or a { seq, recordHash } you give. Intact: returns the verified head, the signed checkpoint and whether truncation was checked. Tampered, truncated or unverifiable: isError (TAMPER_DETECTED) with the first failure.',
      input: VerifyInputSchema,
      output: VerifyOutput,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) => verifyLineage(deps, input),
  );
}
