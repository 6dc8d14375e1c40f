import { randomUUID } from 'node:crypto';
import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { TimeoutError } from '../../client/errors';
import { publishWaitSince } from '../../client/publish-wait-since';
import type { PublishedWrite } from '../../client/publisher';
import { reprobedVariable } from '../../client/variables';
import { writeRequest } from '../../client/write-request';
import type { JsonValue } from '../../shared/canonical/canonical-json';
import { AuthoritySchema } from '../../shared/schemas/authority';
import { EnvSnapshot } from '../../shared/schemas/env-snapshot';
import { EpochMillis } from '../../shared/schemas/epoch-millis';
import { Identifier } from '../../shared/schemas/identifier';
import { MapKey } from '../../shared/schemas/map-key';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';
import { safeRecord } from '../../shared/schemas/safe-record';
import { wellFormedString } from '../../shared/schemas/well-formed-string';
import { SupersedesSchema } from '../../shared/seal/supersedes';
import { JsonPayloadSchema } from '../../shared/write/json-payload';
import { MAX_PROBE_LENGTH } from '../../shared/write/receipts';
import {
  type SessionVariable,
  SessionVariableSchema,
  VariableFreshness,
  VariableName,
} from '../../shared/write/session-variable';
import { MAX_VARIABLES, type UnsignedWriteRequest } from '../../shared/write/write-request';
import { errorResult } from '../error-result';
import { ToolErrorCode } from '../outputs/tool-error-code';
import type { ToolError } from '../outputs/tool-error-schema';
import { WriteSealedOutput } from '../outputs/write-sealed-output';
import { registerResealTool } from '../register-reseal-tool';
import type { ResealMcpDeps } from '../reseal-mcp-deps';
import { snapshotFor } from '../snapshot-for';
import type { SnapshotUse } from '../snapshot-use';
import { toolError } from '../tool-error';
import { type UnprovenWriterRefusals, unprovenWriterRefusals } from '../unproven-writer-refusals';
import { waitMs, waitTimeoutArg } from '../wait-ms';
import { writeOutcomeResult } from '../write-outcome-result';

/** Name of the write tool. */
export const WRITE_TOOL = 'reseal_write';

/**
 * A claim of a write: what was concluded and the environment keys it rests on (docs/triage.md,
 * "The four recorded elements").
 */
const ClaimInput = z
  .strictObject({
    content: JsonPayloadSchema.describe('what you concluded (any JSON), returned by reseal_recall while it stands'),
    causalKeys: z
      .array(MapKey)
      .optional()
      .describe('environment snapshot keys the claim rests on (e.g. "tool:node"); drift in one voids the claim'),
    absentKeys: z
      .array(MapKey)
      .optional()
      .describe(
        'keys the claim rests on being absent from the snapshot (e.g. "env:HTTP_PROXY" for "no proxy configured"); if one appears the claim is voided',
      ),
  })
  .refine((claim) => (claim.causalKeys?.length ?? 0) + (claim.absentKeys?.length ?? 0) > 0, {
    message: 'a claim must name at least one causal or absent key',
  });

/**
 * A variable the write used (docs/guard.md, "Input"): the wire format's `SessionVariable`, plus `reprobe`, a
 * shorthand for the receipt of a value re-verified in this session (the server computes its
 * `observedValueDigest` and names this write's session).
 */
const VariableInput = SessionVariableSchema.extend({
  reprobe: z
    .strictObject({
      probe: wellFormedString(MAX_PROBE_LENGTH)
        .min(1)
        .describe('what you checked and how, e.g. "GET /instances/i-0abc → 200"'),
      probedAtMs: EpochMillis.optional().describe('when the probe ran, ms since the Unix epoch (default: now)'),
    })
    .optional()
    .describe('for VERIFIED_INHERITED: the probe that re-verified the value in this session (instead of a receipt)'),
}).superRefine((variable, ctx) => {
  if (variable.reprobe === undefined) return;
  if (variable.receipt !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['reprobe'], message: 'give reprobe or receipt, not both' });
  }
  if (variable.freshness !== VariableFreshness.VERIFIED_INHERITED) {
    ctx.addIssue({ code: 'custom', path: ['reprobe'], message: 'reprobe is only for VERIFIED_INHERITED variables' });
  }
});

