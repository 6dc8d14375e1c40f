import { createHash, createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HashDomain } from '../../../../shared/canonical/hash-domain';
import { deploymentLeaf, deploymentLeafHash } from '../../../../shared/integrator/deployment-leaf';
import { parseSealedRunNotice } from '../../../../shared/integrator/sealed-run-notice';
import { parseCheckpointBody } from '../../../../shared/log/checkpoint';
import { verifyConsistency } from '../../../../shared/log/verify-consistency';
import { verifyInclusion } from '../../../../shared/log/verify-inclusion';
import { hexOf } from '../../../helpers/index-factories';
import { type ReferenceEntry, referenceCheck } from '../../../helpers/index-reference';
import { refPath, refProof, refRoot } from '../../../helpers/merkle-reference';
import vectors from '../../../vectors/deployment-log.json';

const bytes = (hex: string) => Buffer.from(hex, 'hex');
const sha = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const leaves = vectors.integrations.map((i) => bytes(i.leafHex));

describe('test/vectors/deployment-log.json, recomputed with plain node:crypto (docs/deployment-log.md, "Vectors")', () => {
  it('each leaf is SHA-256(tag || 0x00 || index root), hashed into the tree as an RFC 9162 leaf', () => {
    expect(vectors.tag).toBe(HashDomain.DEPLOYMENT_LEAF);
    for (const step of vectors.integrations) {
      const root = bytes(step.indexRootHex);
      expect(step.leafHex).toBe(sha(Buffer.from('reseal/v1/deployment-leaf\0', 'ascii'), root).toString('hex'));
      expect(step.leafHashHex).toBe(sha(Uint8Array.of(0), bytes(step.leafHex)).toString('hex'));
      expect(hexOf(deploymentLeaf(root))).toBe(step.leafHex);
      expect(hexOf(deploymentLeafHash(root))).toBe(step.leafHashHex);
    }
  });

  it('tree roots, checkpoint bodies and their Ed25519 signatures (C2SP signed note by the log key)', () => {
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), bytes(vectors.publicKeyHex)]);
    const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    for (const [i, step] of vectors.integrations.entries()) {
      expect(step.treeSize).toBe(i + 1);
      expect(step.rootHex).toBe(Buffer.from(refRoot(leaves.slice(0, i + 1))).toString('hex'));
      expect(step.checkpointBody).toBe(
        `${vectors.logKeyName}\n${step.treeSize}\n${bytes(step.rootHex).toString('base64')}\n`,
      );
      const [body, signatureLine] = step.signedCheckpoint.split('\n\n');
      expect(`${body}\n`).toBe(step.checkpointBody);
      const signature = Buffer.from((signatureLine ?? '').trim().split(' ').at(-1) ?? '', 'base64');
      expect(signature.length).toBe(68);
      expect(verify(null, Buffer.from(step.checkpointBody), key, signature.subarray(4))).toBe(true);
      expect(parseCheckpointBody(step.checkpointBody).origin).toBe(vectors.logKeyName);
    }
  });

  it('the consistency proof and the whole chain (index proof → leaf → checkpoint) hold', () => {
    const { consistency, chain } = vectors;
    const reference = refProof(consistency.fromSize, leaves.slice(0, consistency.toSize));
    expect(consistency.proofHex).toEqual(reference.map((h) => Buffer.from(h).toString('hex')));
    expect(
      verifyConsistency({
        size1: 1,
        size2: 3,
        root1: bytes(vectors.integrations[0]?.rootHex ?? ''),
        root2: bytes(vectors.integrations[2]?.rootHex ?? ''),
        proof: consistency.proofHex.map(bytes),
      }),
    ).toBe(true);
    const entry = chain.entry as ReferenceEntry;
    expect(referenceCheck(bytes(chain.indexRootHex), entry, entry, bytes(chain.indexProofHex))).toBe(true);
    expect(chain.inclusionProofHex).toEqual(
      refPath(chain.leafIndex, leaves).map((h) => Buffer.from(h).toString('hex')),
    );
    const checkpoint = parseCheckpointBody(`${chain.signedCheckpoint?.split('\n\n')[0]}\n`);
    expect(
      verifyInclusion({
        leafIndex: chain.leafIndex,
        treeSize: checkpoint.size,
        leafHash: deploymentLeafHash(bytes(chain.indexRootHex)),
        proof: chain.inclusionProofHex.map(bytes),
        rootHash: checkpoint.rootHash,
      }),
    ).toBe(true);
  });

  it('the sealed-run notice parses as the schema says', () => {
    expect(parseSealedRunNotice(vectors.notice)).toEqual(vectors.notice);
  });
});
