import { parseInput } from '../schemas/parse';
import { Authority } from '../schemas/primitives';
import { StaleWriteError } from './errors';
import { type GuardPolicy, GuardPolicySchema, type ResolvedGuardPolicy } from './policy';
import { checkReceipt } from './receipts';
import { type SessionVariable, VariableFreshness } from './session-variable';
import {
  type RejectedVariable,
  type RequestViolation,
  sortRejections,
  sortViolations,
  verdictDigestOf,
  type WriteVerdict,
  WriteVerdictSchema,
} from './verdict';
import { type ResidualWriteRequest, ResidualWriteRequestSchema } from './write-request';

/** Seed 004 Decision Boundary 1–4 for one variable of a write that is not historical attribution. */
function judgeVariable(
  variable: SessionVariable,
  request: ResidualWriteRequest,
  declared: ReadonlySet<string>,
  policy: ResolvedGuardPolicy,
): RejectedVariable[] {
  const { name } = variable;
  switch (variable.freshness) {
    case VariableFreshness.FRESH_GENERATED:
      // Decision Boundary 1, with Operational Effect 3: "fresh" means generated in this write's epoch.
      if (variable.sourceEpoch === request.generationEpoch) return [];
      return [
        {
          name,
          reason: 'EPOCH_COLLAPSE',
          detail: `a freshly generated variable must come from the write's generation epoch ${request.generationEpoch}, not epoch ${variable.sourceEpoch}`,
        },
      ];
    case VariableFreshness.IMMUTABLE_CONSTANT:
      // Decision Boundary 4: only constants the record's scope declares count.
      if (declared.has(name)) return [];
      return [
        {
          name,
          reason: 'UNDECLARED_IMMUTABLE_CONSTANT',
          detail: 'claimed as an immutable constant but not listed in declaredImmutableConstants',
        },
      ];
    case VariableFreshness.VERIFIED_INHERITED:
      // Decision Boundary 2: a verified inherited variable must carry a valid receipt.
      if (variable.receipt === undefined) {
        return [
          { name, reason: 'MISSING_RECEIPT', detail: 'claimed as re-verified but carries no freshness probe receipt' },
        ];
      }
      return checkReceipt(variable.receipt, variable.value, request.boundary, policy).map((f) => ({ name, ...f }));
    case VariableFreshness.UNVERIFIED_INHERITED:
      // Decision Boundary 3: reject; the instance must re-verify or strip the inherited component.
      return [
        {
          name,
          reason: 'UNVERIFIED_INHERITED',
          detail: `inherited from epoch ${variable.sourceEpoch} and not re-verified; re-probe it or strip it from the write`,
        },
      ];
  }
}

/** Request-level checks: session attribution, boundary, and the epoch as a fencing token. */
function judgeRequest(request: ResidualWriteRequest, policy: ResolvedGuardPolicy): RequestViolation[] {
  const { boundary } = request;
  const violations: RequestViolation[] = [];
  if (request.sessionId !== boundary.activeSessionId) {
    violations.push({
      field: 'sessionId',
      reason: 'SESSION_MISMATCH',
      detail: `the write is attributed to session ${request.sessionId}, but the active session is ${boundary.activeSessionId}`,
    });
  }
  if (boundary.predecessorSessionId === boundary.activeSessionId) {
    violations.push({
      field: 'boundary.predecessorSessionId',
      reason: 'SESSION_COLLAPSE',
      detail: `the active session ${boundary.activeSessionId} is named as its own predecessor`,
    });
  }
  if (boundary.predecessorEpoch !== undefined && request.generationEpoch <= boundary.predecessorEpoch) {
    violations.push({
      field: 'generationEpoch',
      reason: 'EPOCH_COLLAPSE',
      detail: `generation epoch ${request.generationEpoch} is not greater than the predecessor's epoch ${boundary.predecessorEpoch}`,
    });
  }
  const aheadMs = boundary.boundaryAtMs - policy.nowMs;
  if (aheadMs > policy.maxClockSkewSeconds * 1000) {
    violations.push({
      field: 'boundary.boundaryAtMs',
      reason: 'BOUNDARY_FROM_FUTURE',
      detail: `the session boundary lies ${aheadMs} ms after now; at most ${policy.maxClockSkewSeconds} s of clock skew is tolerated`,
    });
  }
  return violations;
}

