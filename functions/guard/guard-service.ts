import type { WriteBodyDigests } from '../../shared/authorship/request-signing-digest';
import { writeSignatureProblem } from '../../shared/authorship/write-signature';
import { FORMAT_VERSION } from '../../shared/canonical/hash-domain';
import { parseStrictJson } from '../../shared/canonical/strict-json';
import { StrictJsonError, StrictJsonFailure } from '../../shared/canonical/strict-json-error';
import { CanonicalizationError, InvalidInputError, ResealError } from '../../shared/errors';
import { evaluateValidatedWrite } from '../../shared/guard/evaluate-write';
import { resolveGuardPolicy } from '../../shared/guard/policy';
import type { WriteVerdict } from '../../shared/guard/verdict';
import { RejectionReason } from '../../shared/pipeline/rejection-reason';
import { RejectionStage } from '../../shared/pipeline/rejection-stage';
import type { SealRequest } from '../../shared/pipeline/seal-request';
import type { EventPublisher } from '../../shared/ports/event-publisher';
import type { LineageStore, RejectionRecord } from '../../shared/ports/lineage-store';
import type { NoteSigner } from '../../shared/ports/note-signer';
import type { SealQueue } from '../../shared/ports/seal-queue';
import { Identifier } from '../../shared/schemas/identifier';
import type { Validated } from '../../shared/schemas/validated';
import { lineageOfTenant, tenantLineagePrefix } from '../../shared/tenancy/tenants';
import { acceptWriteRequest } from '../../shared/write/accept-write-request';
import { requestDigest } from '../../shared/write/request-digest';
import { parseWriteRequest, type ResidualWriteRequest } from '../../shared/write/write-request';
import { logInfrastructureFailure } from '../common/log-infrastructure-failure';
import { MetricName } from '../common/metric-name';
import type { PipelineMetrics } from '../common/pipeline-metrics';
import type { QueueMessage } from '../common/queue-message';
import { RefusalRecorder } from '../common/refusal-recorder';
import { rejectionRecord } from '../common/rejection-record';
import type { ServiceLogger } from '../common/service-logger';

/**
 * Largest `residual-writes` body the guard accepts, in UTF-8 bytes. A sealed record is stored as
 * one DynamoDB item (at most 400 KB) holding the request's payload, manifest and variables, so
 * a larger body could never be sealed: it is refused up front as `PAYLOAD_TOO_LARGE`.
 */
export const MAX_BODY_BYTES = 350_000;

/**
 * A refusal decided before the writer signature verified: anyone who may send to the queue can
 * provoke it, so it is stored without a statement and costs no `Sign` (docs/guard.md, "Refusals
 * at the queue").
 */
const UNSIGNED = { sign: false } as const;
/** A refusal of a request whose writer signature verified: signed with the guard key (one `Sign`). */
const SIGNED = { sign: true } as const;

/** One `residual-writes` message, as the guard needs it. */
export type GuardMessage = QueueMessage;

/** What happened to a message; every message ends in one of these (nothing dropped silently). */
export type GuardOutcome =
  | { readonly kind: 'ACCEPTED'; readonly verdict: WriteVerdict }
  | { readonly kind: 'REJECTED'; readonly reason: RejectionReason };

/** A message the guard accepted, screened and waiting to be forwarded to `seal-requests`. */
export interface GuardAccepted {
  readonly message: GuardMessage;
  readonly sealRequest: SealRequest;
}

/** What screening a message decided: settled (refused), or accepted and waiting to be forwarded. */
export type GuardScreening = { readonly outcome: GuardOutcome } | { readonly accepted: GuardAccepted };

/** Dependencies of {@link GuardService}, injected (ports, clock, policy). */
export interface GuardDeps {
  readonly store: LineageStore;
  readonly publisher: EventPublisher;
  readonly queue: SealQueue;
  /** Signs the guard's refusals (KMS Ed25519 guard key, key name `<logName>/guard`). */
  readonly signer: NoteSigner;
  /** The stack's log name (`reseal/<stackName>`), named by every signed refusal. */
  readonly logName: string;
  readonly metrics: PipelineMetrics;
  readonly logger: ServiceLogger;
  readonly clock: () => number;
  /** Oldest freshness receipt accepted, seconds (docs/guard.md, "Default receipt age"). */
  readonly maxReceiptAgeSeconds: number;
  /**
   * The tenants' queues, queue ARN → tenant id (docs/authorship.md, "Tenancy"): when given, a
   * write is accepted only from one of these queues and only for a lineage id beginning with
   * `<tenant>/`; anything else is `TENANT_MISMATCH`. Absent: one tenant, no such rule.
   */
  readonly tenantQueues?: ReadonlyMap<string, string>;
  /** Override of {@link MAX_BODY_BYTES} (tests). */
  readonly maxBodyBytes?: number;
}

