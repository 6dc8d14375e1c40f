import { createHash, createPrivateKey, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { boundaryDigest } from '../../../../shared/authorship/boundary-digest';
import { type LineagePolicy, lineageIdFor, policyDigest } from '../../../../shared/authorship/lineage-policy';
import { requestSigningDigest, writeSignatureProblem } from '../../../../shared/authorship/write-signature';
import { writerDigest } from '../../../../shared/authorship/writer-digest';
import { canonicalJson } from '../../../../shared/canonical/canonical-json';
import { payloadHash, variablesDigest } from '../../../../shared/seal/record-header';
import { manifestDigest } from '../../../../shared/triage/manifest-digest';
import { parseWriteRequest } from '../../../../shared/write/write-request';

interface Digested {
  tag: string;
  preimage: string;
  digest: string;
}
interface Vectors {
  key: { seedHex: string; keyId: string; publicKey: string };
  policy: Digested & { value: LineagePolicy; label: string; lineageId: string };
  request: unknown;
  boundary: Digested;
  signedWrite: Digested & { signature: string };
  writer: Digested & { senderId: string };
}

// Read as text and JSON.parse, like every vector file.
const vectors: Vectors = JSON.parse(readFileSync(new URL('../../../vectors/authorship.json', import.meta.url), 'utf8'));

/** SHA-256(ASCII(tag) || 0x00 || UTF-8(text)), computed without the project's hashing code. */
const sha256Tagged = (tag: string, text: string) =>
  createHash('sha256')
    .update(Buffer.concat([Buffer.from(tag, 'ascii'), Buffer.from([0x00]), Buffer.from(text, 'utf8')]))
    .digest('hex');

describe('authorship: committed vectors (test/vectors/authorship.json, docs/authorship.md "Vectors")', () => {
  it('every digest is SHA-256 of its tag, 0x00 and its preimage (node:crypto alone)', () => {
    for (const part of [vectors.policy, vectors.boundary, vectors.signedWrite, vectors.writer]) {
      expect(sha256Tagged(part.tag, part.preimage)).toBe(part.digest);
    }
  });

  it('the public key is that of the seed, and the signature verifies over the 32 digest bytes (node:crypto alone)', () => {
    const privateKey = createPrivateKey({
      key: Buffer.concat([
        Buffer.from('302e020100300506032b657004220420', 'hex'),
        Buffer.from(vectors.key.seedHex, 'hex'),
      ]),
      format: 'der',
      type: 'pkcs8',
    });
    const raw = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
    expect(raw.toString('base64')).toBe(vectors.key.publicKey);
    const publicKey = createPublicKey({
      key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]),
      format: 'der',
      type: 'spki',
    });
    const digest = Buffer.from(vectors.signedWrite.digest, 'hex');
    const signature = Buffer.from(vectors.signedWrite.signature, 'base64');
    expect(verify(null, digest, publicKey, signature)).toBe(true);
    const flipped = Buffer.from(digest);
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(verify(null, flipped, publicKey, signature)).toBe(false);
  });

  it('the preimages hold the request: the signed-write message names its parts by digest, the lineage id ends with the policy digest', () => {
    const request = parseWriteRequest(vectors.request);
    const message = JSON.parse(vectors.signedWrite.preimage);
    expect(message).toEqual({
      v: 1,
      lineageId: request.lineageId,
      residualId: request.residualId,
      sessionId: request.sessionId,
      generationEpoch: request.generationEpoch,
      authority: request.authority,
      payloadHash: sha256Tagged('reseal/v1/payload', canonicalJson(request.payload)),
      manifestDigest: sha256Tagged('reseal/v1/manifest', canonicalJson(request.manifest)),
      variablesDigest: sha256Tagged(
        'reseal/v1/variables',
        canonicalJson({ v: 1, variablesUsed: request.variablesUsed }),
      ),
      boundaryDigest: vectors.boundary.digest,
      supersedes: null,
      policyDigest: vectors.policy.digest,
      keyId: vectors.key.keyId,
      publicKey: vectors.key.publicKey,
      signedAtMs: request.writer.signedAtMs,
    });
    expect(request.writer.signature).toBe(vectors.signedWrite.signature);
    expect(JSON.parse(vectors.policy.preimage)).toEqual(vectors.policy.value);
    expect(request.policy).toEqual(vectors.policy.value);
    expect(vectors.policy.lineageId).toBe(`${vectors.policy.label}.${vectors.policy.digest.slice(0, 32)}`);
    expect(request.lineageId).toBe(vectors.policy.lineageId);
    expect(JSON.parse(vectors.writer.preimage)).toEqual({ v: 1, ...request.writer, senderId: vectors.writer.senderId });
    expect(JSON.parse(vectors.boundary.preimage)).toEqual({
      v: 1,
      boundary: request.boundary,
      declaredImmutableConstants: request.declaredImmutableConstants,
    });
  });

  it('the code computes every vector: digests, lineage id, and the signature check', () => {
    const request = parseWriteRequest(vectors.request);
    expect(policyDigest(vectors.policy.value)).toBe(vectors.policy.digest);
    expect(lineageIdFor(vectors.policy.label, vectors.policy.value)).toBe(vectors.policy.lineageId);
    expect(boundaryDigest(request.boundary, request.declaredImmutableConstants)).toBe(vectors.boundary.digest);
    expect(Buffer.from(requestSigningDigest(request, request.writer)).toString('hex')).toBe(vectors.signedWrite.digest);
    expect(writerDigest({ ...request.writer, senderId: vectors.writer.senderId })).toBe(vectors.writer.digest);
    expect(payloadHash(request.payload)).toBe(JSON.parse(vectors.signedWrite.preimage).payloadHash);
    expect(manifestDigest(request.manifest)).toBe(JSON.parse(vectors.signedWrite.preimage).manifestDigest);
    expect(variablesDigest(request.variablesUsed)).toBe(JSON.parse(vectors.signedWrite.preimage).variablesDigest);
    expect(writeSignatureProblem(request, request.writer.signedAtMs)).toBeNull();
    expect(
      writeSignatureProblem({ ...request, generationEpoch: request.generationEpoch + 1 }, request.writer.signedAtMs),
    ).toMatch(/does not verify/);
  });
});
