import { ResealError, SignerUnavailableError } from '../shared/errors';
import { EMPTY_ROOT } from '../shared/log/merkle-hashing';
import type { IndexedTreeHead, LineageLogView } from '../shared/log/stored-lineage';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import type { DeploymentChainReader } from './deployment-chain-reader';
import { LogVerificationError } from './errors';
import type { LogReader } from './log-reader';

/**
 * The log a whole-lineage walk is tied to, as this client reads it (docs/verifiable-log.md,
 * "Verifying a whole lineage"): the signed lineage log and the kept checkpoint from `log`, and
 * the lineage's tree head from `treeHeads` ({@link indexedTreeHeadOf}).
 */
export function lineageLogView(
  log: Pick<LogReader, 'view' | 'trusted'>,
  treeHeads: (lineageId: string) => Promise<IndexedTreeHead>,
): LineageLogView {
  return {
    ...log.view(),
    kept: async (lineageId) => {
      try {
        const checkpoint = await log.trusted(lineageId);
        return checkpoint ? { kind: 'KEPT', checkpoint } : { kind: 'NONE' };
      } catch (error) {
        if (error instanceof LogVerificationError)
          return { kind: 'FINDING', verdict: error.verdict, reason: error.reason };
        throw error;
      }
    },
    indexedTreeHead: treeHeads,
  };
}

/**
 * The lineage's tree head the deployment chain holds, read and verified against the client's
 * policy by `chains` (docs/deployment-log.md, "Clients"): its index entry (`treeSize`,
 * `rootHash`); the empty tree when the index proves the lineage absent, or nothing is published
 * under an unwitnessed policy; a finding when the chain is refused (fail closed); `UNAVAILABLE`
 * when `chains` is `null` (a client that reads no deployment log).
 *
 * @throws what the table reads throw (an outage), never for a forged or hidden item
 */
export async function indexedTreeHeadOf(
  chains: Pick<DeploymentChainReader, 'read'> | null,
  lineageId: string,
): Promise<IndexedTreeHead> {
  if (chains === null) return { kind: 'UNAVAILABLE', reason: 'this client reads no deployment log' };
  let chain: Awaited<ReturnType<DeploymentChainReader['read']>>;
  try {
    chain = await chains.read({ lineageId });
  } catch (error) {
    // A key that cannot be read is an outage; any other refusal of what the table holds fails closed.
    if (!(error instanceof ResealError) || error instanceof SignerUnavailableError) throw error;
    return { kind: 'FINDING', verdict: VerificationVerdict.UNVERIFIED_TAMPER_RISK, reason: error.message };
  }
  if (chain.kind === 'UNPUBLISHED') {
    return { kind: 'INDEXED', size: 0, rootHash: EMPTY_ROOT, deploymentCheckpointSize: null };
  }
  if (chain.kind === 'REFUSED') {
    return {
      kind: 'FINDING',
      verdict: VerificationVerdict.UNVERIFIED_TAMPER_RISK,
      reason: `the deployment checkpoint does not verify (${chain.refusal}): ${chain.reason}`,
    };
  }
  const entry = chain.lineage;
  return {
    kind: 'INDEXED',
    size: entry ? entry.treeSize : 0,
    rootHash: entry ? Uint8Array.from(Buffer.from(entry.rootHash, 'hex')) : EMPTY_ROOT,
    deploymentCheckpointSize: chain.checkpoint.size,
  };
}
