import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { Identifier } from '../../shared/schemas/primitives';
import { SupersedesSchema } from '../../shared/seal/record-header';
import type { ResealMcpDeps } from '../context';
import { checkLog } from '../log-check';
import { InspectOutput } from '../tool-outputs';
import { errorResult, inspectResult, tailCheckpoint } from '../tool-results';
import { toolSchema } from '../tool-schema';

/** Name of the inspect tool. */
export const INSPECT_TOOL = 'reseal_inspect';

/** Arguments of {@link INSPECT_TOOL}. */
export const InspectInputSchema = z.strictObject({
  lineageId: Identifier.describe('the lineage to show'),
  checkpoint: SupersedesSchema.optional().describe(
    'a record you trust, { seq, recordHash }, to check the tail against (default: the last record of the latest signed checkpoint)',
  ),
});
/** Type of {@link InspectInputSchema}. */
export type InspectInput = z.infer<typeof InspectInputSchema>;

/**
 * `reseal_inspect`: a lineage as a timeline (seq, epoch, authority, session, residual, time,
 * superseded record, each record's own verdict), then its rejected and conflicting writes, as
 * `reseal inspect --lineage` shows them, with the signed log's latest checkpoint checked as
 * `reseal_verify` checks it. A chain or log that is not intact is a `TAMPER_DETECTED` tool error
 * carrying the same timeline.
 */
export async function inspectLineage(deps: ResealMcpDeps, input: InspectInput): Promise<CallToolResult> {
  try {
    const log = await checkLog(deps.client, input.lineageId, { signedHead: input.checkpoint === undefined });
    const tail = tailCheckpoint(input.checkpoint, log);
    const exported = await deps.client.exportLineage(input.lineageId);
    const verification = await deps.client.verifyExport(exported, tail ? { checkpoint: tail.head } : {});
    const refusals = await deps.client.readRefusals(input.lineageId);
    return inspectResult(input.lineageId, exported.records, verification, refusals, log, input.checkpoint);
  } catch (error) {
    return errorResult(error, { lineageId: input.lineageId });
  }
}

/** Registers {@link INSPECT_TOOL} on `server`. */
export function registerInspectTool(server: McpServer, deps: ResealMcpDeps): void {
  server.registerTool(
    INSPECT_TOOL,
    {
      title: "Inspect a lineage's timeline",
      description:
        "Show a lineage's records in order (seq, epoch, authority, session, residual id, time, superseded record, each record's verdict), its rejected and conflicting writes, and its latest signed checkpoint. A lineage that does not verify is an isError result (TAMPER_DETECTED) that still carries the timeline.",
      inputSchema: toolSchema(InspectInputSchema),
      outputSchema: toolSchema(InspectOutput),
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) => inspectLineage(deps, input),
  );
}
