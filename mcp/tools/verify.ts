import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { Identifier } from '../../shared/schemas/primitives';
import { SupersedesSchema } from '../../shared/seal/record-header';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import type { ResealMcpDeps } from '../context';
import { VerifyOutput } from '../tool-outputs';
import { errorResult, verifyResult } from '../tool-results';
import { toolSchema } from '../tool-schema';

/** Name of the verify tool. */
export const VERIFY_TOOL = 'reseal_verify';

/** Arguments of {@link VERIFY_TOOL}. */
export const VerifyInputSchema = z.strictObject({
  lineageId: Identifier.describe('the lineage to verify'),
  checkpoint: SupersedesSchema.optional().describe(
    'a head you trust, { seq, recordHash } (default: the last one this server kept for the lineage)',
  ),
});
/** Type of {@link VerifyInputSchema}. */
export type VerifyInput = z.infer<typeof VerifyInputSchema>;

/**
 * `reseal_verify`: verifies the whole stored lineage here (every hash and link, every MAC through
 * KMS, the stored head, and the tail against the checkpoint). Intact → the verified head, which
 * the server keeps as the lineage's checkpoint; anything else → a `TAMPER_DETECTED` tool error.
 */
export async function verifyLineage(deps: ResealMcpDeps, input: VerifyInput): Promise<CallToolResult> {
  try {
    const checkpoint = input.checkpoint ?? (await deps.checkpoints.get(input.lineageId));
    const verification = await deps.client.verifyLineage(input.lineageId, checkpoint ? { checkpoint } : {});
    if (verification.verdict === VerificationVerdict.VERIFIED_INTACT && verification.head) {
      await deps.checkpoints.keep(input.lineageId, verification.head);
    }
    return verifyResult(input.lineageId, verification, checkpoint);
  } catch (error) {
    return errorResult(error, { lineageId: input.lineageId });
  }
}

/** Registers {@link VERIFY_TOOL} on `server`. */
export function registerVerifyTool(server: McpServer, deps: ResealMcpDeps): void {
  server.registerTool(
    VERIFY_TOOL,
    {
      title: 'Verify a lineage against a checkpoint',
      description:
        'Verify every record of a lineage (hashes, links, MACs, stored head) and its tail against a checkpoint (default: the last one kept). Intact: returns the verified head. Tampered, truncated or unverifiable: isError (TAMPER_DETECTED) with the first failure.',
      inputSchema: toolSchema(VerifyInputSchema),
      outputSchema: toolSchema(VerifyOutput),
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) => verifyLineage(deps, input),
  );
}
