import { CheckpointFormatError, InvalidInputError, NoteFormatError } from '../errors';
import { checkIndexAbsence, checkIndexPresence } from '../index/check-index';
import { entryKey, type IndexEntry, type LineageIndexValue, type ResidualIndexValue } from '../index/index-entry';
import { INDEX_HASH_BYTES } from '../index/index-hash';
import type { IndexKey } from '../index/index-key';
import type { IndexProof } from '../index/index-proof';
import type { Checkpoint } from '../log/checkpoint';
import { verifyInclusion } from '../log/verify-inclusion';
import { checkPolicy, PolicyRefusal } from '../witness/policy-check';
import type { TlogPolicy } from '../witness/tlog-policy';
import {
  type ReAnchorNotice,
  reAnchorNotice,
  type VerifiedReAnchor,
  verifyReAnchorStatement,
} from './re-anchor-statement';
import { deploymentLeafHashIn } from './re-anchored-leaf';

/** What the index of the checkpoint's last leaf is claimed to hold for one key, with its proof. */
export type IndexClaim =
  | { readonly kind: 'presence'; readonly entry: IndexEntry; readonly proof: Uint8Array | IndexProof }
  | { readonly kind: 'absence'; readonly proof: Uint8Array | IndexProof };

/** Input of {@link verifyDeploymentChain}: everything untrusted, as read from the table. */
export interface DeploymentChainInput {
  /** The published deployment checkpoint: a signed note with its cosignature lines. */
  readonly note: string;
  readonly policy: TlogPolicy;
  /** Oldest acceptable quorum of cosignatures, seconds (a positive safe integer). */
  readonly maxAgeSeconds: number;
  /** The verifier's clock, POSIX seconds. */
  readonly nowSeconds: number;
  /** The index root the checkpoint's last leaf is claimed to commit to, 32 bytes. */
  readonly indexRoot: Uint8Array;
  /** The RFC 9162 inclusion proof of that leaf at index `size − 1` of the checkpoint's tree. */
  readonly inclusion: readonly Uint8Array[];
  /** The lineage the chain is about, and what the index holds for it. */
  readonly lineageId: string;
  readonly lineage: IndexClaim;
  /** Optionally a residual id of that lineage, and what the index holds for it. */
  readonly residual?: { readonly residualId: string; readonly claim: IndexClaim };
  /**
   * The re-anchor statement note the head item names, when it names one (docs/deployment-log.md,
   * "Re-anchor"): the checkpoint's last leaf is then checked as a re-anchored leaf of it.
   */
  readonly reAnchor?: string | null;
}

/** Why {@link verifyDeploymentChain} refuses a chain. */
export const DeploymentChainRefusal = {
  /** The note is malformed, not signed by a policy log, carries a forged cosignature, or lacks a quorum. */
  POLICY_NOT_MET: 'POLICY_NOT_MET',
  /** A quorum of valid cosignatures exists, but not within the maximum age (or it is from the future). */
  COSIGNATURES_TOO_OLD: 'COSIGNATURES_TOO_OLD',
  /** The index root is not the checkpoint's last leaf (or the checkpoint has no leaf). */
  LEAF_NOT_LAST: 'LEAF_NOT_LAST',
  /** An index proof does not hold against that root, or proves an entry of another key. */
  INDEX_PROOF_INVALID: 'INDEX_PROOF_INVALID',
  /** The re-anchor statement the table shows is malformed, of another log, or not signed by the log key. */
  RE_ANCHOR_INVALID: 'RE_ANCHOR_INVALID',
  /**
   * The head item's two log-signed notes are two histories (the smaller is not a prefix of the
   * larger), or the note and the deployment checkpoint the client kept are.
   */
  FORK: 'FORK',
  /**
   * The table serves a deployment checkpoint older than one the client kept, or none at all
   * (docs/verifiable-log.md, "Checkpoints the client keeps"): a rolled-back table. The reader adds it.
   */
  DEPLOYMENT_ROLLBACK: 'DEPLOYMENT_ROLLBACK',
} as const;
/** One of {@link DeploymentChainRefusal}. */
export type DeploymentChainRefusal = (typeof DeploymentChainRefusal)[keyof typeof DeploymentChainRefusal];

/** The checkpoint as the policy accepted it, and how fresh it is. */
export interface AcceptedDeploymentCheckpoint {
  readonly checkpoint: Checkpoint;
  /** Whether the policy asks for cosignatures at all (`false`: `quorum none`, the log alone). */
  readonly witnessed: boolean;
  /** The time as of which the quorum held, POSIX seconds; `null` when unwitnessed. */
  readonly quorumTime: number | null;
  /** `quorumTime + maxAgeSeconds`; `null` when unwitnessed. */
  readonly freshUntil: number | null;
  /**
   * The re-anchor the checkpoint's history continues from (docs/deployment-log.md, "Re-anchor"):
   * what the restore lost, when and why; `null` for a history never re-anchored. Absent in findings
   * built before re-anchors existed.
   */
  readonly reAnchor?: ReAnchorNotice | null;
}

