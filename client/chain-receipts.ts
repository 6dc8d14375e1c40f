import { MerkleNodeMissingError } from '../shared/errors';
import { decodeIndexProof, type IndexProof, indexProofToJson } from '../shared/index/index-proof';
import { type ChainReceipt, verifyChainReceipt } from '../shared/integrator/chain-receipt';
import type { IndexClaim } from '../shared/integrator/deployment-chain';
import { nodeSourceOf } from '../shared/log/node-source';
import { proveRecord } from '../shared/log/record-proof';
import type { LineageStore } from '../shared/ports/lineage-store';
import { VerificationVerdict as V } from '../shared/seal/verification-verdict';
import type { DeploymentChainReader } from './deployment-chain-reader';
import { LogVerificationError, NotIntegratedError } from './errors';

/** Dependencies of {@link buildChainReceipt}. */
export interface ChainReceiptDeps {
  readonly store: Pick<LineageStore, 'readRecord' | 'readNodes'>;
  readonly reader: DeploymentChainReader;
  /** Clock, ms since the Unix epoch (the receipt is checked against the policy now). */
  readonly nowMs: () => number;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const proofJson = (proof: Uint8Array | IndexProof) =>
  indexProofToJson(proof instanceof Uint8Array ? decodeIndexProof(proof) : proof);

/**
 * Builds a receipt with the whole freshness chain for record `seq` (formatVersion 2,
 * docs/verifiable-log.md, "Receipts") from the table alone: the record, its inclusion proof in the
 * lineage tree at the head the index holds (built from the lineage's stored nodes), the index
 * proofs of the lineage and of the record's residual id, the index root's leaf proof and the
 * published deployment checkpoint. Never reads the lineage's own signed checkpoint. The receipt
 * is verified (`verifyChainReceipt`, with the client's policy and maximum age) before it is returned.
 *
 * @throws {NotIntegratedError} when the record is past the indexed head, its lineage or residual id
 *   is not indexed yet, or nothing is published (unwitnessed policy)
 * @throws {LogVerificationError} when the record is missing, the chain does not verify, or the
 *   index contradicts the record (it maps its residual id elsewhere)
 */
export async function buildChainReceipt(deps: ChainReceiptDeps, lineageId: string, seq: number): Promise<ChainReceipt> {
  const raw = (await deps.store.readRecord(lineageId, seq)) as { header?: { residualId?: unknown } } | null;
  if (raw === null) throw new LogVerificationError(lineageId, V.TRUNCATION_DETECTED, `no record at seq ${seq}`);
  const residualId = raw.header?.residualId;
  if (typeof residualId !== 'string') {
    throw new LogVerificationError(lineageId, V.HASH_MISMATCH, `record ${seq} names no residual id`);
  }
  const policy = await deps.reader.policy();
  const { chain, evidence } = await deps.reader.readWithEvidence({ lineageId, residualId });
  const awaiting = (reason: string) => new NotIntegratedError(lineageId, seq, reason);
  if (chain.kind === 'UNPUBLISHED') throw awaiting(chain.reason);
  if (chain.kind === 'REFUSED') {
    throw new LogVerificationError(
      lineageId,
      V.UNVERIFIED_TAMPER_RISK,
      `the deployment chain does not verify (${chain.refusal}): ${chain.reason}`,
    );
  }
  const at = `deployment checkpoint ${chain.checkpoint.size}`;
  if (chain.lineage === null) throw awaiting(`the lineage is not in the index as of ${at}`);
  const size = chain.lineage.treeSize;
  if (seq >= size) throw awaiting(`seq ${seq} is past the lineage head the index holds (${size} records) as of ${at}`);
  if (chain.kind === 'ABSENT' || !evidence?.residual || evidence.residual.kind !== 'presence') {
    throw new LogVerificationError(
      lineageId,
      V.LINEAGE_BROKEN,
      `the index holds ${size} records of the lineage as of ${at} but not residual ${residualId}, sealed at seq ${seq}`,
    );
  }
  const lineageClaim: IndexClaim = evidence.lineage;
  if (lineageClaim.kind !== 'presence') throw awaiting(`the lineage is not in the index as of ${at}`);
  let inclusion: Awaited<ReturnType<typeof proveRecord>>;
  try {
    inclusion = await proveRecord(
      seq,
      size,
      nodeSourceOf((refs) => deps.store.readNodes(lineageId, refs)),
    );
  } catch (error) {
    if (!(error instanceof MerkleNodeMissingError)) throw error;
    throw new LogVerificationError(
      lineageId,
      V.LINEAGE_BROKEN,
      `the inclusion proof cannot be built: ${error.message}`,
      {
        cause: error,
      },
    );
  }
  const receipt: ChainReceipt = {
    formatVersion: 2,
    type: 'reseal-receipt',
    lineageId,
    record: raw,
    inclusion,
    index: {
      root: hex(evidence.indexRoot),
      lineage: { value: chain.lineage, proof: proofJson(lineageClaim.proof) },
      residual: { value: chain.residual ?? { seq, recordHash: '' }, proof: proofJson(evidence.residual.proof) },
    },
    deployment: {
      inclusionProof: evidence.inclusion.map(hex),
      checkpoint: evidence.note,
      // A re-anchored history's last leaf commits to the statement: the receipt carries it.
      ...(chain.reAnchor ? { reAnchor: chain.reAnchor.note } : {}),
    },
  };
  // Proven before it is handed out: the same check an offline verifier makes.
  const checked = verifyChainReceipt(receipt, {
    policy: policy.policy,
    nowSeconds: Math.floor(deps.nowMs() / 1000),
    maxAgeSeconds: policy.maxAgeSeconds,
  });
  if (checked.verdict !== V.VERIFIED_INTACT) throw new LogVerificationError(lineageId, checked.verdict, checked.reason);
  return receipt;
}