/** Arguments of {@link WRITE_TOOL}. */
export const WriteInputSchema = z.strictObject({
  lineageId: Identifier.describe("the agent's memory lineage"),
  residualId: Identifier.optional().describe('id of this write, unique in the lineage (default: generated)'),
  sessionId: Identifier.describe('the active session'),
  generationEpoch: NonNegativeInt.describe("this session's generation epoch (greater than the predecessor's)"),
  predecessor: z
    .strictObject({ sessionId: Identifier, epoch: NonNegativeInt })
    .optional()
    .describe('the session this one took over from, and its epoch (absent on a cold start)'),
  boundaryAtMs: EpochMillis.optional().describe(
    'when this session took over, ms since the Unix epoch (default: when the server started)',
  ),
  authority: AuthoritySchema.optional().describe('default OPERATIONAL'),
  claims: safeRecord(ClaimInput).optional().describe('claim id → { content, causalKeys, absentKeys? }'),
  payload: JsonPayloadSchema.optional().describe('anything else to remember (any JSON), stored as payload.data'),
  structuralKeys: z.array(MapKey).optional().describe('snapshot keys whose drift voids every claim (e.g. "tool:os")'),
  structuralAbsentKeys: z
    .array(MapKey)
    .optional()
    .describe('keys whose appearance voids every claim (e.g. "env:LD_PRELOAD"); each must be absent from the snapshot'),
  variables: z.array(VariableInput).max(MAX_VARIABLES).optional().describe('the session variables the write used'),
  declaredImmutableConstants: z
    .array(VariableName)
    .optional()
    .describe('default: the names of the IMMUTABLE_CONSTANT variables'),
  env: EnvSnapshot.optional().describe('the environment snapshot to seal (default: taken by the configured providers)'),
  supersedes: SupersedesSchema.optional().describe('the record this write re-seals (from reseal_recall)'),
  timeoutMs: waitTimeoutArg('the outcome'),
});
/** Type of {@link WriteInputSchema}. */
export type WriteInput = z.infer<typeof WriteInputSchema>;

type VariableInputValue = z.infer<typeof VariableInput>;

function sessionVariable(variable: VariableInputValue, sessionId: string, nowMs: number): SessionVariable {
  const { reprobe, ...wire } = variable;
  if (!reprobe) return wire;
  return reprobedVariable(wire.name, wire.value, wire.sourceEpoch, {
    probe: reprobe.probe,
    sessionId,
    probedAtMs: reprobe.probedAtMs ?? nowMs,
  });
}

/**
 * `reseal_write`: seals a residual and waits for its proven outcome. The payload is
 * `{ claims: { <id>: content }, data?: payload }`; the manifest seals the snapshot (the call's
 * `env`, else the providers') with each claim's causal keys and the structural keys. Sealed (the
 * record proven by inclusion in a signed checkpoint, which the client keeps) → the record's
 * place, the checkpoint and the proof; refused or in conflict (a refusal signed by the function
 * that decided it; unsigned or forged items in the table are ignored) → a tool error with each
 * reason and what to do (docs/mcp.md, `reseal_write`).
 */
export async function writeResidual(deps: ResealMcpDeps, input: WriteInput): Promise<CallToolResult> {
  const residualId = input.residualId ?? `r-${randomUUID()}`;
  let snapshot: SnapshotUse | undefined;
  let published: PublishedWrite | undefined;
  try {
    snapshot = await snapshotFor(input.env, deps);
    const request = writeRequestFor(
      { ...input, residualId },
      snapshot.env,
      (deps.nowMs ?? Date.now)(),
      deps.sessionStartMs,
    );
    // The client signs with the server's writer key (docs/mcp.md, "Configuration").
    published = await deps.client.publishWrite(request);
    const outcome = await deps.client.waitForOutcome(request.lineageId, request.residualId, {
      request: published.request,
      sinceMs: publishWaitSince(published),
      // Until PROVEN through the deployment log, within the wait (docs/mcp.md, "Freshness").
      untilProven: true,
      timeoutMs: waitMs(input.timeoutMs),
    });
    // A named residual id with the default boundary: a retry after a restart differs only by it.
    const boundaryDefaulted = input.residualId !== undefined && input.boundaryAtMs === undefined;
    return writeOutcomeResult(published.request, outcome, snapshot, boundaryDefaulted);
  } catch (error) {
    // The providers' notes explain a causal key missing from the snapshot (a tool that did not run).
    const notes = snapshot && snapshot.notes.length > 0 ? { snapshotNotes: [...snapshot.notes] } : {};
    const result = errorResult(error, { lineageId: input.lineageId, residualId, ...notes });
    if (!(error instanceof TimeoutError) || !published) return result;
    const untrusted = await unprovenWriterRefusals(deps.client, published.request);
    return untrusted ? unprovenRefusalTimeout(result, untrusted) : result;
  }
}