/** Input of {@link verifyDeploymentAnchor}: the chain's input without the index claims. */
export type DeploymentAnchorInput = Omit<DeploymentChainInput, 'lineageId' | 'lineage' | 'residual'>;

/** The checkpoint meets the policy and its last leaf holds the index root: what the index proofs hang on. */
export interface AnchoredDeploymentCheckpoint extends AcceptedDeploymentCheckpoint {
  readonly kind: 'ANCHORED';
}

/** The chain holds and the index holds the lineage (and the residual id, when asked). */
export interface DeploymentChainProven extends AcceptedDeploymentCheckpoint {
  readonly kind: 'PROVEN';
  readonly lineage: LineageIndexValue;
  /** The residual id's entry, `null` when none was asked. */
  readonly residual: ResidualIndexValue | null;
}

/** The chain holds and proves that the index does not hold the lineage or the residual id, as of this checkpoint. */
export interface DeploymentChainAbsent extends AcceptedDeploymentCheckpoint {
  readonly kind: 'ABSENT';
  /** Which key is absent. */
  readonly absent: 'lineage' | 'residual';
  /** The lineage's entry when the lineage is present (and the residual id absent), else `null`. */
  readonly lineage: LineageIndexValue | null;
}

/** The chain does not hold: nothing of it may be acted on. */
export interface DeploymentChainRefused {
  readonly kind: 'REFUSED';
  readonly refusal: DeploymentChainRefusal;
  readonly reason: string;
}

/** What {@link verifyDeploymentChain} finds. */
export type DeploymentChainFinding = DeploymentChainProven | DeploymentChainAbsent | DeploymentChainRefused;

const refused = (refusal: DeploymentChainRefusal, reason: string): DeploymentChainRefused => ({
  kind: 'REFUSED',
  refusal,
  reason,
});

function requireSeconds(value: number, path: string, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new InvalidInputError('deployment chain', [{ path, message: `expected a safe integer of seconds ≥ ${min}` }]);
  }
}

/**
 * The re-anchor statement of the input, verified with the policy's key of the checkpoint's log:
 * `null` when none is named or the checkpoint predates its re-anchor leaf (then a plain leaf),
 * the statement, or a reason to refuse the chain.
 */
function checkedReAnchor(
  input: DeploymentAnchorInput,
  checkpoint: Checkpoint,
): VerifiedReAnchor | { readonly reason: string } | null {
  if (input.reAnchor === undefined || input.reAnchor === null) return null;
  const logKeys = input.policy.logs.filter((log) => log.key.name === checkpoint.origin).map((log) => log.key);
  const verified = verifyReAnchorStatement(input.reAnchor, { origin: checkpoint.origin, logKeys, recoveryKeys: null });
  if (verified.kind === 'REFUSED') return { reason: `the re-anchor statement is refused: ${verified.reason}` };
  return verified.statement.restored.size < checkpoint.size ? verified : null;
}

/** Checks one index claim about `key` against `root`; a reason when it does not hold. */
function checkClaim(root: Uint8Array, key: IndexKey, claim: IndexClaim): string | null {
  if (claim.kind === 'absence') {
    const finding = checkIndexAbsence(root, key, claim.proof);
    return finding ? `${finding.code}: ${finding.reason}` : null;
  }
  const proven = entryKey(claim.entry);
  // A presence proof holds for the entry's own key: it must be the key asked about.
  const same =
    proven.kind === key.kind &&
    proven.lineageId === key.lineageId &&
    (proven.kind === 'lineage' || (key.kind === 'residual' && proven.residualId === key.residualId));
  if (!same) return 'the proven entry is of another key';
  const finding = checkIndexPresence(root, claim.entry, claim.proof);
  return finding ? `${finding.code}: ${finding.reason}` : null;
}

/**
 * Verifies the anchor of a freshness chain (docs/deployment-log.md, "Clients", "Re-anchor"): the
 * deployment checkpoint meets the policy now (`checkPolicy`: log signature, a quorum of
 * cosignatures no older than the maximum age), a re-anchor statement shown is signed by the log,
 * and the index root is the checkpoint's **last** leaf (RFC 9162 inclusion at `size − 1`; a
 * re-anchored leaf of the statement when the checkpoint covers its re-anchor leaf). Pure.
 *
 * @returns `ANCHORED` with the accepted checkpoint (and its re-anchor notice), or `REFUSED`
 * @throws {InvalidInputError} only for a maximum age or clock that is not whole seconds
 */
