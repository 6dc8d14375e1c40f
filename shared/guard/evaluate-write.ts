import { Authority } from '../schemas/authority';
import type { Validated } from '../schemas/validated';
import { type SessionVariable, VariableFreshness } from '../write/session-variable';
import { parseWriteRequest, type ResidualWriteRequest } from '../write/write-request';
import { type GuardPolicy, type ResolvedGuardPolicy, resolveGuardPolicy } from './policy';
import { checkReceipt } from './receipt-check';
import { type RequestViolation, sortViolations } from './request-violation';
import { type RejectedVariable, sortRejections } from './variable-rejection';
import { verdictDigestOf, type WriteVerdict } from './verdict';

/** Freshness rules V1–V5 of docs/guard.md for one variable of a write that is not historical attribution. */
function judgeVariable(
  variable: SessionVariable,
  request: ResidualWriteRequest,
  declared: ReadonlySet<string>,
  policy: ResolvedGuardPolicy,
): RejectedVariable[] {
  const { name } = variable;
  switch (variable.freshness) {
    case VariableFreshness.FRESH_GENERATED:
      // V1: "fresh" means generated in this write's epoch.
      if (variable.sourceEpoch === request.generationEpoch) return [];
      return [
        {
          name,
          reason: 'EPOCH_COLLAPSE',
          detail: `a freshly generated variable must come from the write's generation epoch ${request.generationEpoch}, not epoch ${variable.sourceEpoch}`,
        },
      ];
    case VariableFreshness.IMMUTABLE_CONSTANT:
      // V5: only constants the record's scope declares count.
      if (declared.has(name)) return [];
      return [
        {
          name,
          reason: 'UNDECLARED_IMMUTABLE_CONSTANT',
          detail: 'claimed as an immutable constant but not listed in declaredImmutableConstants',
        },
      ];
    case VariableFreshness.VERIFIED_INHERITED:
      // V2, V3: a verified inherited variable must carry a valid receipt.
      if (variable.receipt === undefined) {
        return [
          { name, reason: 'MISSING_RECEIPT', detail: 'claimed as re-verified but carries no freshness probe receipt' },
        ];
      }
      return checkReceipt(variable.receipt, variable.value, request.boundary, policy).map((f) => ({ name, ...f }));
    case VariableFreshness.UNVERIFIED_INHERITED:
      // V4: reject; the instance must re-verify or strip the inherited component.
      return [
        {
          name,
          reason: 'UNVERIFIED_INHERITED',
          detail: `inherited from epoch ${variable.sourceEpoch} and not re-verified; re-probe it or strip it from the write`,
        },
      ];
  }
}

/**
 * Epoch sanity of one inherited variable (`VERIFIED_INHERITED` or `UNVERIFIED_INHERITED`), rules
 * E1–E3 in docs/guard.md. Applies to every write, `HISTORICAL_ATTRIBUTION` included: that
 * exemption is from re-verification ("documenting the predecessor's state rather than asserting
 * current truth", rule V6), and a record documenting a predecessor's state needs a
 * named predecessor and values from its epoch or before. `IMMUTABLE_CONSTANT` and
 * `FRESH_GENERATED` variables are not inherited context, so these rules do not look at them.
 */
