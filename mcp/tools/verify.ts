import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { Identifier } from '../../shared/schemas/primitives';
import { SupersedesSchema } from '../../shared/seal/record-header';
import type { ResealMcpDeps } from '../context';
import { checkLog } from '../log-check';
import { VerifyOutput } from '../tool-outputs';
import { errorResult, tailCheckpoint, verifyResult } from '../tool-results';
import { toolSchema } from '../tool-schema';

/** Name of the verify tool. */
export const VERIFY_TOOL = 'reseal_verify';

/** Arguments of {@link VERIFY_TOOL}. */
export const VerifyInputSchema = z.strictObject({
  lineageId: Identifier.describe('the lineage to verify'),
  checkpoint: SupersedesSchema.optional().describe(
    'a record you trust, { seq, recordHash }, to check the tail against (default: the last record of the latest signed checkpoint)',
  ),
});
/** Type of {@link VerifyInputSchema}. */
export type VerifyInput = z.infer<typeof VerifyInputSchema>;

/**
 * `reseal_verify`: the full audit of a lineage. First the signed log: the latest signed
 * checkpoint, verified with the log's public key and shown consistent with the one the client
 * kept (`client.latestCheckpoint`), and its last record proven by inclusion. Then the walk
 * (`client.verifyLineage`): every hash and link, every MAC through KMS, the stored head, and the
 * tail against the caller's `checkpoint`, else that proven last record. Both intact → the
 * verified head and the signed checkpoint; anything else → a `TAMPER_DETECTED` tool error.
 */
export async function verifyLineage(deps: ResealMcpDeps, input: VerifyInput): Promise<CallToolResult> {
  try {
    const log = await checkLog(deps.client, input.lineageId, { signedHead: input.checkpoint === undefined });
    const tail = tailCheckpoint(input.checkpoint, log);
    const verification = await deps.client.verifyLineage(input.lineageId, tail ? { checkpoint: tail.head } : {});
    return verifyResult(input.lineageId, verification, log, input.checkpoint);
  } catch (error) {
    return errorResult(error, { lineageId: input.lineageId });
  }
}

/** Registers {@link VERIFY_TOOL} on `server`. */
export function registerVerifyTool(server: McpServer, deps: ResealMcpDeps): void {
  server.registerTool(
    VERIFY_TOOL,
    {
      title: 'Verify a lineage (full audit against the signed log)',
      description:
        'Verify every record of a lineage (hashes, links, MACs, stored head) and its tail against the latest signed checkpoint (consistent with the one kept) or a { seq, recordHash } you give. Intact: returns the verified head, the signed checkpoint and whether truncation was checked. Tampered, truncated or unverifiable: isError (TAMPER_DETECTED) with the first failure.',
      inputSchema: toolSchema(VerifyInputSchema),
      outputSchema: toolSchema(VerifyOutput),
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) => verifyLineage(deps, input),
  );
}
