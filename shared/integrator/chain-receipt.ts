import { z } from 'zod';
import { HEX_DIGEST_PATTERN } from '../canonical/digest';
import { IndexProofFormatError } from '../errors';
import { LineageIndexValueSchema, ResidualIndexValueSchema } from '../index/index-entry';
import { type IndexProof, IndexProofJsonSchema, indexProofFromJson } from '../index/index-proof';
import type { Checkpoint } from '../log/checkpoint';
import { RecordProofSchema, verifyRecordProof } from '../log/record-proof';
import { Identifier } from '../schemas/identifier';
import { wellFormedString } from '../schemas/well-formed-string';
import type { SealedRecord } from '../seal/sealed-record';
import { VerificationVerdict as V, type VerificationVerdict } from '../seal/verification-verdict';
import type { TlogPolicy } from '../witness/tlog-policy';
import { type DeploymentChainRefusal, verifyDeploymentChain } from './deployment-chain';
import type { ReAnchorNotice } from './re-anchor-statement';

const HexHash = z.string().regex(HEX_DIGEST_PATTERN, 'expected 64 lowercase hex characters');

/** Longest RFC 9162 inclusion proof of the deployment log's last leaf (a tree of 2^63 leaves). */
const MAX_DEPLOYMENT_PROOF_HASHES = 64;

/**
 * A receipt with the whole freshness chain (formatVersion 2; docs/verifiable-log.md, "Receipts"):
 *
 * ```
 * record ──inclusion──▶ lineage root (the index's entry) ──index proof──▶ index root ──last leaf of──▶ deployment checkpoint (cosigned)
 * ```
 *
 * `{ formatVersion: 2, type: "reseal-receipt", lineageId, record, inclusion: { leafIndex, treeSize,
 * inclusionProof }, index: { root, lineage: { value, proof }, residual: { value, proof } },
 * deployment: { inclusionProof, checkpoint, reAnchor? } }` (strict at every level). `inclusion` is the
 * record's proof in the lineage tree at the **indexed** head (`index.lineage.value.treeSize`,
 * `rootHash`); the index proofs are in their JSON form (docs/verifiable-index.md, "JSON form");
 * `deployment.inclusionProof` proves `index.root`'s leaf at index `size − 1` of the checkpoint.
 * No lineage checkpoint is in it: the lineage root comes from the index alone.
 */
export const ChainReceiptSchema = z.strictObject({
  formatVersion: z.literal(2),
  type: z.literal('reseal-receipt'),
  lineageId: Identifier,
  /** The sealed record, exactly as stored (checked, not trusted). */
  record: z.unknown(),
  inclusion: RecordProofSchema,
  index: z.strictObject({
    /** The index root the deployment checkpoint's last leaf commits to (hex). */
    root: HexHash,
    lineage: z.strictObject({ value: LineageIndexValueSchema, proof: IndexProofJsonSchema }),
    residual: z.strictObject({ value: ResidualIndexValueSchema, proof: IndexProofJsonSchema }),
  }),
  deployment: z.strictObject({
    /** RFC 9162 inclusion proof of the index root's leaf at `size − 1` (hex, bottom-up). */
    inclusionProof: z.array(HexHash).max(MAX_DEPLOYMENT_PROOF_HASHES),
    /** The deployment checkpoint: a C2SP signed note with its `cosignature/v1` lines. */
    checkpoint: wellFormedString(65_536).min(1),
    /**
     * The re-anchor statement note of a re-anchored history (docs/deployment-log.md, "Re-anchor"),
     * when the checkpoint covers its re-anchor leaf: every leaf from there commits to its hash, so
     * the last leaf is checked as a re-anchored leaf of it. Optional: absent for a history never
     * re-anchored.
     */
    reAnchor: wellFormedString(65_536).min(1).optional(),
  }),
});
/** Type of {@link ChainReceiptSchema}. */
export type ChainReceipt = z.infer<typeof ChainReceiptSchema>;

/** How old a receipt's cosignatures may be: `null` checks inclusion only (no freshness). */
export interface ChainReceiptOptions {
  readonly policy: TlogPolicy;
  /** The verifier's clock, POSIX seconds. */
  readonly nowSeconds: number;
  /**
   * Oldest acceptable quorum of cosignatures, seconds before `nowSeconds`; `null`: not checked
   * (the receipt then proves inclusion under a checkpoint that met the policy's quorum, as of
   * whenever it was cosigned, and no freshness).
   */
  readonly maxAgeSeconds: number | null;
}

/** Outcome of {@link verifyChainReceipt}. */
export interface ChainReceiptVerification {
  readonly verdict: VerificationVerdict;
  readonly reason: string;
  /** Why the deployment chain was refused (`COSIGNATURES_TOO_OLD`, …), or `null`. */
  readonly refusal: DeploymentChainRefusal | null;
  /** The proven record (when `VERIFIED_INTACT`). */
  readonly record: SealedRecord | null;
  /** The deployment checkpoint as the policy accepted it, when it did. */
  readonly deployment: {
    readonly checkpoint: Checkpoint;
    readonly witnessed: boolean;
    /** When the quorum of cosignatures held, POSIX seconds; `null` when unwitnessed. */
    readonly quorumTime: number | null;
    /** The re-anchor the checkpoint's history continues from, when the receipt shows one (verified). */
    readonly reAnchor: ReAnchorNotice | null;
  } | null;
  /** Whether a maximum age was checked (freshness), or only inclusion. */
  readonly freshnessChecked: boolean;
}

