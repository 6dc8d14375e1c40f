import { ResealError } from '../../shared/errors';
import { authenticateDeploymentHead } from '../../shared/integrator/deployment-head';
import { type IndexRebuildResult, type RebuildLineage, rebuildIndex } from '../../shared/integrator/rebuild-index';
import { claimedLogState, emptyLogState, type LogState } from '../../shared/log/log-state';
import { MemoryMerkleTree } from '../../shared/log/memory-tree';
import type { NoteVerifierKey } from '../../shared/log/note-key';
import type { DeploymentLogStore } from '../../shared/ports/deployment-log-store';
import type { IndexNodeStore } from '../../shared/ports/index-node-store';
import type { LineageStore } from '../../shared/ports/lineage-store';
import { isIntact } from '../../shared/seal/is-intact';
import { checkRecordIntegrity } from '../../shared/seal/record-integrity';

/** Dependencies of {@link rebuildIndexFromTable}: the stores the integrator reads, and the log's public key. */
export interface IndexRebuildDeps {
  readonly lineages: Pick<LineageStore, 'logHead' | 'readChain'>;
  readonly deployment: Pick<DeploymentLogStore, 'readHead'>;
  readonly index: IndexNodeStore;
  /** The log key's verifier key; its name `reseal/<stackName>` is the deployment log's origin. */
  readonly key: NoteVerifierKey;
}

/** What the operator's index rebuild did, and the lineages it could not read. */
export interface IndexRebuildReport {
  /** The committed index root (the authenticated deployment head's last leaf), hex; `null` for an empty log. */
  readonly committedRoot: string | null;
  readonly result: IndexRebuildResult | null;
  /** Lineages left out of the rebuild, with why (a head that does not authenticate, a record that does not check). */
  readonly unreadable: readonly { readonly lineageId: string; readonly reason: string }[];
}

/**
 * The operator's index rebuild (docs/deployment-log.md, "Index rebuild"): the deployment head
 * authenticated as the integrator does it, every lineage's head read as claimed
 * (`claimedLogState`: well-formed, its root from its frontier) and its records from seq 0
 * re-hashed from their headers and checked against that root, then {@link rebuildIndex}: the
 * nodes the store lost are written only when the entries re-derived hash to the committed index
 * root, so no head item adds trust.
 *
 * @param lineageIds - every lineage of the table (the index may hold any of them)
 * @throws {LogStateError} when the deployment head does not authenticate; what the stores throw
 */
export async function rebuildIndexFromTable(
  deps: IndexRebuildDeps,
  lineageIds: readonly string[],
): Promise<IndexRebuildReport> {
  const { key } = deps;
  const previous = authenticateDeploymentHead(await deps.deployment.readHead(), key, key.name);
  if (previous.size === 0) return { committedRoot: null, result: null, unreadable: [] };
  const lineages: RebuildLineage[] = [];
  const unreadable: { lineageId: string; reason: string }[] = [];
  for (const lineageId of [...new Set(lineageIds)].sort()) {
    const read = await readLineage(deps, lineageId);
    if ('reason' in read) unreadable.push({ lineageId, reason: read.reason });
    else lineages.push(read);
  }
  const result = await rebuildIndex(deps.index, previous.indexRoot, lineages);
  return { committedRoot: Buffer.from(previous.indexRoot).toString('hex'), result, unreadable };
}

/** One lineage's records from seq 0 to its authenticated head, each checked, or why not. */
async function readLineage(
  deps: IndexRebuildDeps,
  lineageId: string,
): Promise<RebuildLineage | { readonly reason: string }> {
  const { lineages } = deps;
  let state: LogState;
  try {
    // The head as claimed (well-formed, its root from its frontier): the rebuild needs no key to
    // trust it, since nothing is written unless the re-derived entries hash to the signed index root.
    const stored = await lineages.logHead(lineageId);
    state = stored === null ? emptyLogState(lineageId) : claimedLogState(stored, lineageId);
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    return { reason: error.message };
  }
  if (state.size === 0) return { lineageId, records: [] };
  const raws = await lineages.readChain(lineageId, 0, state.size - 1);
  const tree = new MemoryMerkleTree();
  const records: RebuildLineage['records'][number][] = [];
  for (const raw of raws) {
    const intact = checkRecordIntegrity(raw);
    if (!isIntact(intact)) return { reason: `seq ${records.length} does not check: ${intact.reason}` };
    const { header } = intact.record;
    if (header.monotonicSequenceNumber !== records.length || header.lineageId !== lineageId) {
      return { reason: `seq ${records.length} is missing` };
    }
    tree.append(Buffer.from(intact.recordHash, 'hex'));
    records.push({
      residualId: header.residualId,
      recordHash: intact.recordHash,
      generationEpoch: header.generationEpoch,
      policyDigest: header.policyDigest ?? null,
    });
  }
  if (records.length !== state.size || Buffer.compare(tree.root(state.size), state.rootHash) !== 0) {
    return { reason: `the records do not hash to the head's root (size ${state.size})` };
  }
  return { lineageId, records };
}