function judgeInheritedEpoch(variable: SessionVariable, request: ResidualWriteRequest): RejectedVariable[] {
  if (
    variable.freshness !== VariableFreshness.VERIFIED_INHERITED &&
    variable.freshness !== VariableFreshness.UNVERIFIED_INHERITED
  ) {
    return [];
  }
  const { name, sourceEpoch } = variable;
  const { predecessorEpoch, predecessorSessionId } = request.boundary;
  const rejections: RejectedVariable[] = [];
  // E1: an inherited value is a historical pointer from a past epoch.
  if (sourceEpoch >= request.generationEpoch) {
    rejections.push({
      name,
      reason: 'INHERITED_EPOCH_NOT_PAST',
      detail: `inherited from epoch ${sourceEpoch}, which is not before the write's generation epoch ${request.generationEpoch}; a value from this epoch is FRESH_GENERATED, and none can come from a later one`,
    });
  }
  if (predecessorEpoch === undefined || predecessorSessionId === undefined) {
    // E3: a cold start has zero inherited context.
    rejections.push({
      name,
      reason: 'INHERITED_WITHOUT_PREDECESSOR',
      detail:
        'marked as inherited, but the boundary names no predecessor (a cold start has no inherited context); name the predecessor session and epoch, or regenerate the value',
    });
  } else if (sourceEpoch > predecessorEpoch) {
    // E2: valid only at the predecessor's termination epoch, so no later.
    rejections.push({
      name,
      reason: 'INHERITED_EPOCH_AFTER_PREDECESSOR',
      detail: `inherited from epoch ${sourceEpoch}, later than the predecessor ${predecessorSessionId}'s epoch ${predecessorEpoch}; the predecessor cannot hand over a value from after its own epoch`,
    });
  }
  return rejections;
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
 * The stale-state guard: decides whether a residual write may proceed (docs/guard.md,
 * "Rules").
 *
 * Per variable (freshness rules V1–V5, skipped for `HISTORICAL_ATTRIBUTION` writes, which
 * document a predecessor's state and carry no operational authority; the authority is bound into
 * the verdict digest): `FRESH_GENERATED` passes when its `sourceEpoch` is the write's
 * `generationEpoch`; `UNVERIFIED_INHERITED` is rejected; `VERIFIED_INHERITED` needs a valid
 * receipt (see `checkReceipt`); `IMMUTABLE_CONSTANT` passes only when declared.
 * Per inherited variable (epoch rules E1–E3, every authority): `sourceEpoch` is before
 * `generationEpoch`, at most `boundary.predecessorEpoch`, and the boundary names a predecessor
 * (a cold start has no inherited context). Constants are exempt: provably immutable, their
 * epoch does not matter (docs/guard.md, "Epochs of inherited variables").
 * Per request (always): `sessionId` is the active session, the boundary names a distinct
 * predecessor, `generationEpoch` exceeds `boundary.predecessorEpoch` when given, and the
 * boundary is not in the future. Rules and reasons: docs/guard.md.
 *
 * Pure and deterministic: reads no clock (`policy.nowMs` is "now"), and `verdictDigest`
 * depends only on the request's identity fields and the sorted (name, reason) pairs.
 *
 * @example
 * ```ts
 * const verdict = evaluateWrite(JSON.parse(body), {
 *   nowMs: Date.now(),
 *   maxReceiptAgeSeconds: DEFAULT_MAX_RECEIPT_AGE_SECONDS,
 * });
 * if (!verdict.isSafe) await publishRejection(verdict);
 * ```
 * @param request - a {@link ResidualWriteRequest} as untrusted JSON
 * @param policy - time window; `maxClockSkewSeconds` defaults to 5
 * @returns the verdict; lists sorted by (name or field, reason)
 * @throws {InvalidInputError} when the policy or the request is malformed (naming each field;
 *   a boundary giving only one of `predecessorSessionId` and `predecessorEpoch` is malformed);
 *   malformed input never yields a verdict
 */
export function evaluateWrite(request: unknown, policy: GuardPolicy): WriteVerdict {
  const resolved = resolveGuardPolicy(policy);
  return evaluateValidatedWrite(parseWriteRequest(request), resolved);
}

/**
 * {@link evaluateWrite} of a request and a policy already validated (the sealer's re-run of the
 * guard on a seal request it has just parsed): the same rules and verdict, no second parse.
 */
export function evaluateValidatedWrite(
  parsed: Validated<ResidualWriteRequest>,
  resolved: ResolvedGuardPolicy,
): WriteVerdict {
  const declared = new Set(parsed.declaredImmutableConstants);
  const historical = parsed.authority === Authority.HISTORICAL_ATTRIBUTION;
  const rejectedVariables = sortRejections(
    parsed.variablesUsed.flatMap((v) => [
      ...(historical ? [] : judgeVariable(v, parsed, declared, resolved)),
      ...judgeInheritedEpoch(v, parsed),
    ]),
  );
  const requestViolations = sortViolations(judgeRequest(parsed, resolved));
  return {
    isSafe: rejectedVariables.length === 0 && requestViolations.length === 0,
    rejectedVariables,
    requestViolations,
    verdictDigest: verdictDigestOf(parsed, rejectedVariables, requestViolations),
  };
}
