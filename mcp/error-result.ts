import type { CallToolResult } from '@modelcontextprotocol/server';
import {
  CheckpointFileError,
  HiddenSealError,
  LogVerificationError,
  type SealTamperError,
  StackOutputsError,
  TimeoutError,
  UnverifiedOutcomeError,
} from '../client/errors';
import { InvalidInputError, LineageNotFoundError, TenantMismatchError } from '../shared/errors';
import { ToolErrorCode } from './outputs/tool-error-code';
import { StackUnavailableError } from './stack-unavailable';
import { toolError } from './tool-error';

/** What a tool error for a thrown error also says of the call: its lineage, write and snapshot notes. */
export interface ErrorContext {
  readonly lineageId?: string;
  readonly residualId?: string;
  /** The snapshot providers' notes (a causal key missing from the snapshot: a tool that did not run). */
  readonly snapshotNotes?: string[];
}

/**
 * A tool error for what a tool's operation threw (docs/mcp.md, "Errors"): invalid arguments
 * (`INVALID_INPUT` with each issue), an unknown lineage (`NOT_FOUND`), a wait that ran out
 * (`TIMEOUT`), a lineage of another tenant than the caller's (`TENANT_MISMATCH`), a sealed record or a signed log that does not verify (`TAMPER_DETECTED`), an
 * unreachable stack (`UNAVAILABLE` with `missing`, `stackName`, `outputsFile`, `region`,
 * `endpoint`) or an unreadable checkpoint store (`UNAVAILABLE`), anything else
 * (`UNEXPECTED`). `context` follows the error's own details, and wins over them; an outcome
 * that cannot be proven (`UnverifiedOutcomeError`) carries only its own.
 */
export function errorResult(error: unknown, context: ErrorContext = {}): CallToolResult {
  const known = (code: ToolErrorCode, thrown: Error, action: string, details: Record<string, unknown> = {}) =>
    toolError(code, thrown.message, action, { ...details, ...context });
  if (error instanceof LogVerificationError) {
    return known(
      ToolErrorCode.TAMPER_DETECTED,
      error,
      "do not act on this memory: the lineage's signed log does not verify against the checkpoint this server kept (a rollback, a fork or a forged note); call reseal_inspect and report the lineage",
      {
        lineageId: error.lineageId,
        verdict: error.verdict,
        firstFailure: { seq: null, verdict: error.verdict, reason: error.reason },
        detectedBy: 'client',
      },
    );
  }
  if (error instanceof CheckpointFileError) {
    return known(
      ToolErrorCode.UNAVAILABLE,
      error,
      "the server's checkpoint store (RESEAL_CHECKPOINTS) cannot be read: repair or restore the file; never delete it to get going again (it is what catches a rolled-back lineage)",
      { checkpointStore: error.path },
    );
  }
  if (error instanceof UnverifiedOutcomeError) {
    return sealTamperError(
      error,
      'do not rely on this write: the table contradicts its seal (the record marked as its seal cannot be proven in the signed log, or the sealer signed a refusal of the request it sealed); call reseal_inspect and report the lineage',
    );
  }
  if (error instanceof HiddenSealError) {
    return sealTamperError(
      error,
      'do not rely on the table for this write: its seal is proven but the table hides its residual-id marker; call reseal_inspect and report the lineage',
    );
  }
  if (error instanceof TimeoutError) {
    return known(
      ToolErrorCode.TIMEOUT,
      error,
      'the pipeline may still complete: call reseal_inspect on the lineage, or repeat the call with a longer timeoutMs (the same write is idempotent under its residualId)',
      { waitedFor: error.waitedFor, timeoutMs: error.timeoutMs },
    );
  }
  if (error instanceof TenantMismatchError) {
    return known(
      ToolErrorCode.TENANT_MISMATCH,
      error,
      `name a lineage of your tenant (an id beginning ${error.tenantId}/); another tenant's lineages are not served to you`,
      { lineageId: error.lineageId, tenantId: error.tenantId },
    );
  }
  if (error instanceof LineageNotFoundError) {
    return known(ToolErrorCode.NOT_FOUND, error, 'check lineageId; a lineage exists once its first write is sealed');
  }
  if (error instanceof InvalidInputError) {
    return known(ToolErrorCode.INVALID_INPUT, error, 'fix the fields named in issues, then call again', {
      issues: error.issues.map((i) => ({ path: i.path, message: i.message })),
    });
  }
  if (error instanceof StackUnavailableError) {
    return known(ToolErrorCode.UNAVAILABLE, error, error.fix, { missing: error.missing, ...error.place });
  }
  if (error instanceof StackOutputsError) {
    return known(
      ToolErrorCode.UNAVAILABLE,
      error,
      'the Reseal stack cannot be found: check the server configuration (RESEAL_STACK, RESEAL_STACK_OUTPUTS, region, endpoint)',
    );
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return toolError(ToolErrorCode.UNEXPECTED, message, 'retry later; if it persists, report it with the message', {
    ...context,
  });
}

/**
 * A `TAMPER_DETECTED` tool error for a write whose seal the client could not trust (docs/mcp.md,
 * "Errors"): the record marked as its seal is unproven, or proven while the table hides its
 * marker. It carries only the error's own details (lineage, residual id, seq, verdict), never the
 * call's context: the error already names the write it is about.
 */
function sealTamperError(error: SealTamperError, advice: string): CallToolResult {
  return toolError(ToolErrorCode.TAMPER_DETECTED, error.message, advice, {
    lineageId: error.lineageId,
    residualId: error.residualId,
    seq: error.seq,
    verdict: error.verdict,
    firstFailure: { seq: error.seq, verdict: error.verdict, reason: error.reason },
    detectedBy: 'client',
  });
}

/**
 * What `run` answers, or {@link errorResult} with `context` for what it throws: a tool answers
 * every failure as a tool error (`isError: true`), never as a JSON-RPC error.
 */
export async function withErrorResult(
  context: ErrorContext,
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    return errorResult(error, context);
  }
}
