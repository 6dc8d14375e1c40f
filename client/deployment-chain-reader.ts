import { IndexNodeMissingError, ResealError } from '../shared/errors';
import type { IndexKey } from '../shared/index/index-key';
import { type IndexKeyProof, proveIndexKey } from '../shared/index/prove-index-key';
import {
  DeploymentChainRefusal,
  type DeploymentChainRefused,
  type IndexClaim,
  verifyDeploymentAnchor,
  verifyDeploymentChain,
} from '../shared/integrator/deployment-chain';
import {
  checkKeptDeploymentCheckpoint,
  type KeptCheckpointFinding,
} from '../shared/integrator/kept-deployment-checkpoint';
import { verifyReAnchorChain } from '../shared/integrator/re-anchor-chain';
import { reAnchorTimeAfterCosignature } from '../shared/integrator/re-anchor-statement';
import { deploymentLeafHashIn } from '../shared/integrator/re-anchored-leaf';
import type { ReadDeploymentChain } from '../shared/integrator/record-freshness';
import { type Checkpoint, parseCheckpointBody } from '../shared/log/checkpoint';
import { proveConsistency } from '../shared/log/consistency-proof';
import { proveInclusion } from '../shared/log/inclusion-proof';
import { nodeSourceOf } from '../shared/log/node-source';
import { popCount } from '../shared/log/pop-count';
import { parseSignedNote } from '../shared/log/signed-note';
import { openCheckpoint } from '../shared/log/verified-checkpoint';
import { verifyInclusion } from '../shared/log/verify-inclusion';
import type { DeploymentLogReads } from '../shared/ports/deployment-log-reads';
import type { StoredDeploymentHead } from '../shared/ports/deployment-log-store';
import type { IndexNodeStore } from '../shared/ports/index-node-store';
import { quorumCosignedAt } from '../shared/witness/quorum-cosigned-at';
import type { CheckpointStore } from './checkpoint-store';
import type { FreshnessPolicy } from './freshness-policy';
import { chooseHeadNote } from './head-note';

/** The keys a freshness chain is read for: a lineage, and optionally one of its residual ids. */
export interface FreshnessKeys {
  readonly lineageId: string;
  readonly residualId?: string;
}

/**
 * What a verified chain was read from, for a receipt that carries it (docs/verifiable-log.md,
 * "Receipts"): the published note, the index root of its last leaf with the leaf's inclusion
 * proof, and the index claims for the keys asked.
 */
export interface DeploymentChainEvidence {
  readonly note: string;
  readonly indexRoot: Uint8Array;
  readonly inclusion: readonly Uint8Array[];
  readonly lineage: IndexClaim;
  readonly residual: IndexClaim | null;
}

/**
 * A deployment chain read once ({@link DeploymentChainReader.open}): the verified finding for the
 * keys asked, what it was read from (`null` when the index claims were not read), and the same
 * chain with a residual id's index entry proven under the same deployment checkpoint (the head is
 * not read again; a chain that was refused or unpublished stays as it was).
 */
export interface DeploymentChainRead {
  readonly chain: ReadDeploymentChain;
  readonly evidence: DeploymentChainEvidence | null;
  readonly withResidual: (residualId: string) => Promise<ReadDeploymentChain>;
}

/** Options of {@link DeploymentChainReader.open}. */
export interface OpenOptions {
  /**
   * Read the deployment head eventually consistent (half a read unit; it may lag by about a
   * second): its `published` note is authenticated by its signature and its age judged by the
   * policy, so a stale copy can only make a record read as awaiting integration a moment longer;
   * a copy that is absent or refused is read again strongly before anything is refused
   * (docs/deployment-log.md, "Clients"). For recalls, and a wait's proofs (which decide a finding
   * against the copy again on a strong read). @default false
   */
  readonly eventual?: boolean;
}