/**
 * Per-message logic of the guard Lambda (docs/guard.md): parse, bind the tenant of the queue the
 * message came from when the stack has tenants (`TENANT_MISMATCH`, docs/authorship.md, "Tenancy"),
 * check the writer's signature and
 * its age against the SQS `SentTimestamp` (docs/authorship.md: `WRITER_SIGNATURE_INVALID`),
 * `evaluateWrite`, then forward an accepted write to `seal-requests` (with the message's SQS
 * `SenderId`) or record the refusal. Only a refusal decided after the writer signature verified
 * is signed with the guard key; every earlier one (oversized body, malformed JSON, schema
 * violation, bad signature) is recorded unsigned, so a queue sender cannot spend the account's
 * `Sign` quota (docs/guard.md, "Refusals at the queue").
 *
 * Permanent failures never throw (the message then counts as processed): malformed JSON, schema
 * violation (unknown fields, lone surrogates, a repeated member name, …), oversized body and
 * stale-state verdicts each become a rejection record plus a `ResidualRejected` event. The body
 * is read with `parseStrictJson`, so a repeated name (`"generationEpoch": 7, "generationEpoch": 8`)
 * is a `SCHEMA_VIOLATION` naming the key, never a verdict on whichever value a parser kept. Only infrastructure failures
 * (store, bus, queue, KMS) reject, after an error log line naming the failure, so SQS retries the
 * message and finally dead-letters it.
 */
export class GuardService {
  readonly #deps: GuardDeps;
  readonly #refusals: RefusalRecorder;
  constructor(deps: GuardDeps) {
    this.#deps = deps;
    this.#refusals = new RefusalRecorder(deps);
  }

  /**
   * One message, screened and (when accepted) forwarded on its own.
   * @throws on an infrastructure failure (logged first, with the error and its cause): the message is retried
   */
  async handle(message: GuardMessage): Promise<GuardOutcome> {
    const screening = await this.screen(message);
    if ('outcome' in screening) return screening.outcome;
    const [forwarded] = await this.forward([screening.accepted]);
    if (forwarded?.status !== 'fulfilled') throw forwarded?.reason;
    return forwarded.value;
  }

  /**
   * Parses and guards one message: a refusal is recorded and announced here; an accepted write is
   * returned for {@link forward}, so a batch's accepted writes go to `seal-requests` together.
   * @throws on an infrastructure failure (logged first, with the error and its cause): the message is retried
   */
  async screen(message: GuardMessage): Promise<GuardScreening> {
    return logInfrastructureFailure(
      this.#deps.logger,
      'guarding failed on an infrastructure error; the message will be retried',
      () => this.#screen(message),
    );
  }

  /**
   * Forwards accepted writes to `seal-requests` together (`SendMessageBatch`). Never rejects: one
   * result per write, in order; a write the queue did not take is logged at error and `rejected`
   * (its message is retried), the others are `ACCEPTED`, with no line of their own: the handler's
   * one `batch handled` line names them (docs/pipeline.md, "Logs and metrics").
   */
  async forward(accepted: readonly GuardAccepted[]): Promise<PromiseSettledResult<GuardOutcome>[]> {
    const { logger, metrics, queue } = this.#deps;
    if (accepted.length === 0) return [];
    const sent = await queue.enqueueBatch(accepted.map((a) => a.sealRequest));
    return accepted.map(({ message, sealRequest }, i): PromiseSettledResult<GuardOutcome> => {
      const { request, verdict } = sealRequest;
      const ids = { messageId: message.messageId, lineageId: request.lineageId, residualId: request.residualId };
      const result = sent[i];
      if (result?.status !== 'fulfilled') {
        const error: unknown = result?.reason ?? new Error('the queue returned no result for the write');
        logger.error('guarding failed on an infrastructure error; the message will be retried', {
          ...ids,
          error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
        });
        return { status: 'rejected', reason: error };
      }
      metrics.count(MetricName.WriteAccepted);
      return { status: 'fulfilled', value: { kind: 'ACCEPTED', verdict } };
    });
  }

