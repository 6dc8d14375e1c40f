import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { verifyRecords } from '../../client/verify-records';
import { RecallTargetSchema, type TriageCompletedDetail } from '../../shared/schemas/messages';
import { EnvSnapshot, Identifier } from '../../shared/schemas/primitives';
import { SupersedesSchema } from '../../shared/seal/record-header';
import { MAX_TOOL_WAIT_MS, type ResealMcpDeps, snapshotFor, waitMs } from '../context';
import { RecallOutput } from '../tool-outputs';
import { errorResult, type RecalledRecord, recallResult } from '../tool-results';
import { toolSchema } from '../tool-schema';

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
    'a head you trust, { seq, recordHash } (default: the last one this server kept for the lineage)',
  ),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(MAX_TOOL_WAIT_MS)
    .optional()
    .describe('how long to wait for the triage report (default 45,000)'),
});
/** Type of {@link RecallInputSchema}. */
export type RecallInput = z.infer<typeof RecallInputSchema>;

/**
 * Reads the record a triage report names and verifies it alone (hash, link to its stated parent,
 * MAC through the stack's key): the claims' content is returned only from a record that verifies
 * here too, not on the report's word.
 */
async function recalledRecord(deps: ResealMcpDeps, detail: TriageCompletedDetail): Promise<RecalledRecord | null> {
  if (detail.outcome !== 'TRIAGED' || detail.seq === null) return null;
  const record = await deps.store.readRecord(detail.lineageId, detail.seq);
  if (record === null) return { record: null, verification: null };
  const parent = (record as { header?: { parentRecordHash?: unknown } }).header?.parentRecordHash;
  const trustedStart =
    detail.seq > 0 && typeof parent === 'string' && /^[0-9a-f]{64}$/.test(parent)
      ? { afterSeq: detail.seq - 1, afterRecordHash: parent }
      : undefined;
  const verification = await verifyRecords([record], {
    lineageId: detail.lineageId,
    anchor: deps.anchor,
    ...(trustedStart ? { trustedStart } : {}),
  });
  return { record, verification };
}

/**
 * `reseal_recall`: asks the triage function whether a record still holds in the environment now
 * (a `RecallRequested` event), waits for its report, checks the record itself, and answers with
 * the delta verdict, the claims kept (with their content) and the claims to re-probe. A chain or
 * record that does not verify is a `TAMPER_DETECTED` tool error.
 */
export async function recallResidual(deps: ResealMcpDeps, input: RecallInput): Promise<CallToolResult> {
  try {
    const snapshot = await snapshotFor(input.env, deps);
    const checkpoint = input.checkpoint ?? (await deps.checkpoints.get(input.lineageId));
    const requestId = await deps.client.requestRecall({
      lineageId: input.lineageId,
      target: input.target ?? { latest: true },
      currentEnv: snapshot.env,
      ...(checkpoint ? { checkpoint } : {}),
    });
    const detail = await deps.client.waitForTriageReport(input.lineageId, requestId, {
      timeoutMs: waitMs(input.timeoutMs),
    });
    const recalled = await recalledRecord(deps, detail);
    return recallResult({ detail, recalled, checkpoint, snapshot });
  } catch (error) {
    return errorResult(error, { lineageId: input.lineageId });
  }
}

/** Registers {@link RECALL_TOOL} on `server`. */
export function registerRecallTool(server: McpServer, deps: ResealMcpDeps): void {
  server.registerTool(
    RECALL_TOOL,
    {
      title: 'Recall (triage a memory against the environment now)',
      description:
        'Recall a sealed record (latest, by seq or by residualId) and learn whether it still holds here: the chain is verified, the environment now (env, default: the configured snapshot) is compared key by key with the one sealed, and the answer lists the claims kept with their content and the claims to re-probe with the keys that drifted under them. A tampered or unverifiable lineage is an isError result (TAMPER_DETECTED): do not act on it.',
      inputSchema: toolSchema(RecallInputSchema),
      outputSchema: toolSchema(RecallOutput),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    (input) => recallResidual(deps, input),
  );
}