/**
 * The stale-state guard: decides whether a residual write may proceed (seed 004, Decision
 * Boundary 1–4 and the `evaluate_write` method, hardened per DESIGN.md "Hardening", Guard).
 *
 * Per variable (skipped entirely for `HISTORICAL_ATTRIBUTION` writes, which document a
 * predecessor's state and carry no operational authority; the authority is bound into the
 * verdict digest): `FRESH_GENERATED` passes when its `sourceEpoch` is the write's
 * `generationEpoch`; `UNVERIFIED_INHERITED` is rejected; `VERIFIED_INHERITED` needs a valid
 * receipt (see `checkReceipt`); `IMMUTABLE_CONSTANT` passes only when declared.
 * Per request (always): `sessionId` is the active session, the boundary names a distinct
 * predecessor, `generationEpoch` exceeds `boundary.predecessorEpoch` when given, and the
 * boundary is not in the future. Rules and reasons: docs/guard.md.
 *
 * Pure and deterministic: reads no clock (`policy.nowMs` is "now"), and `verdictDigest`
 * depends only on the request's identity fields and the sorted (name, reason) pairs.
 *
 * @example
 * ```ts
 * const verdict = evaluateWrite(JSON.parse(body), { nowMs: Date.now(), maxReceiptAgeSeconds: 900 });
 * if (!verdict.isSafe) await publishRejection(verdict);
 * ```
 * @param request - a {@link ResidualWriteRequest} as untrusted JSON
 * @param policy - time window; `maxClockSkewSeconds` defaults to 5
 * @returns the verdict; lists sorted by (name or field, reason)
 * @throws {InvalidInputError} when the policy or the request is malformed (naming each field);
 *   malformed input never yields a verdict
 */
export function evaluateWrite(request: unknown, policy: GuardPolicy): WriteVerdict {
  const resolved = parseInput(GuardPolicySchema, policy, 'guard policy');
  const parsed = parseInput(ResidualWriteRequestSchema, request, 'residual write request');
  const declared = new Set(parsed.declaredImmutableConstants);
  const rejectedVariables =
    parsed.authority === Authority.HISTORICAL_ATTRIBUTION
      ? []
      : sortRejections(parsed.variablesUsed.flatMap((v) => judgeVariable(v, parsed, declared, resolved)));
  const requestViolations = sortViolations(judgeRequest(parsed, resolved));
  return {
    isSafe: rejectedVariables.length === 0 && requestViolations.length === 0,
    rejectedVariables,
    requestViolations,
    verdictDigest: verdictDigestOf(parsed, rejectedVariables, requestViolations),
  };
}

/**
 * Fail-closed enforcement (seed 004 `assert_write_safe`): returns when the verdict is safe,
 * throws otherwise.
 *
 * @param verdict - a {@link WriteVerdict}, validated again (a verdict whose `isSafe`
 *   contradicts its lists is refused as malformed)
 * @throws {StaleWriteError} listing the rejected variable names and violated fields (sorted, unique)
 * @throws {InvalidInputError} when `verdict` is not a well-formed WriteVerdict
 */
export function assertWriteSafe(verdict: unknown): void {
  const parsed = parseInput(WriteVerdictSchema, verdict, 'write verdict');
  if (parsed.isSafe) return;
  const names = [...new Set(parsed.rejectedVariables.map((r) => r.name))].sort();
  const fields = [...new Set(parsed.requestViolations.map((v) => v.field))].sort();
  throw new StaleWriteError(names, fields, parsed.verdictDigest);
}
