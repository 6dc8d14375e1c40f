import { DeploymentLogConflictError, ReAnchorRefusedError, WitnessUnavailableError } from '../../shared/errors';
import { appendReAnchor } from '../../shared/integrator/deployment-append';
import { authenticateDeploymentHead } from '../../shared/integrator/deployment-head';
import { deploymentCheckpoint } from '../../shared/integrator/deployment-log-state';
import { carriedReAnchorChain } from '../../shared/integrator/re-anchor-chain';
import {
  futureReAnchorTime,
  type ReAnchorNotice,
  reAnchorNotice,
  verifyReAnchorStatement,
} from '../../shared/integrator/re-anchor-statement';
import { storedReAnchor } from '../../shared/integrator/stored-re-anchor';
import { addNoteSignature } from '../../shared/log/add-note-signature';
import { proveConsistency } from '../../shared/log/consistency-proof';
import { hashesEqual } from '../../shared/log/hashes-equal';
import type { NodeRef } from '../../shared/log/node-ref';
import { nodeSourceOf } from '../../shared/log/node-source';
import type { NoteVerifierKey } from '../../shared/log/note-key';
import { signCheckpoint } from '../../shared/log/sign-checkpoint';
import type { DeploymentLogStore, StoredDeploymentHead } from '../../shared/ports/deployment-log-store';
import type { NoteSigner } from '../../shared/ports/note-signer';
import { formatAddCheckpointRequest } from '../../shared/witness/add-checkpoint-request';
import { attachCosignatures } from '../../shared/witness/attach-cosignatures';
import { parseConflictSize } from '../../shared/witness/conflict-size';
import { checkPolicy } from '../../shared/witness/policy-check';
import { formatReAnchorRequest } from '../../shared/witness/re-anchor-request';
import type { ServiceLogger } from '../common/service-logger';
import type { IntegratorWitness } from './witness-submission';

/**
 * What a re-anchor needs of the integrator's dependencies (docs/deployment-log.md, "Re-anchor"):
 * the deployment log, the log key, the witness (`null`: none configured), the operator's recovery
 * keys (none: every re-anchor is refused), a logger and a clock (ms since the epoch).
 */
export interface ReAnchorDeps {
  readonly deployment: DeploymentLogStore;
  readonly signer: NoteSigner;
  readonly witness: IntegratorWitness | null;
  readonly recoveryKeys?: readonly NoteVerifierKey[];
  readonly logger: ServiceLogger;
  readonly clock: () => number;
}