/** Dependencies of {@link DeploymentChainReader}. */
export interface DeploymentChainReaderDeps {
  /** The deployment log's items (`DynamoDBDeploymentLogStore`). */
  readonly log: DeploymentLogReads;
  /** The index nodes (`DynamoDBIndexNodeStore`); each one read is re-hashed against its address. */
  readonly index: IndexNodeStore;
  /** The policy, resolved once (the default one needs the log key). */
  readonly policy: () => Promise<FreshnessPolicy>;
  /** Clock, ms since the Unix epoch. */
  readonly nowMs: () => number;
  /**
   * Where the newest deployment checkpoint this client authenticated is kept, keyed by the log's
   * origin `reseal/<stackName>` (docs/verifiable-log.md, "Checkpoints the client keeps"); every
   * chain is compared with it first ({@link DeploymentChainReader.compareKept}), so a table rolled
   * back behind it is refused. Absent or `null`: nothing is kept, each chain stands alone.
   */
  readonly kept?: CheckpointStore | null;
}

/** The size a note claims, read without trusting it (only to choose which leaf and proof to read); `null` when unreadable. */
function claimedSize(note: string): number | null {
  try {
    return parseCheckpointBody(parseSignedNote(note).text).size;
  } catch (error) {
    if (error instanceof ResealError) return null;
    throw error;
  }
}

/**
 * The last leaf of the note's tree from the head item alone, when the note is of the head's size
 * (docs/deployment-log.md, "Storage"): the head's `indexRoot` and, as the leaf's inclusion proof,
 * its `frontier` (the compact range of the first `size − 1` leaves: read right to left, the path
 * of leaf `size − 1`), so no leaf item and no node is read. Taken only when that proof leads to
 * the root the note claims (its signature is checked after, with the chain) and the head names no
 * re-anchor (whose leaf hash differs); else `null`, and the leaf and nodes are read as stored, so
 * an edited head field costs reads, never a refusal the stored items would not give.
 */
function lastLeafFromHead(
  head: StoredDeploymentHead,
  note: string,
): { readonly indexRoot: Uint8Array; readonly inclusion: Uint8Array[] } | null {
  if (head.reAnchor) return null;
  let claimed: Checkpoint;
  try {
    claimed = parseCheckpointBody(parseSignedNote(note).text);
  } catch (error) {
    if (error instanceof ResealError) return null;
    throw error;
  }
  const hex = /^[0-9a-f]{64}$/;
  if (claimed.size !== head.size || claimed.size < 1 || !hex.test(head.indexRoot)) return null;
  if (head.frontier.length !== popCount(claimed.size - 1) || !head.frontier.every((h) => hex.test(h))) return null;
  const indexRoot = Uint8Array.from(Buffer.from(head.indexRoot, 'hex'));
  const inclusion = head.frontier.map((h) => Uint8Array.from(Buffer.from(h, 'hex'))).reverse();
  const holds = verifyInclusion({
    leafIndex: claimed.size - 1,
    treeSize: claimed.size,
    leafHash: deploymentLeafHashIn(indexRoot, null),
    proof: inclusion,
    rootHash: claimed.rootHash,
  });
  return holds ? { indexRoot, inclusion } : null;
}

/**
 * What a `DEPLOYMENT_ROLLBACK` under `quorum none` means and what to do (docs/deployment-log.md,
 * "Clients", the kept checkpoint under an unwitnessed policy): no witness dates either checkpoint,
 * so the client cannot tell the table rolled back from a head it was shown and kept of a history
 * since lost (a replayed head shown to it while fresh, or one kept before a restore).
 */
function unwitnessedRollbackAdvice(origin: string, keptSize: number | null): string {
  return `. Under quorum none no witness dates either checkpoint, so this may also be a head this client was shown and kept of a history since lost (a table writer's replayed head while this client was fresh, or a checkpoint kept before a restore): every read of this log is refused until the current history grows past ${keptSize ?? 'the kept size'}. The operator confirms whether the table was restored or re-anchored (the backup's record, CloudTrail); if it was, the user removes the key ${origin} from the checkpoint store (the next read keeps the current checkpoint); if not, treat the table as rolled back`;
}

