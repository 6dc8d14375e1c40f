import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { RecallTargetSchema } from '../../shared/pipeline/recall-target';
import { EnvSnapshot } from '../../shared/schemas/env-snapshot';
import { Identifier } from '../../shared/schemas/identifier';
import { SupersedesSchema } from '../../shared/seal/supersedes';
import { withErrorResult } from '../error-result';
import { RecallOutput } from '../outputs/recall-output';
import { recallResult } from '../recall-result';
import { registerResealTool } from '../register-reseal-tool';
import type { ResealMcpDeps } from '../reseal-mcp-deps';
import { snapshotFor } from '../snapshot-for';
import { waitMs, waitTimeoutArg } from '../wait-ms';

/** Name of the recall tool. */
export const RECALL_TOOL = 'reseal_recall';

/** Arguments of {@link RECALL_TOOL}: the wire format's `RecallRequested`, with the snapshot and checkpoint optional. */
export const RecallInputSchema = z.strictObject({
  lineageId: Identifier.describe("the agent's memory lineage"),
  target: RecallTargetSchema.optional().describe(
    'which record: { "latest": true } (default), { "seq": n } or { "residualId": "…" }',
  ),
  env: EnvSnapshot.optional().describe('the environment now (default: taken by the configured snapshot providers)'),
  checkpoint: SupersedesSchema.optional().describe(
    'a record you trust, { seq, recordHash }: checked to be in the signed log (the server also checks against the signed checkpoint it kept)',
  ),
  triage: z
    .boolean()
    .optional()
    .describe(
      'false: the server proves the record itself from the table, with no RecallRequested event and no triage report stored (the same checks and answers; timeoutMs unused); default true',
    ),
  timeoutMs: waitTimeoutArg('the triage report'),
});
/** Type of {@link RecallInputSchema}. */
export type RecallInput = z.infer<typeof RecallInputSchema>;

/**
 * `reseal_recall`: asks the triage function whether a record still holds in the environment now
 * and has the client prove its answer (`client.recall`: the record proven by inclusion in the
 * latest signed checkpoint, consistent with the one the client kept, and the delta recomputed
 * from the proven record), then answers with the delta verdict, the claims kept (with their
 * content) and the claims to re-probe. With `triage: false` the client answers the recall itself
 * (`client.recallDirect`: no event put, no report stored, the same checks), for an agent that
 * needs the record and not triage's event. A caller's `checkpoint` is checked by the client
 * against the signed log too. Anything not proven intact is a `TAMPER_DETECTED` tool error
 * (docs/mcp.md, `reseal_recall`).
 */
export function recallResidual(deps: ResealMcpDeps, input: RecallInput): Promise<CallToolResult> {
  return withErrorResult({ lineageId: input.lineageId }, async () => {
    const snapshot = await snapshotFor(input.env, deps);
    const request = {
      lineageId: input.lineageId,
      target: input.target ?? { latest: true as const },
      currentEnv: snapshot.env,
      ...(input.checkpoint ? { checkpoint: input.checkpoint } : {}),
    };
    const triaged = input.triage !== false;
    const recall = triaged
      ? await deps.client.recall(request, { timeoutMs: waitMs(input.timeoutMs) })
      : await deps.client.recallDirect(request);
    return recallResult({ recall, snapshot, triaged });
  });
}

/** Registers {@link RECALL_TOOL} on `server`. */
export function registerRecallTool(server: McpServer, deps: ResealMcpDeps): void {
  registerResealTool(
    server,
    RECALL_TOOL,
    {
      title: 'Recall (triage a memory against the environment now)',
      description:
        'Recall a sealed record (latest, by seq or by residualId) and learn whether it still holds here: the record is proven in the signed log, the environment now (env, default: the configured snapshot) is compared key by key with the one sealed, and the answer lists the claims kept with their content and the claims to re-probe with the keys that drifted under them. With triage: false the server answers the recall itself (no RecallRequested event, no triage report stored, nothing for other consumers to subscribe to; the same proof and answers, faster and cheaper): use it when you only need the record. A record sealed but not yet integrated is an isError result (AWAITING_INTEGRATION: not proven yet, not tampering): recall again shortly. A tampered or unverifiable lineage is an isError result (TAMPER_DETECTED): do not act on it.',
      input: RecallInputSchema,
      output: RecallOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    (input) => recallResidual(deps, input),
  );
}
