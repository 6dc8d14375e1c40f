import type { CallToolResult } from '@modelcontextprotocol/server';
import { writeOutcomeShape, writeSealedShape } from '../client/shapes/write-outcome-shape';
import { staleStateHints } from '../client/stale-state-hints';
import type { WriteOutcome } from '../client/write-outcomes';
import { escapedStrings, escapedText } from '../shared/schemas/escaped-text';
import type { ResidualWriteRequest } from '../shared/write/write-request';
import { headOf } from './head-of';
import { ToolErrorCode } from './outputs/tool-error-code';
import type { WriteSealedOutput } from './outputs/write-sealed-output';
import { rejectionDetails } from './rejection-details';
import { type SnapshotUse, snapshotOutput } from './snapshot-use';
import { toolError } from './tool-error';
import { toolResult } from './tool-result';

/** What to do about a whole rejected write, by the pipeline's reason (docs/pipeline.md). */
const REJECTION_ACTIONS: Readonly<Record<string, string>> = {
  STALE_STATE: 're-probe the rejected variables (see rejectedVariables[].action), then call reseal_write again',
  RESIDUAL_ID_REUSED:
    'this residual id is already sealed in the lineage with other content: write under a new residualId (omit it to get one generated)',
  SCHEMA_VIOLATION: 'fix the fields named in issues, then write again',
  PAYLOAD_TOO_LARGE: 'shrink the payload and claims (at most 256 KiB of canonical JSON), then write again',
  SEAL_REFUSED: 'the record header could not be sealed (see issues): shorten the ids, then write again',
  VERDICT_MISMATCH: "the sealer did not get the guard's verdict: call reseal_write again",
  ACCEPTANCE_TIME_INVALID: 'call reseal_write again',
};

/**
 * What to do about `RESIDUAL_ID_REUSED` when the caller named the residual id but not the
 * boundary: the default boundary is when the server started, so the same write retried after a
 * restart is other content to the sealer (docs/mcp.md, `reseal_write`).
 */
const RETRY_AFTER_RESTART =
  'if this retries a write sent before the MCP server restarted, the content differs only because boundaryAtMs defaults to when the server started: call reseal_recall with this residualId to see what is sealed (it may be your write), or retry with the boundaryAtMs of the first call; otherwise write under a new residualId (omit it to get one generated)';

/** What to do about a conflict, by its reason. */
const CONFLICT_ACTIONS: Readonly<Record<string, string>> = {
  STALE_EPOCH:
    'fenced out: a newer generation owns this lineage; do not retry with this generationEpoch (recall the lineage first)',
  LOST_RACE: 'the head kept moving: call reseal_write again with the same arguments',
  LINEAGE_INCONSISTENT:
    "the lineage's stored head disagrees with its records, or went back behind what the sealer sealed (the reason says which, and what the operator can do): writing again cannot help until the lineage is repaired; reseal_verify checks the records the index holds, so it can be intact when only records not yet integrated were removed",
};

/**
 * The answer of `reseal_write` for the proven outcome of its write: `SEALED` → the record's
 * place, the signed checkpoint, its inclusion proof and its `freshness` (`PROVEN` or
 * `SEALED_AWAITING_INTEGRATION`; a seal the deployment log contradicts or cannot prove,
 * `INCONSISTENT` or `REFUSED`, is a `TAMPER_DETECTED` tool error); `REJECTED` (signed by the guard or the
 * sealer) → a `WRITE_REJECTED` tool error with each reason and what to do; `CONFLICT` (signed by
 * the sealer) → a `WRITE_CONFLICT` tool error. A refusal's stored text (its detail, quoting what the
 * sealer read from the table) is shown escaped (docs/mcp.md, "Untrusted data"), its statement as
 * signed. `boundaryDefaulted`: the caller named the residual
 * id but not `boundaryAtMs`, so `RESIDUAL_ID_REUSED` may be its own retry after a server restart.
 */
export function writeOutcomeResult(
  request: ResidualWriteRequest,
  outcome: WriteOutcome,
  snapshot: SnapshotUse,
  boundaryDefaulted = false,
): CallToolResult {
  switch (outcome.kind) {
    case 'SEALED': {
      const shape = writeSealedShape(request.lineageId, request.residualId, outcome);
      const { freshness, checkpoint } = shape;
      if (freshness && freshness.state !== 'PROVEN' && freshness.state !== 'SEALED_AWAITING_INTEGRATION') {
        // Fail closed: a seal the deployment log contradicts, or one whose chain does not verify.
        return toolError(
          ToolErrorCode.TAMPER_DETECTED,
          `${request.residualId} is sealed as seq ${shape.seq} of ${request.lineageId}, but the deployment log does not prove it (${freshness.state}): ${freshness.reason}`,
          'do not rely on this write: treat the lineage as unverified, call reseal_verify, and report it',
          {
            lineageId: request.lineageId,
            residualId: request.residualId,
            seq: shape.seq,
            recordHash: shape.recordHash,
            freshness,
          },
        );
      }
      const sealed: WriteSealedOutput = {
        ...shape,
        supersedes: request.supersedes ? headOf(request.supersedes) : null,
        claims: Object.keys(request.manifest.claimDependencyMap).sort(),
        snapshot: snapshotOutput(snapshot),
      };
      const fresh =
        freshness === null
          ? ''
          : freshness.state === 'PROVEN'
            ? `; PROVEN through the deployment log (checkpoint ${freshness.checkpointSize}, ${freshness.witnessing})`
            : '; sealed, awaiting integration: not yet proven through the deployment log (recall it later)';
      return toolResult(
        `SEALED ${request.residualId} as seq ${shape.seq} of ${request.lineageId}, proven in ${checkpoint.note === null ? "the head item's tree (no signed checkpoint: the sealer's MAC, which this client cannot check)" : 'the signed checkpoint'} of ${checkpoint.size} records${fresh}`,
        sealed,
      );
    }
    case 'REJECTED': {
      const r = outcome.rejection;
      const hints = r.reason === 'STALE_STATE' ? staleStateHints({ isSafe: false, ...r }) : [];
      const reused = r.reason === 'RESIDUAL_ID_REUSED' && boundaryDefaulted ? RETRY_AFTER_RESTART : undefined;
      const action = [reused ?? REJECTION_ACTIONS[r.reason] ?? 'see docs/pipeline.md for this reason', ...hints].join(
        '; ',
      );
      return toolError(
        ToolErrorCode.WRITE_REJECTED,
        `the ${r.stage === 'GUARD' ? 'guard' : 'sealer'} refused ${request.residualId}: ${r.reason}`,
        action,
        // The reseal.write-outcome/1 shape (docs/cli.md, "One shape per concept"), each variable with its action.
        // Stored text escaped (docs/mcp.md, "Untrusted data"); the statement as signed, to be checked.
        {
          ...(escapedStrings({
            ...writeOutcomeShape(request.lineageId, request.residualId, outcome),
            ...rejectionDetails(r),
          }) as Record<string, unknown>),
          statement: r.statement,
        },
      );
    }
    case 'CONFLICT': {
      const c = outcome.conflict;
      return toolError(
        ToolErrorCode.WRITE_CONFLICT,
        `${request.residualId} was not appended to ${request.lineageId}: ${escapedText(c.reason)}: ${escapedText(c.detail)}`,
        CONFLICT_ACTIONS[c.reason] ?? 'call reseal_verify before writing again',
        {
          ...(escapedStrings(writeOutcomeShape(request.lineageId, request.residualId, outcome)) as Record<
            string,
            unknown
          >),
          statement: c.statement,
        },
      );
    }
  }
}