  async #screen(message: GuardMessage): Promise<GuardScreening> {
    const { logger, clock, maxReceiptAgeSeconds } = this.#deps;
    const bodyBytes = Buffer.byteLength(message.body, 'utf8');
    const base = { message };
    if (bodyBytes > (this.#deps.maxBodyBytes ?? MAX_BODY_BYTES)) {
      // Still filed under its lineage when the body names one, so a writer waiting on it sees it.
      return this.#reject(
        { ...base, ...idsOf(message.body) },
        RejectionReason.PAYLOAD_TOO_LARGE,
        {
          issues: [{ path: '', message: `body is ${bodyBytes} bytes; at most ${MAX_BODY_BYTES}` }],
        },
        UNSIGNED,
      );
    }
    let json: unknown;
    try {
      json = parseStrictJson(message.body, 'residual write request');
    } catch (error) {
      if (!(error instanceof StrictJsonError)) throw error;
      const issues = error.issues.map((issue) => ({ path: issue.path, message: issue.message.slice(0, 512) }));
      if (error.failure === StrictJsonFailure.SYNTAX)
        return this.#reject(base, RejectionReason.MALFORMED_JSON, { issues }, UNSIGNED);
      // Valid JSON that the wire format refuses (a repeated name, excessive nesting).
      const ids = idsOutside(message.body, error);
      logger.appendKeys({ residualId: ids.residualId, lineageId: ids.lineageId });
      return this.#reject({ ...base, ...ids }, RejectionReason.SCHEMA_VIOLATION, { issues }, UNSIGNED);
    }
    const ids = looseIds(json);
    logger.appendKeys({ residualId: ids.residualId, lineageId: ids.lineageId });
    // The hand-written checks first (and the bodies' digests from them); the schema decides the rest.
    const accepted = acceptWriteRequest(json);
    let request: Validated<ResidualWriteRequest>;
    try {
      request = accepted?.request ?? parseWriteRequest(json);
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      return this.#reject(
        { ...base, ...ids },
        RejectionReason.SCHEMA_VIOLATION,
        { issues: [...error.issues] },
        UNSIGNED,
      );
    }
    // The tenant, from the queue AWS names, before the signature: a refusal anyone may provoke, so unsigned.
    const tenantProblem = tenantProblemOf(this.#deps.tenantQueues, message.eventSourceArn ?? null, request.lineageId);
    if (tenantProblem) {
      return this.#reject(
        { ...base, ...ids, requestDigest: requestDigestOrNull(request) },
        RejectionReason.TENANT_MISMATCH,
        { issues: [{ path: 'lineageId', message: tenantProblem }] },
        UNSIGNED,
      );
    }
    // Signature and age first, before any rule reads the request (docs/authorship.md, "Two refusals").
    const signatureProblem = signatureProblemOf(request, message.sentAtMs, accepted?.digests);
    if (signatureProblem) {
      return this.#reject(
        { ...base, ...ids, requestDigest: requestDigestOrNull(request) },
        RejectionReason.WRITER_SIGNATURE_INVALID,
        { issues: [{ path: 'writer', message: signatureProblem }] },
        UNSIGNED,
      );
    }
    const nowMs = clock();
    let verdict: WriteVerdict;
    try {
      // Validated once above: the guard's rules run on it without a second parse.
      verdict = evaluateValidatedWrite(request, resolveGuardPolicy({ nowMs, maxReceiptAgeSeconds }));
    } catch (error) {
      // The schema passed, so only an input the core still refuses (e.g. not canonicalizable) lands here.
      if (!(error instanceof ResealError)) throw error;
      const issues = 'issues' in error ? (error.issues as RejectionRecord['issues']) : [];
      return this.#reject(
        { ...base, ...ids },
        RejectionReason.SCHEMA_VIOLATION,
        { issues: issues.length > 0 ? issues : [{ path: '', message: error.message }] },
        SIGNED,
      );
    }
    if (!verdict.isSafe) {
      return this.#reject(
        { ...base, ...ids, requestDigest: requestDigestOrNull(request) },
        RejectionReason.STALE_STATE,
        {
          verdictDigest: verdict.verdictDigest,
          rejectedVariables: verdict.rejectedVariables,
          requestViolations: verdict.requestViolations,
        },
        SIGNED,
      );
    }
    return {
      accepted: {
        message,
        sealRequest: {
          formatVersion: FORMAT_VERSION,
          request,
          verdict,
          acceptedAtMs: nowMs,
          senderId: message.senderId ?? null,
        },
      },
    };
  }

  async #reject(
    context: {
      message: GuardMessage;
      lineageId?: string | null;
      residualId?: string | null;
      requestDigest?: string | null;
    },
    reason: RejectionReason,
    details: Partial<Pick<RejectionRecord, 'issues' | 'rejectedVariables' | 'requestViolations' | 'verdictDigest'>>,
    options: { readonly sign: boolean },
  ): Promise<GuardScreening> {
    const rejection = await this.#refusals.reject(
      rejectionRecord({
        stage: RejectionStage.GUARD,
        reason,
        message: context.message,
        lineageId: context.lineageId ?? null,
        residualId: context.residualId ?? null,
        verdictDigest: details.verdictDigest ?? null,
        requestDigest: context.requestDigest ?? null,
        ...(details.issues ? { issues: details.issues } : {}),
        ...(details.rejectedVariables ? { rejectedVariables: details.rejectedVariables } : {}),
        ...(details.requestViolations ? { requestViolations: details.requestViolations } : {}),
      }),
      options,
    );
    this.#deps.logger.warn('write rejected', {
      reason,
      verdictDigest: rejection.verdictDigest,
      bodyDigest: rejection.bodyDigest,
    });
    return { outcome: { kind: 'REJECTED', reason } };
  }
}

