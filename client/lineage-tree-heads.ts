import { ResealError, SignerUnavailableError } from '../shared/errors';
import { decideLineageTreeHead, type LineageTreeHeadFinding } from '../shared/integrator/lineage-tree-head';
import type { ReadDeploymentChain } from '../shared/integrator/record-freshness';
import { checkpointOrigin } from '../shared/log/checkpoint-origin';
import { nodeSourceOf } from '../shared/log/node-source';
import type { NoteVerifierKey } from '../shared/log/note-key';
import { proveTreeConsistency } from '../shared/log/tree-consistency';
import { openCheckpoint, type VerifiedCheckpoint } from '../shared/log/verified-checkpoint';
import type { LineageStore } from '../shared/ports/lineage-store';
import { VerificationVerdict as V } from '../shared/seal/verification-verdict';
import type { DeploymentChainReader } from './deployment-chain-reader';

/** Dependencies of {@link LineageTreeHeads}. */
export interface LineageTreeHeadsDeps {
  readonly store: Pick<LineageStore, 'logHead' | 'readNodes'>;
  /** The log's verifier key (pinned, or read once from KMS `GetPublicKey`). */
  readonly key: () => Promise<NoteVerifierKey>;
  /** The deployment chain's reader, or `null` (a client that reads no deployment log: signed checkpoints alone vouch). */
  readonly chains: Pick<DeploymentChainReader, 'read'> | null;
}

/** A lineage tree head as read from the table, with the chain it was decided against (`null`: none read). */
export type ReadLineageTreeHead = LineageTreeHeadFinding & { readonly chain: ReadDeploymentChain | null };

/**
 * Reads a lineage's tree head and what vouches for it (`decideLineageTreeHead`,
 * shared/integrator/lineage-tree-head.ts; docs/deployment-log.md, "Clients"): the lineage's entry
 * in the index under the deployment checkpoint the chain reader verified against the policy, and
 * the head item's signed lineage checkpoint where one is stored (verified with the log key; never
 * outranking the index). The consistency proof between the two is built from the table's nodes and
 * checked against both roots, so a forged node only refuses. The head item's other fields (its
 * head-state MAC, frontier) vouch for nothing here: a client holds no `kms:VerifyMac` to rely on.
 */
export class LineageTreeHeads {
  readonly #deps: LineageTreeHeadsDeps;
  constructor(deps: LineageTreeHeadsDeps) {
    this.#deps = deps;
  }

  /** Whether heads are read against the deployment index (a chain reader is configured). */
  get readsIndex(): boolean {
    return this.#deps.chains !== null;
  }

  /**
   * The lineage's vouched tree head.
   *
   * @param chain - the deployment chain already read for this lineage (a recall reads it once,
   *   before asking), else it is read here when a chain reader is configured
   * @returns the finding: a `VOUCHED` head, `UNVOUCHED` (awaiting integration), or `REFUSED` (a
   *   chain that does not verify, a signed checkpoint that does not, or two histories)
   * @throws what the table reads throw, and `SignerUnavailableError` when the key cannot be read
   */
  async read(lineageId: string, chain?: ReadDeploymentChain | null): Promise<ReadLineageTreeHead> {
    const key = await this.#deps.key();
    const stored = await this.#deps.store.logHead(lineageId);
    let signed: VerifiedCheckpoint | null = null;
    if (stored?.checkpoint) {
      try {
        signed = openCheckpoint(stored.checkpoint, key, checkpointOrigin(key.name, lineageId));
      } catch (error) {
        if (!(error instanceof ResealError) || error instanceof SignerUnavailableError) throw error;
        return {
          kind: 'REFUSED',
          verdict: V.HASH_MISMATCH,
          reason: `the stored checkpoint does not verify: ${error.message}`,
          chain: chain ?? null,
        };
      }
    }
    return this.vouch(lineageId, signed, chain);
  }

  /**
   * {@link read} for a head item already read: `signed` is its signed lineage checkpoint, verified
   * by the caller, or `null` (none stored, or a head the sealer MAC'd).
   *
   * @param chain - the chain already read for this lineage, else read here when a chain reader is configured
   * @throws what the table reads throw, and `SignerUnavailableError` when the key cannot be read
   */
  async vouch(
    lineageId: string,
    signed: VerifiedCheckpoint | null,
    chain?: ReadDeploymentChain | null,
  ): Promise<ReadLineageTreeHead> {
    const key = await this.#deps.key();
    const origin = checkpointOrigin(key.name, lineageId);
    const read = chain !== undefined ? chain : this.#deps.chains ? await this.#deps.chains.read({ lineageId }) : null;
    const indexedSize =
      read && read.kind !== 'UNPUBLISHED' && read.kind !== 'REFUSED' && read.lineage ? read.lineage.treeSize : null;
    let consistency: unknown = null;
    if (signed && indexedSize !== null && indexedSize !== signed.size) {
      const [from, to] = signed.size < indexedSize ? [signed.size, indexedSize] : [indexedSize, signed.size];
      consistency = await proveTreeConsistency(
        from,
        to,
        nodeSourceOf((refs) => this.#deps.store.readNodes(lineageId, refs)),
      ).catch((error: unknown) => {
        // A node missing or unreadable: no proof, so the two heads are decided two histories.
        if (error instanceof ResealError) return null;
        throw error;
      });
    }
    return { ...decideLineageTreeHead({ origin, chain: read, signed, consistency }), chain: read };
  }
}