/**
 * Reads a freshness chain from the table for a lineage (and a residual id), and verifies it
 * (docs/deployment-log.md, "Clients"): the deployment head's `published` checkpoint, the index
 * root of its last leaf with the leaf's inclusion proof, and the index proofs, each node re-hashed
 * as it is read. Everything read is a claim `verifyDeploymentChain` checks with the policy's keys,
 * so a table writer can hide an item (the chain is then refused or unpublished) but not forge one.
 */
export class DeploymentChainReader {
  readonly #deps: DeploymentChainReaderDeps;
  /**
   * The last leaf read for a head item as read (one object per {@link open}) and a note: the
   * chain, the kept comparison and the store's update each check the same note against it, so it
   * is read once per `open`, never again for the same head (a new read of the head is a new key).
   */
  readonly #lastLeaves = new WeakMap<
    StoredDeploymentHead,
    Map<string, Promise<{ readonly indexRoot: Uint8Array; readonly inclusion: Uint8Array[] }>>
  >();
  constructor(deps: DeploymentChainReaderDeps) {
    this.#deps = deps;
  }

  /**
   * Whether this reader keeps the deployment checkpoint it authenticates (a checkpoint store):
   * then every chain it reads was compared with the one kept before, and a rollback behind it is
   * refused (docs/verifiable-log.md, "Checkpoints the client keeps").
   */
  get keepsCheckpoint(): boolean {
    return Boolean(this.#deps.kept);
  }

  /** The policy chains are checked against. */
  policy(): Promise<FreshnessPolicy> {
    return this.#deps.policy();
  }

  /**
   * What the deployment head item holds now, as one string (its size, checkpoint, published note
   * and re-anchor statement), read eventually consistent where the store can (`peekHead`): a wait
   * proves a chain again only when this moved (docs/deployment-log.md, "Clients"). Nothing is
   * verified here; a table writer can change it at will, which costs the waiter a proof, never an
   * answer. `null` when the table holds no head.
   *
   * @throws what the table read throws (an outage)
   */
  async headMark(): Promise<string | null> {
    const { log } = this.#deps;
    const head = await (log.peekHead ? log.peekHead() : log.readHead());
    return head === null ? null : JSON.stringify([head.size, head.checkpoint, head.published, head.reAnchor ?? null]);
  }

  /**
   * Reads and verifies the chain for `keys`.
   *
   * @returns the verified finding (`PROVEN`, `ABSENT`, `REFUSED`), or `UNPUBLISHED` when the
   *   table holds no published deployment checkpoint under an unwitnessed policy (under a
   *   witnessed one that is `REFUSED`, `POLICY_NOT_MET`)
   * @throws what the table reads throw (an outage), never for a forged or hidden item
   */
  async read(keys: FreshnessKeys): Promise<ReadDeploymentChain> {
    return (await this.readWithEvidence(keys)).chain;
  }

  /**
   * {@link read}, with what the chain was read from when the index claims were read (the
   * checkpoint and its leaf held), else `evidence: null`.
   *
   * @throws what the table reads throw (an outage), never for a forged or hidden item
   */
  async readWithEvidence(
    keys: FreshnessKeys,
  ): Promise<{ readonly chain: ReadDeploymentChain; readonly evidence: DeploymentChainEvidence | null }> {
    const opened = await this.open(keys);
    return { chain: opened.chain, evidence: opened.evidence };
  }

  /**
   * Reads and verifies the chain for `keys` once (docs/deployment-log.md, "Clients"): the
   * deployment head, its checkpoint and its last leaf are read here and nowhere again, and
   * {@link DeploymentChainRead.withResidual} proves a residual id's index entry under that same
   * checkpoint. A recall or a walk that learns the residual id only from the record it proved thus
   * checks it against the very deployment checkpoint it read before asking.
   *
   * @throws what the table reads throw (an outage), never for a forged or hidden item
   */
  async open(keys: FreshnessKeys, options: OpenOptions = {}): Promise<DeploymentChainRead> {
    const { log } = this.#deps;
    if (options.eventual && log.peekHead) {
      const copy = await log.peekHead();
      // A copy a second old can be absent, or older than the kept checkpoint or the policy's
      // window: only a strongly consistent read may refuse, so any refusal is read again.
      if (copy !== null) {
        const read = await this.#openAt(keys, copy);
        if (read.chain.kind !== 'REFUSED') return read;
      }
    }
    return this.#openAt(keys, await log.readHead());
  }

  /** {@link open} on the head item as read (`null`: none). */
  async #openAt(keys: FreshnessKeys, head: StoredDeploymentHead | null): Promise<DeploymentChainRead> {
    const settled = (chain: ReadDeploymentChain): DeploymentChainRead => ({
      chain,
      evidence: null,
      withResidual: async () => chain,
    });
    const policy = await this.#deps.policy();
    if (head === null) {
      const keptOnly = await this.#keptWithoutHead(policy);
      if (keptOnly) return settled(keptOnly);
      // A witnessed deployment always publishes a cosigned checkpoint, so its absence is a table
      // writer's deletion (or a witness that never cosigned): fail closed, else deleting the head
      // would turn a replayed answer into "awaiting integration" (docs/deployment-log.md, "Clients").
      if (policy.witnessing === 'WITNESSED') {
        return settled({
          kind: 'REFUSED',
          refusal: 'POLICY_NOT_MET',
          reason: 'no deployment checkpoint is published, and the policy asks for cosignatures: fail closed',
        });
      }
      return settled({
        kind: 'UNPUBLISHED',
        reason: 'no deployment checkpoint is published: nothing is integrated yet',
      });
    }
    const chosen = await chooseHeadNote(head, policy.witnessing, policy.policy, this.#deps.log);
    if (chosen.kind === 'FORK') return settled({ kind: 'REFUSED', refusal: 'FORK', reason: chosen.reason });
    if (chosen.kind === 'UNREADABLE')
      return settled({ kind: 'REFUSED', refusal: 'POLICY_NOT_MET', reason: chosen.reason });
    const note = chosen.note;
    if (note === null) {
      // The head item stands, so the log has integrated: a head without a checkpoint the policy can
      // check is an edited item, never "nothing integrated yet".
      return settled({
        kind: 'REFUSED',
        refusal: 'POLICY_NOT_MET',
        reason:
          'the deployment head holds no checkpoint the policy can check (its published note was removed): fail closed',
      });
    }
    const keptFinding = await this.#againstKept(head, note);
    if (keptFinding) return settled(keptFinding);
    const { indexRoot, inclusion } = await this.#lastLeaf(head, note);
    const base = {
      note,
      policy: policy.policy,
      maxAgeSeconds: policy.maxAgeSeconds,
      nowSeconds: Math.floor(this.#deps.nowMs() / 1000),
      indexRoot,
      inclusion,
      lineageId: keys.lineageId,
      // The statement of a re-anchored history: the last leaf commits to it, so hiding it refuses the chain.
      reAnchor: head.reAnchor ?? null,
    };
    // Check the checkpoint and the leaf first: index nodes are read only under a root that holds.
    const placeholder: IndexClaim = { kind: 'absence', proof: { kind: 'absence', siblings: [], leaf: null } };
    const anchored = verifyDeploymentChain({ ...base, lineage: placeholder });
    if (anchored.kind === 'REFUSED' && anchored.refusal !== 'INDEX_PROOF_INVALID') return settled(anchored);
    // The lineage's claim is read once, whatever residual ids are asked after it.
    let lineage: IndexClaim | undefined;
    /** The chain for the lineage and `residualId` (if any), every index claim proven under `indexRoot`. */
    const under = async (
      residualId: string | undefined,
    ): Promise<{ readonly chain: ReadDeploymentChain; readonly evidence: DeploymentChainEvidence | null }> => {
      try {
        lineage ??= await this.#claim(indexRoot, { kind: 'lineage', lineageId: keys.lineageId });
        const residual =
          residualId === undefined
            ? undefined
            : {
                residualId,
                claim: await this.#claim(indexRoot, { kind: 'residual', lineageId: keys.lineageId, residualId }),
              };
        const chain = verifyDeploymentChain({ ...base, lineage, ...(residual ? { residual } : {}) });
        return { chain, evidence: { note, indexRoot, inclusion, lineage, residual: residual?.claim ?? null } };
      } catch (error) {
        if (!(error instanceof IndexNodeMissingError)) throw error;
        return {
          chain: {
            kind: 'REFUSED',
            refusal: 'INDEX_PROOF_INVALID',
            reason: `an index node on the path is ${error.corrupt ? 'edited' : 'missing'} in the table: ${error.message}`,
          },
          evidence: null,
        };
      }
    };
    const first = await under(keys.residualId);
    return { ...first, withResidual: async (residualId) => (await under(residualId)).chain };
  }

  /**
   * Compares a deployment checkpoint the caller kept (a signed note of the log) with the one the
   * table publishes now (docs/deployment-log.md, "Re-anchor", "Clients"): the current checkpoint is
   * verified as for a chain (policy, re-anchor statement, last leaf), the kept one with the
   * policy's log key, and the consistency proof from the smaller to the larger is built from the
   * table's nodes when the kept one is the smaller. A kept checkpoint of the history a re-anchor
   * left is `EXPLAINED_BY_RE_ANCHOR`, with the statement, also when an earlier re-anchor left it and
   * the head's `reAnchorChain` links that statement to the current one ("A chain of re-anchors"),
   * when the kept note's cosignatures date it before that statement (or, uncosigned, it is no
   * larger than the current one); two histories nothing explains are `FORK`.
   *
   * @returns the finding, or `REFUSED` when the current chain or the kept note does not verify,
   *   or (`RE_ANCHOR_INVALID`) when the chain's re-anchor statement is dated after the quorum of the
   *   policy's witnesses cosigned the checkpoint carrying it (`reAnchorTimeAfterCosignature`)
   * @throws what the table reads throw
   */
  async compareKept(
    keptNote: string,
    read?: { readonly head: StoredDeploymentHead; readonly note: string },
  ): Promise<
    | KeptCheckpointFinding
    | { readonly kind: 'REFUSED'; readonly reason: string; readonly refusal?: DeploymentChainRefusal }
  > {
    const policy = await this.#deps.policy();
    // `read`: the head item and note a chain is answered from, compared as read (not read again).
    const head = read ? read.head : await this.#deps.log.readHead();
    const chosen = read
      ? ({ kind: 'NOTE', note: read.note } as const)
      : head === null
        ? null
        : await chooseHeadNote(head, policy.witnessing, policy.policy, this.#deps.log);
    if (chosen?.kind === 'FORK') return { kind: 'REFUSED', reason: `FORK: ${chosen.reason}` };
    if (chosen?.kind === 'UNREADABLE') return { kind: 'REFUSED', reason: `POLICY_NOT_MET: ${chosen.reason}` };
    const note = chosen === null ? null : chosen.note;
    if (head === null || note === null) return { kind: 'REFUSED', reason: 'no deployment checkpoint is published' };
    const anchored = await this.#anchor(head, note, policy);
    if (anchored.kind === 'REFUSED') return { kind: 'REFUSED', reason: `${anchored.refusal}: ${anchored.reason}` };
    const current = anchored.checkpoint;
    // The statement is dated no later than the witnesses cosigned the checkpoint carrying it ("What clients see").
    const lateStatement = anchored.reAnchor
      ? reAnchorTimeAfterCosignature(anchored.reAnchor.timeSeconds, quorumCosignedAt(note, policy.policy))
      : null;
    if (lateStatement)
      return {
        kind: 'REFUSED',
        refusal: DeploymentChainRefusal.RE_ANCHOR_INVALID,
        reason: `RE_ANCHOR_INVALID: ${lateStatement}`,
      };
    const key = policy.policy.logs.find((log) => log.key.name === current.origin)?.key;
    if (!key) return { kind: 'REFUSED', reason: `the policy names no log of origin ${current.origin}` };
    let kept: Checkpoint;
    try {
      kept = openCheckpoint(keptNote, key, current.origin);
    } catch (error) {
      if (!(error instanceof ResealError)) throw error;
      return { kind: 'REFUSED', reason: `the kept checkpoint is not one of the log's: ${error.message}` };
    }
    let consistency: Uint8Array[] = [];
    if (kept.size < current.size && kept.size > 0) {
      try {
        consistency = await proveConsistency(
          kept.size,
          current.size,
          nodeSourceOf((refs) => this.#deps.log.readNodes(refs)),
        );
      } catch (error) {
        if (!(error instanceof ResealError)) throw error;
      }
    }
    // The earlier re-anchors, each verified with the log key: a kept checkpoint of an older history is explained through them.
    const earlier = anchored.reAnchor ? verifyReAnchorChain(head.reAnchorChain ?? null, key, current.origin) : [];
    return checkKeptDeploymentCheckpoint({
      kept,
      current,
      reAnchor: anchored.reAnchor ?? null,
      earlier,
      consistency,
      // When the policy's witnesses vouch the kept checkpoint existed by: a statement explains only an older one.
      keptTimeSeconds: quorumCosignedAt(keptNote, policy.policy),
    });
  }

  /**
   * The chain's note against the kept deployment checkpoint of its origin (docs/verifiable-log.md,
   * "Checkpoints the client keeps"): `null` when nothing is kept, the note does not anchor (the
   * chain then refuses it), or it is the kept one or extends it (or a re-anchor the chain shows
   * explains the kept one), and then the newer is kept; else the chain's refusal, `DEPLOYMENT_ROLLBACK`
   * (the table serves an older checkpoint than one this client authenticated: `NOT_NEWEST`, both
   * sizes named) or `FORK` (two histories, or a kept note that no longer verifies).
   */
  async #againstKept(head: StoredDeploymentHead, note: string): Promise<DeploymentChainRefused | null> {
    const store = this.#deps.kept;
    if (!store) return null;
    const policy = await this.#deps.policy();
    const anchored = await this.#anchor(head, note, policy);
    if (anchored.kind === 'REFUSED') return null;
    const origin = anchored.checkpoint.origin;
    const keptNote = await store.load(origin);
    // Keep the note only if the store still holds what was compared, or something smaller: a
    // concurrent save of a newer checkpoint is never overwritten by this older decision.
    const size = anchored.checkpoint.size;
    const replaces = (current: string | null) =>
      current === null || current === keptNote || (claimedSize(current) ?? -1) < size;
    if (keptNote === null) {
      await store.save(origin, note, replaces);
      return null;
    }
    const finding = await this.compareKept(keptNote, { head, note });
    switch (finding.kind) {
      case 'CONSISTENT':
      case 'EXPLAINED_BY_RE_ANCHOR':
        if (
          keptNote !== note &&
          (finding.kind === 'EXPLAINED_BY_RE_ANCHOR' || (claimedSize(keptNote) ?? -1) < anchored.checkpoint.size)
        )
          await store.save(origin, note, replaces);
        return null;
      case 'NOT_NEWEST':
        return {
          kind: 'REFUSED',
          refusal: DeploymentChainRefusal.DEPLOYMENT_ROLLBACK,
          reason: `${finding.reason} (kept in the checkpoint store, key ${origin})${policy.witnessing === 'UNWITNESSED' ? unwitnessedRollbackAdvice(origin, claimedSize(keptNote)) : ''}`,
        };
      case 'FORK':
        return {
          kind: 'REFUSED',
          refusal: DeploymentChainRefusal.FORK,
          reason: `against the kept checkpoint: ${finding.reason}`,
        };
      default:
        return {
          kind: 'REFUSED',
          refusal: ('refusal' in finding && finding.refusal) || DeploymentChainRefusal.FORK,
          reason: `the kept deployment checkpoint (key ${origin}) cannot be compared: ${finding.reason}`,
        };
    }
  }

  /**
   * A table that publishes no deployment head while this client kept a checkpoint of the policy's
   * log: the head item was deleted (docs/verifiable-log.md, "Checkpoints the client keeps"),
   * `DEPLOYMENT_ROLLBACK`, never "nothing integrated yet"; `null` when nothing is kept.
   */
  async #keptWithoutHead(policy: FreshnessPolicy): Promise<DeploymentChainRefused | null> {
    const store = this.#deps.kept;
    if (!store) return null;
    for (const log of policy.policy.logs) {
      const keptNote = await store.load(log.key.name);
      if (keptNote === null) continue;
      return {
        kind: 'REFUSED',
        refusal: DeploymentChainRefusal.DEPLOYMENT_ROLLBACK,
        reason: `the table publishes no deployment checkpoint, but this client kept checkpoint ${claimedSize(keptNote) ?? '(unreadable)'} of ${log.key.name}: the deployment head was deleted or rolled back`,
      };
    }
    return null;
  }

  /**
   * `note` checked as the deployment head's checkpoint under `policy` (`verifyDeploymentAnchor`:
   * the policy, the re-anchor statement, the last leaf holding the index root), the one check the
   * chain, the kept-checkpoint comparison and the store's update share.
   */
  async #anchor(
    head: StoredDeploymentHead,
    note: string,
    policy: FreshnessPolicy,
  ): Promise<ReturnType<typeof verifyDeploymentAnchor>> {
    return verifyDeploymentAnchor({
      note,
      policy: policy.policy,
      maxAgeSeconds: policy.maxAgeSeconds,
      nowSeconds: Math.floor(this.#deps.nowMs() / 1000),
      ...(await this.#lastLeaf(head, note)),
      reAnchor: head.reAnchor ?? null,
    });
  }

  /**
   * The index root the note's last leaf commits to, as the table claims it (the leaf item, else
   * the head's own root when the head is of the note's size), and that leaf's inclusion proof
   * from the stored nodes: both checked against the note by `verifyDeploymentAnchor`, never
   * trusted. An empty root and proof when the note names no leaf.
   */
  #lastLeaf(
    head: StoredDeploymentHead,
    note: string,
  ): Promise<{ readonly indexRoot: Uint8Array; readonly inclusion: Uint8Array[] }> {
    let notes = this.#lastLeaves.get(head);
    if (!notes) {
      notes = new Map();
      this.#lastLeaves.set(head, notes);
    }
    let read = notes.get(note);
    if (!read) {
      read = this.#readLastLeaf(head, note);
      notes.set(note, read);
      // An outage is not remembered: the next call reads again.
      read.catch(() => notes.delete(note));
    }
    return read;
  }

  async #readLastLeaf(
    head: StoredDeploymentHead,
    note: string,
  ): Promise<{ readonly indexRoot: Uint8Array; readonly inclusion: Uint8Array[] }> {
    const size = claimedSize(note);
    const last = size !== null && size > 0 ? size - 1 : null;
    if (last === null) return { indexRoot: new Uint8Array(0), inclusion: [] };
    const fromHead = lastLeafFromHead(head, note);
    if (fromHead) return fromHead;
    const rootHex = (await this.#deps.log.readLeafIndexRoot(last)) ?? (size === head.size ? head.indexRoot : null);
    return {
      indexRoot: rootHex ? Uint8Array.from(Buffer.from(rootHex, 'hex')) : new Uint8Array(0),
      inclusion: await this.#inclusion(last, last + 1),
    };
  }

  /** The inclusion proof of leaf `index` in a tree of `size` leaves; `[]` when a node is hidden (the verifier then refuses it). */
  async #inclusion(index: number, size: number): Promise<Uint8Array[]> {
    try {
      return await proveInclusion(
        index,
        size,
        nodeSourceOf((refs) => this.#deps.log.readNodes(refs)),
      );
    } catch (error) {
      if (error instanceof ResealError) return [];
      throw error;
    }
  }

  async #claim(root: Uint8Array, key: IndexKey): Promise<IndexClaim> {
    // Walks from a root the checkpoint committed to (a root of the wrong length was refused above).
    const proven: IndexKeyProof = await proveIndexKey(this.#deps.index, root, key);
    return proven.kind === 'presence'
      ? { kind: 'presence', entry: proven.entry, proof: proven.proof }
      : { kind: 'absence', proof: proven.proof };
  }
}
