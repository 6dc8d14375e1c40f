import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { Identifier } from '../../shared/schemas/identifier';
import { withErrorResult } from '../error-result';
import { inspectResult } from '../inspect-result';
import { inspectWithLog } from '../log-check';
import { InspectOutput } from '../outputs/inspect-output';
import { registerResealTool } from '../register-reseal-tool';
import type { ResealMcpDeps } from '../reseal-mcp-deps';
import { WalkCheckpointArg } from '../walk-checkpoint-arg';

/** Name of the inspect tool. */
export const INSPECT_TOOL = 'reseal_inspect';

/** Arguments of {@link INSPECT_TOOL}. */
export const InspectInputSchema = z.strictObject({
  lineageId: Identifier.describe('the lineage to show'),
  checkpoint: WalkCheckpointArg,
});
/** Type of {@link InspectInputSchema}. */
export type InspectInput = z.infer<typeof InspectInputSchema>;

/**
 * `reseal_inspect`: a lineage as a timeline (seq, epoch, authority, session, residual, time,
 * superseded record, each record's own verdict), then its rejected and conflicting writes, as
 * `reseal inspect --lineage` shows them, tied to the lineage's tree head as `reseal_verify` ties
 * it. A chain or log that is not intact is a `TAMPER_DETECTED` tool error carrying the same
 * timeline; records sealed past the indexed tree head, `AWAITING_INTEGRATION` (docs/mcp.md, `reseal_inspect`).
 */
export function inspectLineage(deps: ResealMcpDeps, input: InspectInput): Promise<CallToolResult> {
  return withErrorResult({ lineageId: input.lineageId }, async () => {
    const { records, verification, log } = await inspectWithLog(deps.client, input.lineageId, input.checkpoint);
    const refusals = await deps.client.readRefusals(input.lineageId);
    return inspectResult(input.lineageId, records, verification, refusals, log, input.checkpoint);
  });
}

/** Registers {@link INSPECT_TOOL} on `server`. */
export function registerInspectTool(server: McpServer, deps: ResealMcpDeps): void {
  registerResealTool(
    server,
    INSPECT_TOOL,
    {
      title: "Inspect a lineage's timeline",
      description:
        "Show a lineage's records in order (seq, epoch, authority, session, residual id, time, superseded record, each record's verdict), its rejected and conflicting writes, and its latest signed checkpoint. A lineage that does not verify is an isError result (TAMPER_DETECTED) that still carries the timeline.",
      input: InspectInputSchema,
      output: InspectOutput,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) => inspectLineage(deps, input),
  );
}