export function verifyDeploymentAnchor(
  input: DeploymentAnchorInput,
): AnchoredDeploymentCheckpoint | DeploymentChainRefused {
  requireSeconds(input.maxAgeSeconds, 'maxAgeSeconds', 1);
  requireSeconds(input.nowSeconds, 'nowSeconds', 0);
  let accepted: ReturnType<typeof checkPolicy>;
  try {
    accepted = checkPolicy({
      note: input.note,
      policy: input.policy,
      maxAgeSeconds: input.maxAgeSeconds,
      nowSeconds: input.nowSeconds,
    });
  } catch (error) {
    // A malformed note or checkpoint body is the table's claim, refused as a value.
    if (error instanceof NoteFormatError || error instanceof CheckpointFormatError) {
      return refused(DeploymentChainRefusal.POLICY_NOT_MET, `the deployment checkpoint is malformed: ${error.message}`);
    }
    throw error;
  }
  if (accepted.kind === 'REFUSED') {
    return accepted.refusal === PolicyRefusal.QUORUM_STALE
      ? refused(DeploymentChainRefusal.COSIGNATURES_TOO_OLD, accepted.reason)
      : refused(DeploymentChainRefusal.POLICY_NOT_MET, `${accepted.refusal}: ${accepted.reason}`);
  }
  const { checkpoint } = accepted;
  const anchor = checkedReAnchor(input, checkpoint);
  if (anchor !== null && 'reason' in anchor) return refused(DeploymentChainRefusal.RE_ANCHOR_INVALID, anchor.reason);
  const root = input.indexRoot;
  if (!(root instanceof Uint8Array) || root.byteLength !== INDEX_HASH_BYTES) {
    return refused(DeploymentChainRefusal.LEAF_NOT_LAST, 'the index root is not 32 bytes');
  }
  const last =
    checkpoint.size > 0 &&
    verifyInclusion({
      leafIndex: checkpoint.size - 1,
      treeSize: checkpoint.size,
      leafHash: deploymentLeafHashIn(root, anchor?.hash),
      proof: input.inclusion,
      rootHash: checkpoint.rootHash,
    });
  if (!last) {
    return refused(
      DeploymentChainRefusal.LEAF_NOT_LAST,
      `the index root is not the last leaf (index ${checkpoint.size - 1}) of the deployment checkpoint of ${checkpoint.size}${anchor ? ', re-anchored by the statement shown' : ''}`,
    );
  }
  return {
    kind: 'ANCHORED',
    checkpoint,
    witnessed: input.policy.quorum.kind !== 'NONE',
    quorumTime: accepted.quorumTime,
    freshUntil: accepted.freshUntil,
    reAnchor: anchor ? reAnchorNotice(anchor) : null,
  };
}

/**
 * Verifies a freshness chain (docs/deployment-log.md, "Clients"): the deployment checkpoint and its
 * last leaf as {@link verifyDeploymentAnchor}, then the index proofs against that root for the
 * lineage (and the residual id) asked about. Pure; no new cryptography; never throws for a bad
 * note or proof.
 *
 * @returns `PROVEN` with the entries, `ABSENT` (a proof of absence as of this checkpoint), or
 *   `REFUSED` with a {@link DeploymentChainRefusal}; a re-anchored history's finding carries its
 *   `reAnchor` notice
 * @throws {InvalidInputError} only for a maximum age or clock that is not whole seconds
 */
export function verifyDeploymentChain(input: DeploymentChainInput): DeploymentChainFinding {
  const anchored = verifyDeploymentAnchor(input);
  if (anchored.kind === 'REFUSED') return anchored;
  const { kind: _anchored, ...base } = anchored;
  const root = input.indexRoot;
  const lineageKey: IndexKey = { kind: 'lineage', lineageId: input.lineageId };
  const lineageWrong = checkClaim(root, lineageKey, input.lineage);
  if (lineageWrong) {
    return refused(DeploymentChainRefusal.INDEX_PROOF_INVALID, `lineage ${input.lineageId}: ${lineageWrong}`);
  }
  if (input.residual) {
    const { residualId, claim } = input.residual;
    const residualKey: IndexKey = { kind: 'residual', lineageId: input.lineageId, residualId };
    const residualWrong = checkClaim(root, residualKey, claim);
    if (residualWrong) {
      return refused(DeploymentChainRefusal.INDEX_PROOF_INVALID, `residual ${residualId}: ${residualWrong}`);
    }
  }
  if (input.lineage.kind === 'absence') return { ...base, kind: 'ABSENT', absent: 'lineage', lineage: null };
  const lineage = input.lineage.entry.value as LineageIndexValue;
  if (!input.residual) return { ...base, kind: 'PROVEN', lineage, residual: null };
  if (input.residual.claim.kind === 'absence') return { ...base, kind: 'ABSENT', absent: 'residual', lineage };
  return { ...base, kind: 'PROVEN', lineage, residual: input.residual.claim.entry.value as ResidualIndexValue };
}
