import { InvalidInputError } from '../../shared/errors';
import { parseCheckpointBody } from '../../shared/log/checkpoint';
import type { NoteVerifierKey } from '../../shared/log/note-key';
import { parseSignedNote } from '../../shared/log/signed-note';
import type { NoteSigner } from '../../shared/ports/note-signer';
import type { WitnessStore } from '../../shared/ports/witness-store';
import { parseAddCheckpointRequest } from '../../shared/witness/add-checkpoint-request';
import { admitCheckpoint } from '../../shared/witness/admit-checkpoint';
import { cosign } from '../../shared/witness/cosign';
import { decideAddCheckpoint } from '../../shared/witness/decide-add-checkpoint';
import { decideReAnchor } from '../../shared/witness/decide-re-anchor';
import { parseReAnchorRequest } from '../../shared/witness/re-anchor-request';
import type { TrustedLogs } from '../../shared/witness/trusted-logs';
import type { WitnessRefusal } from '../../shared/witness/witness-refusal';
import {
  conflictResponse,
  cosignedResponse,
  refusalResponse,
  type WitnessResponse,
  WitnessStatus,
} from '../../shared/witness/witness-response';
import type { ServiceLogger } from '../common/service-logger';

/** What {@link WitnessService} needs. */
export interface WitnessServiceDeps {
  readonly store: WitnessStore;
  /** The witness's Ed25519 key; its `keyName` is the cosigner name. */
  readonly signer: NoteSigner;
  /** The logs it cosigns for (configuration, docs/witness.md "Configuration"). */
  readonly trusted: TrustedLogs;
  readonly logger: ServiceLogger;
  /** Milliseconds since the epoch; cosignature timestamps are its whole seconds. */
  readonly clock: () => number;
  /**
   * The operator's recovery keys (`RECOVERY_KEYS`, docs/witness.md, "re-anchor"): a re-anchor
   * statement must carry a signature by one of them. None (the default): every re-anchor is refused.
   */
  readonly recoveryKeys?: readonly NoteVerifierKey[];
}

const answer = (refusal: WitnessRefusal): WitnessResponse =>
  refusal.status === WitnessStatus.CONFLICT
    ? conflictResponse(refusal.currentSize ?? 0)
    : refusalResponse(refusal.status, refusal.reason);

/**
 * C2SP tlog-witness `add-checkpoint` (docs/witness.md): parse, admit, read the state of the
 * origin, decide, cosign, then save the new state on the condition that the state read still
 * holds. A lost race answers 409 with the size that won; a signature made for a state that was not
 * saved is never sent.
 */
export class WitnessService {
  readonly #deps: WitnessServiceDeps;
  constructor(deps: WitnessServiceDeps) {
    this.#deps = deps;
  }

  /**
   * The answer to one request body.
   * @throws what the store or the signer throws (an infrastructure failure: HTTP 500, nothing saved)
   */
  async addCheckpoint(body: string): Promise<WitnessResponse> {
    const { store, signer, trusted, logger, clock } = this.#deps;
    let request: ReturnType<typeof parseAddCheckpointRequest>;
    try {
      request = parseAddCheckpointRequest(body);
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      return refusalResponse(WitnessStatus.BAD_REQUEST, error.message);
    }
    const admitted = admitCheckpoint(request, trusted);
    if (admitted.kind === 'REFUSED') {
      logger.warn('add-checkpoint refused', { status: admitted.status, reason: admitted.reason });
      return answer(admitted);
    }
    const { origin, size } = admitted.checkpoint;
    logger.appendKeys({ origin, size, oldSize: admitted.oldSize });
    const stored = await store.read(origin);
    const decision = decideAddCheckpoint(stored, admitted);
    if (decision.kind === 'REFUSED') {
      // A 409 for the same size or a 422 may be evidence of a fork: the request is kept in the log.
      logger.warn('add-checkpoint refused', { status: decision.status, reason: decision.reason, note: request.note });
      return answer(decision);
    }
    const cosignature = await cosign(decision.body, Math.floor(clock() / 1000), signer);
    if (!(await store.replace(stored, decision.next))) {
      const current = await store.read(origin);
      logger.warn('add-checkpoint lost a race: the state changed after it was read', { currentSize: current?.size });
      return conflictResponse(current?.size ?? 0);
    }
    logger.info('cosigned', { size });
    return cosignedResponse([cosignature]);
  }

  /**
   * The answer to one re-anchor request body (docs/witness.md, "re-anchor"): decided by
   * `decideReAnchor`, then cosigned and saved exactly as `add-checkpoint` (one conditional write on
   * the state read; a lost race answers 409). Every answer is logged with the statement: a
   * re-anchor is the operator's act, kept on record.
   * @throws what the store or the signer throws (HTTP 500, nothing saved)
   */
  async reAnchor(body: string): Promise<WitnessResponse> {
    const { store, signer, trusted, logger, clock } = this.#deps;
    let request: ReturnType<typeof parseReAnchorRequest>;
    try {
      request = parseReAnchorRequest(body);
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      return refusalResponse(WitnessStatus.BAD_REQUEST, error.message);
    }
    let origin: string;
    try {
      origin = parseCheckpointBody(parseSignedNote(request.checkpoint).text).origin;
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      return refusalResponse(WitnessStatus.BAD_REQUEST, error.message);
    }
    const stored = await store.read(origin);
    const decision = decideReAnchor(stored, request, trusted, this.#deps.recoveryKeys ?? []);
    if (decision.kind === 'REFUSED') {
      logger.warn('re-anchor refused', {
        status: decision.status,
        reason: decision.reason,
        statement: request.statement,
      });
      return answer(decision);
    }
    const cosignature = await cosign(decision.body, Math.floor(clock() / 1000), signer);
    if (!(await store.replace(stored, decision.next))) {
      const current = await store.read(origin);
      logger.warn('re-anchor lost a race: the state changed after it was read', { currentSize: current?.size });
      return conflictResponse(current?.size ?? 0);
    }
    logger.warn("re-anchored: the witness left the history it cosigned, on the operator's statement", {
      origin,
      fromSize: stored?.size,
      size: decision.next.size,
      statement: request.statement,
    });
    return cosignedResponse([cosignature]);
  }
}