/** What a re-anchor did (docs/deployment-log.md, "Re-anchor"). */
export interface ReAnchorReport {
  /** Leaves of the re-anchored log: the restored head's and the re-anchor leaf. */
  readonly size: number;
  /** The log's signed checkpoint of that size. */
  readonly checkpoint: string;
  /** The published note: cosigned by the witness when one is configured, else the signed checkpoint. */
  readonly published: string;
  /** The statement as stored (the operator's and the log's signatures), read back. */
  readonly reAnchor: ReAnchorNotice;
  /** What the witness answered: `null` without a witness. */
  readonly witnessStatus: number | null;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/**
 * The `reAnchorChain` of the head a re-anchor commits (docs/deployment-log.md, "Re-anchor", "A
 * chain of re-anchors"): the restored head's verified chain, then its own statement, if any.
 */
function chainAfter(
  read: StoredDeploymentHead | null,
  key: NoteVerifierKey,
  origin: string,
): { reAnchorChain?: string[] } {
  const previous = read ? storedReAnchor(read, key, origin) : null;
  const chain = [
    ...(carriedReAnchorChain(read, key, origin).reAnchorChain ?? []),
    ...(previous !== null && typeof previous === 'object' ? [previous.note] : []),
  ];
  return chain.length > 0 ? { reAnchorChain: chain } : {};
}

/**
 * Re-anchors the deployment log after a legitimate restore (docs/deployment-log.md, "Re-anchor"),
 * on the operator's statement:
 *
 * 1. the statement is checked **before** the log key signs anything: of this log's origin, signed
 *    by a configured recovery key, its `time` at most `MAX_RE_ANCHOR_TIME_AHEAD_SECONDS` after
 *    `clock`, and naming the authenticated stored head as `restored`;
 * 2. the log key adds its signature to the statement, the re-anchor leaf is appended to the stored
 *    head, and the checkpoint of that tree is signed;
 * 3. with a witness, the statement, checkpoint and consistency proof from the restored head are
 *    submitted to its `re-anchor` (which checks the recovery signature and that `lost` is its
 *    state), and the cosigned checkpoint must meet the policy; nothing is stored before that;
 * 4. the head item (with the statement) and the leaf are committed in one conditional write.
 *
 * @throws {ReAnchorRefusedError} when the statement, the stored head or the witness refuses (nothing stored)
 * @throws {WitnessUnavailableError} when the witness cannot be reached (nothing stored; retry)
 * @throws {DeploymentLogConflictError} when the head moved before the commit (retry)
 * @throws {LogStateError} when the stored head does not authenticate
 */
export async function reAnchorDeploymentLog(
  deps: ReAnchorDeps,
  key: NoteVerifierKey,
  operatorNote: string,
): Promise<ReAnchorReport> {
  const { deployment, signer, witness, logger, clock } = deps;
  const origin = signer.keyName;
  const recoveryKeys = deps.recoveryKeys ?? [];
  if (recoveryKeys.length === 0) throw new ReAnchorRefusedError('no recovery key is configured (RECOVERY_KEYS)');
  const operator = verifyReAnchorStatement(operatorNote, { origin, logKeys: null, recoveryKeys });
  if (operator.kind === 'REFUSED') throw new ReAnchorRefusedError(operator.reason);
  // A statement dated ahead would explain the re-anchored history's own checkpoints ("The statement").
  const future = futureReAnchorTime(operator.statement, Math.floor(clock() / 1000));
  if (future !== null) throw new ReAnchorRefusedError(future);
  const read = await deployment.readHead();
  const previous = authenticateDeploymentHead(read, key, origin);
  const { restored } = operator.statement;
  if (restored.size !== previous.size || !hashesEqual(restored.rootHash, previous.rootHash)) {
    throw new ReAnchorRefusedError(
      `the statement restores a head of ${restored.size} leaves, but the authenticated stored head holds ${previous.size} (or another root)`,
    );
  }
  const statementNote = await addNoteSignature(operatorNote, signer);
  const verified = verifyReAnchorStatement(statementNote, { origin, logKeys: [key], recoveryKeys });
  if (verified.kind === 'REFUSED') throw new ReAnchorRefusedError(verified.reason);
  const { state, completed } = appendReAnchor(previous, verified.hash);
  const note = await signCheckpoint(deploymentCheckpoint(origin, state), signer);
  let published = note;
  let witnessStatus: number | null = null;
  if (witness) {
    const submit = witness.client.reAnchor?.bind(witness.client);
    if (!submit) throw new ReAnchorRefusedError('the witness client takes no re-anchor');
    const added = new Map(completed.map((n) => [`${n.level}/${n.index}`, hex(n.hash)]));
    const nodes = nodeSourceOf(async (refs: readonly NodeRef[]) => {
      const stored = await deployment.readNodes(refs);
      return refs.map((ref, i) => added.get(`${ref.level}/${ref.index}`) ?? stored[i] ?? null);
    });
    const proof = previous.size === 0 ? [] : await proveConsistency(previous.size, state.size, nodes);
    let answer: { status: number; body: string };
    try {
      answer = await submit(formatReAnchorRequest({ statement: statementNote, checkpoint: note, proof }));
      // A retry after a lost commit: the witness already holds this very checkpoint (Ed25519 and the
      // statement are deterministic), so it is asked to cosign it again as the same tree.
      if (answer.status === 409 && parseConflictSize(answer.body) === state.size) {
        answer = await witness.client.addCheckpoint(
          formatAddCheckpointRequest({ oldSize: state.size, proof: [], note }),
        );
      }
    } catch (error) {
      throw new WitnessUnavailableError(`the witness is unreachable: ${(error as Error)?.message ?? error}`);
    }
    witnessStatus = answer.status;
    if (answer.status !== 200) {
      logger.error('the witness refused the re-anchor; nothing is stored', {
        status: answer.status,
        body: answer.body,
      });
      throw new ReAnchorRefusedError(`the witness answered ${answer.status}: ${answer.body.trim().slice(0, 512)}`);
    }
    published = attachCosignatures(note, answer.body);
    const check = checkPolicy({
      note: published,
      policy: witness.policy,
      maxAgeSeconds: witness.maxAgeSeconds,
      nowSeconds: Math.floor(clock() / 1000),
    });
    if (check.kind !== 'ACCEPTED') {
      throw new ReAnchorRefusedError(`the cosigned re-anchored checkpoint does not meet the policy: ${check.reason}`);
    }
  }
  const next: StoredDeploymentHead = {
    size: state.size,
    checkpoint: note,
    frontier: previous.frontier.map(hex),
    indexRoot: hex(state.indexRoot),
    published,
    reAnchor: statementNote,
    // The history re-anchored away from was itself re-anchored: its statement joins the chain.
    ...chainAfter(read, key, origin),
  };
  const leaf = {
    index: state.size - 1,
    indexRoot: hex(state.indexRoot),
    nodes: [...completed].sort((a, b) => a.level - b.level).map((n) => hex(n.hash)),
  };
  if (!(await deployment.append(read, next, leaf))) {
    throw new DeploymentLogConflictError('the head changed during the re-anchor; ask again');
  }
  const notice = reAnchorNotice(verified);
  logger.warn("the deployment log is re-anchored on the operator's statement", {
    reAnchor: { ...notice, note: undefined },
    size: state.size,
  });
  return { size: state.size, checkpoint: note, published, reAnchor: notice, witnessStatus };
}