const refusedReceipt = (
  verdict: VerificationVerdict,
  reason: string,
  extra: Partial<ChainReceiptVerification> = {},
): ChainReceiptVerification => ({
  verdict,
  reason,
  refusal: null,
  record: null,
  deployment: null,
  freshnessChecked: false,
  ...extra,
});

/**
 * Verifies a {@link ChainReceipt} offline with a C2SP tlog-policy only (docs/verifiable-log.md,
 * "Receipts"): the deployment checkpoint meets the policy (its log key, its quorum of
 * cosignatures, and the maximum age when one is given, against the cosignature time), the index
 * root is its last leaf, the index proves the lineage's head and the record's residual id, and
 * the record is the leaf at its seq of the lineage tree the index holds (its own hashes
 * recomputed). Never needs a lineage checkpoint. Never throws for a bad receipt: it gets a
 * verdict (`HASH_MISMATCH` for a malformed or unproven record, `UNVERIFIED_TAMPER_RISK` for a
 * chain that does not verify, `LINEAGE_BROKEN` for an index that maps the residual id elsewhere).
 *
 * @param receipt - untrusted JSON
 * @throws {InvalidInputError} only for a clock or maximum age that is not whole seconds
 */
export function verifyChainReceipt(receipt: unknown, options: ChainReceiptOptions): ChainReceiptVerification {
  const parsed = ChainReceiptSchema.safeParse(receipt);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return refusedReceipt(
      V.HASH_MISMATCH,
      `malformed receipt at ${issue?.path.join('.') || '<root>'}: ${issue?.message}`,
    );
  }
  const { lineageId, record, inclusion, index, deployment } = parsed.data;
  let proofs: { lineage: IndexProof; residual: IndexProof };
  try {
    proofs = { lineage: indexProofFromJson(index.lineage.proof), residual: indexProofFromJson(index.residual.proof) };
  } catch (error) {
    if (!(error instanceof IndexProofFormatError)) throw error;
    return refusedReceipt(V.HASH_MISMATCH, `malformed index proof: ${error.message}`);
  }
  // The lineage tree the index holds: its root and size come from the index entry, proven below.
  const indexed: Checkpoint = {
    origin: lineageId,
    size: index.lineage.value.treeSize,
    rootHash: Buffer.from(index.lineage.value.rootHash, 'hex'),
  };
  const proven = verifyRecordProof(record, inclusion, indexed, lineageId);
  if (proven.verdict !== V.VERIFIED_INTACT) {
    return refusedReceipt(
      proven.verdict,
      `the record is not proven in the lineage head the index holds: ${proven.reason}`,
    );
  }
  const residualId = proven.record.header.residualId;
  const maxAge = options.maxAgeSeconds;
  // A policy of the log alone (`quorum none`) has no cosignature time to age: nothing is checked.
  const checked = maxAge !== null && options.policy.quorum.kind !== 'NONE';
  const chain = verifyDeploymentChain({
    note: deployment.checkpoint,
    policy: options.policy,
    // Unchecked: any cosignature time up to now passes (the future is still refused).
    maxAgeSeconds: maxAge ?? options.nowSeconds + 1,
    nowSeconds: options.nowSeconds,
    indexRoot: Uint8Array.from(Buffer.from(index.root, 'hex')),
    inclusion: deployment.inclusionProof.map((h) => Uint8Array.from(Buffer.from(h, 'hex'))),
    // Verified as the chain reader does: signed by the policy's log key, bound by the last leaf.
    reAnchor: deployment.reAnchor ?? null,
    lineageId,
    lineage: {
      kind: 'presence',
      entry: { kind: 'lineage', lineageId, value: index.lineage.value },
      proof: proofs.lineage,
    },
    residual: {
      residualId,
      claim: {
        kind: 'presence',
        entry: { kind: 'residual', lineageId, residualId, value: index.residual.value },
        proof: proofs.residual,
      },
    },
  });
  if (chain.kind === 'REFUSED') {
    return refusedReceipt(
      V.UNVERIFIED_TAMPER_RISK,
      `the deployment chain does not verify (${chain.refusal}): ${chain.reason}`,
      { refusal: chain.refusal, freshnessChecked: checked },
    );
  }
  const accepted = {
    checkpoint: chain.checkpoint,
    witnessed: chain.witnessed,
    quorumTime: chain.quorumTime,
    reAnchor: chain.reAnchor ?? null,
  };
  const seq = proven.record.header.monotonicSequenceNumber;
  const held = index.residual.value;
  if (held.seq !== seq || held.recordHash !== proven.record.recordHash) {
    return refusedReceipt(
      V.LINEAGE_BROKEN,
      `the index maps residual ${residualId} to seq ${held.seq}, but the receipt's record is seq ${seq}`,
      { deployment: accepted, freshnessChecked: checked },
    );
  }
  return {
    verdict: V.VERIFIED_INTACT,
    reason: `record seq ${seq} is leaf ${seq} of the lineage head the index holds (${indexed.size} records), under deployment checkpoint ${chain.checkpoint.size}${checked ? '' : maxAge === null ? ' (freshness not checked: no maximum age)' : ' (freshness not checked: the policy asks no cosignature)'}`,
    refusal: null,
    record: proven.record,
    deployment: accepted,
    freshnessChecked: checked,
  };
}