/**
 * A `TIMEOUT` of `reseal_write` that also reports the unsigned writer refusals found of its write,
 * in `untrusted` and as unproven (docs/mcp.md, `reseal_write`; docs/authorship.md, "Two refusals,
 * in order"): the error stays `TIMEOUT`, never `WRITE_REJECTED`.
 */
function unprovenRefusalTimeout(timeout: CallToolResult, untrusted: UnprovenWriterRefusals): CallToolResult {
  const { error: _code, message, action, ...details } = timeout.structuredContent as ToolError;
  return toolError(
    ToolErrorCode.TIMEOUT,
    `${message}; the table holds a refusal of this write recorded without a signature (unproven)`,
    `${action}. Unproven, and possibly planted: the refusal in untrusted is one the stack records unsigned (WRITER_SIGNATURE_INVALID: the signature or its age; WRITER_NOT_ADMITTED: the server's writer key is not a writer of this lineage). Check that RESEAL_WRITER_KEY (or RESEAL_WRITER_KMS_KEY) is the key the lineage id was made for (reseal lineage-id) and that the server's clock is right`,
    { ...details, untrusted },
  );
}

/**
 * The write request `reseal_write` publishes for `input` (with its `residualId` chosen) and the
 * snapshot `env`: payload `{ claims: { <id>: content }, data? }`, the manifest of `env` with each
 * claim's causal keys and the structural keys, `reprobe` shorthands as receipts stamped `nowMs`,
 * and the boundary at `input.boundaryAtMs`, else `sessionStartMs`, else `nowMs`.
 *
 * @throws {InvalidInputError} naming each bad field (e.g. a causal key missing from `env`)
 */
export function writeRequestFor(
  input: WriteInput & { readonly residualId: string },
  env: EnvSnapshot,
  nowMs: number,
  sessionStartMs?: number,
): UnsignedWriteRequest {
  const claims = input.claims ?? {};
  const payload: Record<string, JsonValue> = {
    claims: Object.fromEntries(Object.entries(claims).map(([id, claim]) => [id, claim.content])),
    ...(input.payload !== undefined ? { data: input.payload } : {}),
  };
  return writeRequest({
    residualId: input.residualId,
    lineageId: input.lineageId,
    sessionId: input.sessionId,
    generationEpoch: input.generationEpoch,
    payload,
    boundaryAtMs: input.boundaryAtMs ?? sessionStartMs ?? nowMs,
    ...(input.predecessor ? { predecessor: input.predecessor } : {}),
    ...(input.authority ? { authority: input.authority } : {}),
    variables: (input.variables ?? []).map((v) => sessionVariable(v, input.sessionId, nowMs)),
    ...(input.declaredImmutableConstants ? { declaredImmutableConstants: input.declaredImmutableConstants } : {}),
    manifest: {
      env,
      structuralKeys: input.structuralKeys ?? [],
      ...(input.structuralAbsentKeys ? { structuralAbsentKeys: input.structuralAbsentKeys } : {}),
      claimDependencyMap: Object.fromEntries(
        Object.entries(claims).map(([id, claim]) => [
          id,
          claim.absentKeys?.length
            ? { causalKeys: claim.causalKeys ?? [], absentKeys: claim.absentKeys }
            : (claim.causalKeys ?? []),
        ]),
      ),
    },
    ...(input.supersedes ? { supersedes: input.supersedes } : {}),
  });
}

/** Registers {@link WRITE_TOOL} on `server`. */
export function registerWriteTool(server: McpServer, deps: ResealMcpDeps): void {
  registerResealTool(
    server,
    WRITE_TOOL,
    {
      title: 'Remember (seal a residual)',
      description:
        'Seal a conclusion into tamper-evident memory and wait until it is sealed or refused. Give each claim its content and the environment keys it rests on (causalKeys), the variables the conclusion used with their freshness (re-verify inherited ones and pass reprobe), and optionally env (default: the configured snapshot). Sealed: returns seq, recordHash, the signed checkpoint, the inclusion proof and freshness (PROVEN through the deployment log, or SEALED_AWAITING_INTEGRATION when the wait ran out first). Refused (stale inherited state, reused id, fenced epoch): isError with each reason and what to do.',
      input: WriteInputSchema,
      output: WriteSealedOutput,
      // Not idempotent: without a residualId each call is a new write.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (input) => writeResidual(deps, input),
  );
}