/**
 * Why a write may not go on from the queue it came from (docs/authorship.md, "Tenancy"), or `null`:
 * with tenants, the queue must be a tenant's and the lineage id must begin with `<tenant>/`.
 */
function tenantProblemOf(
  tenantQueues: ReadonlyMap<string, string> | undefined,
  eventSourceArn: string | null,
  lineageId: string,
): string | null {
  if (tenantQueues === undefined) return null;
  const tenant = eventSourceArn === null ? undefined : tenantQueues.get(eventSourceArn);
  if (tenant === undefined) {
    return `the write came from a queue of no tenant (${eventSourceArn ?? 'unnamed'}): send it to your tenant's residual-writes queue`;
  }
  if (lineageOfTenant(lineageId, tenant)) return null;
  return `lineage ${lineageId} is not of tenant ${tenant}: a write sent to tenant ${tenant}'s queue must name a lineage id beginning ${tenantLineagePrefix(tenant)}`;
}

/** Ids read from an unvalidated body, only when they are valid identifiers (they become keys). */
function looseIds(json: unknown): { lineageId: string | null; residualId: string | null } {
  const pick = (key: string) => {
    if (json === null || typeof json !== 'object' || Array.isArray(json)) return null;
    const value = (json as Record<string, unknown>)[key];
    return Identifier.safeParse(value).success ? (value as string) : null;
  };
  return { lineageId: pick('lineageId'), residualId: pick('residualId') };
}

/** Ids of a body that was not validated (e.g. too large), when it is JSON naming valid ones. */
function idsOf(body: string): { lineageId: string | null; residualId: string | null } {
  try {
    return looseIds(JSON.parse(body));
  } catch {
    return { lineageId: null, residualId: null };
  }
}

/**
 * Ids of a body refused by the strict parser for being ambiguous, read with `JSON.parse` only to
 * file the rejection under its lineage; an id that is itself a repeated name stays `null`.
 */
function idsOutside(body: string, error: StrictJsonError): { lineageId: string | null; residualId: string | null } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { lineageId: null, residualId: null };
  }
  const ids = looseIds(json);
  const repeated = new Set(error.issues.map((issue) => issue.path));
  return {
    lineageId: repeated.has('lineageId') ? null : ids.lineageId,
    residualId: repeated.has('residualId') ? null : ids.residualId,
  };
}

/**
 * {@link writeSignatureProblem} (over the bodies' `digests` when the hand-written checks of
 * `acceptWriteRequest` computed them, else computed there), with a request the canonical form
 * refuses (a payload nested to the depth limit, so its request is one level deeper) counted as a
 * signature that cannot verify.
 */
function signatureProblemOf(
  request: ResidualWriteRequest,
  receivedAtMs: number,
  digests: WriteBodyDigests | undefined,
): string | null {
  try {
    return writeSignatureProblem(request, receivedAtMs, digests);
  } catch (error) {
    if (!(error instanceof CanonicalizationError)) throw error;
    return `the writer signature cannot verify over a request the canonical form refuses: ${error.message}`;
  }
}

/**
 * `requestDigest` of a refused request, or `null` when the whole request cannot be canonicalized
 * (its payload alone was within the depth limit; the request around it is one level deeper).
 */
function requestDigestOrNull(request: ResidualWriteRequest): string | null {
  try {
    return requestDigest(request);
  } catch (error) {
    if (!(error instanceof CanonicalizationError)) throw error;
    return null;
  }
}
