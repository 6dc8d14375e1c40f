import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { publishWaitSince } from '../../client/publish-wait-since';
import { ResidualWriteRequestSchema } from '../../shared/write/write-request';
import { errorResult } from '../error-result';
import { WriteSealedOutput } from '../outputs/write-sealed-output';
import { registerResealTool } from '../register-reseal-tool';
import type { ResealMcpDeps } from '../reseal-mcp-deps';
import { writeOutcomeResult } from '../write-outcome-result';
import { WRITE_TOOL } from './write';

/**
 * Longest the remote `reseal_write` waits for an outcome, in ms: below API Gateway's 30 s limit on
 * an HTTP API integration, so the answer is a tool result, never a gateway timeout.
 */
export const REMOTE_MAX_WAIT_MS = 25_000;

/** Arguments of the remote {@link WRITE_TOOL} (docs/mcp.md, "Remote writes"). */
export const RemoteWriteInputSchema = z.strictObject({
  request: ResidualWriteRequestSchema.describe(
    'the complete write request, signed by your own writer key (its writer block): the remote server never signs for you (docs/authorship.md, "Signed writes")',
  ),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(REMOTE_MAX_WAIT_MS)
    .optional()
    .describe(`how long to wait for the outcome (default and most ${REMOTE_MAX_WAIT_MS.toLocaleString('en-US')})`),
});
/** Type of {@link RemoteWriteInputSchema}. */
export type RemoteWriteInput = z.infer<typeof RemoteWriteInputSchema>;

/**
 * The remote `reseal_write`: publishes a write its caller signed and waits for its proven
 * outcome. The server's client holds no writer key, so it checks the caller's signature and its
 * age before sending and never signs (docs/mcp.md, "What each identity proves"); the answer is the
 * local tool's (`writeOutcomeResult`), the snapshot being the keys of the request's own manifest.
 */
export async function writeSignedResidual(deps: ResealMcpDeps, input: RemoteWriteInput): Promise<CallToolResult> {
  const { request } = input;
  try {
    const published = await deps.client.publishWrite(request);
    const outcome = await deps.client.waitForOutcome(request.lineageId, request.residualId, {
      request: published.request,
      sinceMs: publishWaitSince(published),
      // Until PROVEN through the deployment log, within the wait (docs/mcp.md, "Freshness").
      untilProven: true,
      timeoutMs: input.timeoutMs ?? REMOTE_MAX_WAIT_MS,
    });
    // The answer reports the snapshot's key count; the manifest holds one hash per snapshot key.
    const snapshot = { source: 'caller' as const, env: request.manifest.baselineKeyHashes, notes: [] };
    return writeOutcomeResult(published.request, outcome, snapshot);
  } catch (error) {
    return errorResult(error, { lineageId: request.lineageId, residualId: request.residualId });
  }
}

/** Registers the remote {@link WRITE_TOOL} on `server`. */
export function registerRemoteWriteTool(server: McpServer, deps: ResealMcpDeps): void {
  registerResealTool(
    server,
    WRITE_TOOL,
    {
      title: 'Remember (seal a residual you signed)',
      description:
        'Seal a write request you built and signed with your own writer key, and wait until it is sealed or refused. ' +
        'The remote server never signs for you: an unsigned, badly signed or stale-signed request is refused. ' +
        'Sealed: returns seq, recordHash, the signed checkpoint, the inclusion proof and freshness (PROVEN through the deployment log, or SEALED_AWAITING_INTEGRATION when the wait ran out first). Refused: isError with each reason and what to do.',
      input: RemoteWriteInputSchema,
      output: WriteSealedOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    (input) => writeSignedResidual(deps, input),
  );
}
