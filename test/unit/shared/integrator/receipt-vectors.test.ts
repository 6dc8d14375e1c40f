import { createHash, createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { freshnessPolicy } from '../../../../client/freshness-policy';
import { encodeIndexProof, indexProofFromJson } from '../../../../shared/index/index-proof';
import { verifyChainReceipt } from '../../../../shared/integrator/chain-receipt';
import { type ReferenceEntry, referenceCheck } from '../../../helpers/index-reference';
import vectors from '../../../vectors/receipt-v2.json';

const bytes = (hex: string) => Buffer.from(hex, 'hex');
const sha = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const ed25519 = (hex: string) =>
  createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), bytes(hex)]),
    format: 'der',
    type: 'spki',
  });

/** The RFC 9162 §2.1.3.2 root from an inclusion path, written from the RFC. */
function rootFromPath(index: number, size: number, leafHash: Buffer, path: readonly Buffer[]): Buffer | null {
  if (index >= size) return null;
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of path) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = sha(Uint8Array.of(1), p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else {
      r = sha(Uint8Array.of(1), r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 ? r : null;
}

const { receipt } = vectors;
const [body, signatures] = receipt.deployment.checkpoint.split('\n\n') as [string, string];
const [origin, size, rootBase64] = body.split('\n') as [string, string, string];

describe('test/vectors/receipt-v2.json, recomputed with plain node:crypto (docs/verifiable-log.md, "Receipts")', () => {
  it('the record is the leaf at its seq of the lineage tree the index entry names (RFC 9162 inclusion)', () => {
    const record = receipt.record as { recordHash: string; header: { monotonicSequenceNumber: number } };
    expect(receipt.inclusion.leafIndex).toBe(record.header.monotonicSequenceNumber);
    expect(receipt.inclusion.treeSize).toBe(receipt.index.lineage.value.treeSize);
    const leafHash = sha(Uint8Array.of(0), bytes(record.recordHash));
    const root = rootFromPath(
      receipt.inclusion.leafIndex,
      receipt.inclusion.treeSize,
      leafHash,
      receipt.inclusion.inclusionProof.map(bytes),
    );
    expect(root?.toString('hex')).toBe(receipt.index.lineage.value.rootHash);
    expect(receipt.index.residual.value).toEqual({ seq: receipt.inclusion.leafIndex, recordHash: record.recordHash });
  });

  it('the index proofs hold against the index root for the lineage and the residual id (the index written from its spec)', () => {
    const root = bytes(receipt.index.root);
    const record = receipt.record as { header: { residualId: string } };
    const lineage: ReferenceEntry = {
      kind: 'lineage',
      lineageId: receipt.lineageId,
      value: receipt.index.lineage.value,
    };
    const residual: ReferenceEntry = {
      kind: 'residual',
      lineageId: receipt.lineageId,
      residualId: record.header.residualId,
      value: receipt.index.residual.value,
    };
    // The JSON form carries the binary layout's content (docs/verifiable-index.md, "JSON form").
    const binary = (json: unknown) => Buffer.from(encodeIndexProof(indexProofFromJson(json)));
    expect(referenceCheck(root, lineage, lineage, binary(receipt.index.lineage.proof))).toBe(true);
    expect(referenceCheck(root, residual, residual, binary(receipt.index.residual.proof))).toBe(true);
  });

  it('the index root is the last leaf of the deployment checkpoint, signed by the log key and cosigned by the witness at cosignedAt', () => {
    expect(origin).toBe(vectors.logKey.split('+')[0]);
    const treeSize = Number(size);
    const leaf = sha(Buffer.from('reseal/v1/deployment-leaf\0', 'ascii'), bytes(receipt.index.root));
    const root = rootFromPath(
      treeSize - 1,
      treeSize,
      sha(Uint8Array.of(0), leaf),
      receipt.deployment.inclusionProof.map(bytes),
    );
    expect(root?.toString('base64')).toBe(rootBase64);
    const lines = signatures.trim().split('\n');
    expect(lines).toHaveLength(2);
    const blob = (line: string) => Buffer.from(line.split(' ').at(-1) ?? '', 'base64');
    const text = Buffer.from(`${body}\n`);
    const logSignature = blob(lines[0] as string);
    expect(verify(null, text, ed25519(vectors.logPublicKeyHex), logSignature.subarray(4))).toBe(true);
    const cosignature = blob(lines[1] as string);
    expect(cosignature.readBigUInt64BE(4)).toBe(BigInt(vectors.cosignedAt));
    const message = Buffer.from(`cosignature/v1\ntime ${vectors.cosignedAt}\n${body}\n`);
    expect(verify(null, message, ed25519(vectors.witnessPublicKeyHex), cosignature.subarray(12))).toBe(true);
  });

  it('the code agrees: VERIFIED_INTACT within the maximum age, COSIGNATURES_TOO_OLD past it', () => {
    const { policy } = freshnessPolicy(vectors.policy);
    const at = (nowSeconds: number) =>
      verifyChainReceipt(receipt, { policy, nowSeconds, maxAgeSeconds: vectors.maxAgeSeconds });
    expect(at(vectors.nowSeconds).verdict).toBe('VERIFIED_INTACT');
    expect(at(vectors.cosignedAt + vectors.maxAgeSeconds + 1).refusal).toBe('COSIGNATURES_TOO_OLD');
  });
});

describe('test/vectors/receipt-v2.json cases: the verdict and refusal each edit gets (docs/verifiable-log.md, "Receipts")', () => {
  const edited = (c: (typeof vectors.cases)[number]): unknown => {
    const copy = structuredClone('receipt' in c ? c.receipt : receipt) as Record<string | number, unknown>;
    for (const { path, value } of 'edits' in c ? (c.edits ?? []) : []) {
      let at = copy;
      for (const step of path.slice(0, -1)) at = at[step] as Record<string | number, unknown>;
      at[path.at(-1) as string | number] = value;
    }
    return copy;
  };
  it.each(vectors.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const { policy } = freshnessPolicy('policy' in c && c.policy ? c.policy : vectors.policy);
    const nowSeconds = 'nowSeconds' in c && c.nowSeconds !== undefined ? c.nowSeconds : vectors.nowSeconds;
    const result = verifyChainReceipt(edited(c), { policy, nowSeconds, maxAgeSeconds: c.maxAgeSeconds });
    expect({ verdict: result.verdict, refusal: result.refusal, freshnessChecked: result.freshnessChecked }).toEqual(
      c.expected,
    );
  });
});
