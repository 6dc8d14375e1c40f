import { createHash, createHmac, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LocalHmacAnchor } from '../../../../shared/seal/local-hmac-anchor';
import { verifyChain } from '../../../../shared/seal/verify-chain';
import file from '../../../vectors/authorship.json';
import { authorshipVectors } from './vectors.generate';

// The file is read as plain JSON: what another language holds, with no type from shared/.
// biome-ignore lint/suspicious/noExplicitAny: vectors are untyped JSON on purpose
type Json = any;
const vectors: Json = file;

/** RFC 8785 for the values of these vectors (ASCII-sorted keys, ECMAScript strings and safe integers). */
const jcs = (value: Json): string => {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(jcs).join(',')}]`;
  return `{${Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${jcs(value[k])}`)
    .join(',')}}`;
};
/** SHA-256(ASCII(tag) || 0x00 || UTF-8(text)), lowercase hex (docs/canonical-form.md). */
const tagged = (tag: string, text: string): string =>
  createHash('sha256').update(`${tag}\0${text}`, 'utf8').digest('hex');

const privateKeyOf = (seedHex: string): KeyObject =>
  createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seedHex, 'hex')]),
    format: 'der',
    type: 'pkcs8',
  });
const rawPublicKey = (key: KeyObject): string =>
  Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x as string, 'base64url').toString('base64');
const publicKeyOf = (base64: string): KeyObject =>
  createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(base64, 'base64').toString('base64url') },
    format: 'jwk',
  });
const verifies = (messageHex: string, publicKey: string, signature: string): boolean =>
  verify(null, Buffer.from(messageHex, 'hex'), publicKeyOf(publicKey), Buffer.from(signature, 'base64'));

const policyDigestOf = (policy: Json): string => tagged('reseal/v1/lineage-policy', jcs(policy));
const boundaryDigestOf = (boundary: Json, declared: Json): string =>
  tagged('reseal/v1/boundary', jcs({ v: 1, boundary, declaredImmutableConstants: declared }));
const writerDigestOf = (w: Json): string =>
  tagged(
    'reseal/v1/writer',
    jcs({
      v: 1,
      keyId: w.keyId,
      publicKey: w.publicKey,
      signedAtMs: w.signedAtMs,
      signature: w.signature,
      senderId: w.senderId,
    }),
  );

/** The signed-write message (docs/authorship.md, "Signed writes") from the parts' digests. */
const signedWriteHex = (fields: Json): string =>
  tagged(
    'reseal/v1/signed-write',
    jcs({
      v: 1,
      lineageId: fields.lineageId,
      residualId: fields.residualId,
      sessionId: fields.sessionId,
      generationEpoch: fields.generationEpoch,
      authority: fields.authority,
      payloadHash: fields.payloadHash,
      manifestDigest: fields.manifestDigest,
      variablesDigest: fields.variablesDigest,
      boundaryDigest: fields.boundaryDigest,
      supersedes: fields.supersedes ?? null,
      policyDigest: fields.policyDigest,
      keyId: fields.keyId,
      publicKey: fields.publicKey,
      signedAtMs: fields.signedAtMs,
    }),
  );
const requestDigests = (request: Json) => ({
  payloadHash: tagged('reseal/v1/payload', jcs(request.payload)),
  manifestDigest: tagged('reseal/v1/manifest', jcs(request.manifest)),
  variablesDigest: tagged('reseal/v1/variables', jcs({ v: 1, variablesUsed: request.variablesUsed })),
  boundaryDigest: boundaryDigestOf(request.boundary, request.declaredImmutableConstants),
  policyDigest: request.policy ? policyDigestOf(request.policy) : null,
});
const requestMessageHex = (request: Json): string =>
  signedWriteHex({ ...request, ...requestDigests(request), ...request.writer });

const suffixMatches = (lineageId: string, policy: Json): boolean => {
  const dot = lineageId.lastIndexOf('.');
  return dot > 0 && lineageId.slice(dot + 1) === policyDigestOf(policy).slice(0, 32);
};

/** The admission rules of docs/authorship.md ("Lineage write policy"), written again from the table. */
const admit = (state: Json, candidate: Json): string => {
  if (state.legacyTip) return 'REFUSED';
  const isWriter = (p: Json) => p.writers.some((w: Json) => w.publicKey === candidate.publicKey);
  if (state.seq === 0 || state.inForce === null) {
    const ok =
      state.seq === 0 &&
      candidate.policy !== null &&
      suffixMatches(state.lineageId, candidate.policy) &&
      isWriter(candidate.policy);
    return ok ? 'INCEPTION' : 'REFUSED';
  }
  if (isWriter(state.inForce)) {
    if (candidate.policy === null) return 'WRITE';
    return jcs(candidate.policy.recoveryKeys) === jcs(state.inForce.recoveryKeys) ? 'ROTATION' : 'REFUSED';
  }
  return candidate.policy !== null && state.inForce.recoveryKeys.includes(candidate.publicKey) ? 'RECOVERY' : 'REFUSED';
};

/** Why a format-2 record does not bind its own fields and writer, or `null`: each digest and the signature. */
const bindingProblem = (record: Json): string | null => {
  const { header, writer } = record;
  if (tagged('reseal/v1/payload', jcs(record.payload)) !== header.payloadHash) return 'payloadHash';
  if (writerDigestOf(writer) !== header.writerDigest) return 'writerDigest';
  const boundaryDigest = boundaryDigestOf(record.boundary, record.declaredImmutableConstants);
  if (boundaryDigest !== header.boundaryDigest) return 'boundaryDigest';
  const policyDigest = record.policy ? policyDigestOf(record.policy) : null;
  if (policyDigest !== null && policyDigest !== header.policyDigest) return 'policyDigest';
  const message = signedWriteHex({ ...header, boundaryDigest, policyDigest, ...writer });
  return verifies(message, writer.publicKey, writer.signature) ? null : 'signature';
};

const candidateOf = (record: Json) => ({ publicKey: record.writer.publicKey, policy: record.policy });

const resolve = (records: Json[]): Json[] =>
  records.map((r: Json) => (typeof r === 'number' ? structuredClone(vectors.chain[r].record) : r));

describe('authorship vectors, recomputed with plain node:crypto (what another language does)', () => {
  it('keys: the raw public key of each seed', () => {
    for (const key of Object.values(vectors.keys) as Json[]) {
      expect(rawPublicKey(privateKeyOf(key.seedHex))).toBe(key.publicKey);
    }
  });

  it('lineage-policy digests and self-certifying lineage ids', () => {
    expect(vectors.policyDigests.length).toBeGreaterThanOrEqual(5);
    for (const v of vectors.policyDigests) {
      expect(v.canonical).toBe(jcs(v.policy));
      expect(v.digest).toBe(tagged('reseal/v1/lineage-policy', v.canonical));
      expect(v.lineageId).toBe(`${vectors.label}.${v.digest.slice(0, 32)}`);
    }
    expect(vectors.lineageId).toBe(vectors.policyDigests[0].lineageId);
    for (const v of vectors.lineageIds)
      expect([v.name, v.matches]).toEqual([v.name, suffixMatches(v.lineageId, v.policy)]);
    expect(vectors.lineageIds.filter((v: Json) => !v.matches).length).toBeGreaterThanOrEqual(5);
    for (const v of vectors.badLabels) {
      const ok = v.label.length <= 167 && /^[A-Za-z0-9][A-Za-z0-9._:@/+=-]*$/.test(v.label);
      expect(v.refused).toBe(!ok);
      expect(v.refused).toBe(true);
    }
  });

  it('invalid policies break one rule of the policy shape each', () => {
    const canonicalKey = (k: Json) =>
      typeof k === 'string' &&
      Buffer.from(k, 'base64').length === 32 &&
      Buffer.from(k, 'base64').toString('base64') === k;
    const keyId = (k: Json) =>
      typeof k === 'string' &&
      k.length >= 1 &&
      k.length <= 2048 &&
      ![...k].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
    const valid = (p: Json): boolean =>
      jcs(Object.keys(p).sort()) === jcs(['recoveryKeys', 'v', 'writers']) &&
      p.v === 1 &&
      Array.isArray(p.writers) &&
      p.writers.length >= 1 &&
      p.writers.length <= 16 &&
      p.writers.every(
        (w: Json) =>
          jcs(Object.keys(w).sort()) === jcs(['keyId', 'publicKey']) && keyId(w.keyId) && canonicalKey(w.publicKey),
      ) &&
      new Set(p.writers.map((w: Json) => w.publicKey)).size === p.writers.length &&
      Array.isArray(p.recoveryKeys) &&
      p.recoveryKeys.length <= 8 &&
      p.recoveryKeys.every(canonicalKey) &&
      new Set(p.recoveryKeys).size === p.recoveryKeys.length;
    for (const v of vectors.policyDigests) expect(valid(v.policy)).toBe(true);
    for (const v of vectors.invalidPolicies) expect([v.name, valid(v.policy)]).toEqual([v.name, false]);
  });

  it('writer and boundary digests', () => {
    for (const v of vectors.writerDigests) {
      expect(v.canonical).toBe(jcs({ v: 1, ...v.writer }));
      expect(v.digest).toBe(writerDigestOf(v.writer));
    }
    expect(vectors.writerDigests.some((v: Json) => v.writer.senderId === null)).toBe(true);
    for (const v of vectors.boundaryDigests) {
      expect(v.canonical).toBe(
        jcs({ v: 1, boundary: v.boundary, declaredImmutableConstants: v.declaredImmutableConstants }),
      );
      expect(v.digest).toBe(boundaryDigestOf(v.boundary, v.declaredImmutableConstants));
    }
  });

  it('signed writes: request → 32-byte message → the Ed25519 signature of the fixed key', () => {
    for (const v of vectors.signedWrites) {
      const { writer, ...rest } = v.request;
      expect(v.digests).toEqual(requestDigests(rest));
      const content = { v: 1, ...rest, ...v.digests, ...writer };
      expect(v.signedContentCanonical).toBe(
        jcs({
          v: 1,
          lineageId: content.lineageId,
          residualId: content.residualId,
          sessionId: content.sessionId,
          generationEpoch: content.generationEpoch,
          authority: content.authority,
          payloadHash: content.payloadHash,
          manifestDigest: content.manifestDigest,
          variablesDigest: content.variablesDigest,
          boundaryDigest: content.boundaryDigest,
          supersedes: content.supersedes ?? null,
          policyDigest: content.policyDigest,
          keyId: writer.keyId,
          publicKey: writer.publicKey,
          signedAtMs: writer.signedAtMs,
        }),
      );
      expect(v.messageHex).toBe(tagged('reseal/v1/signed-write', v.signedContentCanonical));
      expect(v.messageHex).toBe(requestMessageHex(v.request));
      const key = vectors.keys[v.signer];
      expect([writer.keyId, writer.publicKey]).toEqual([key.keyId, key.publicKey]);
      expect(sign(null, Buffer.from(v.messageHex, 'hex'), privateKeyOf(key.seedHex)).toString('base64')).toBe(
        v.signature,
      );
      expect(writer.signature).toBe(v.signature);
      expect(v.valid).toBe(true);
      expect(verifies(v.messageHex, writer.publicKey, writer.signature)).toBe(true);
    }
  });

  it('a signature over an edited request does not verify', () => {
    expect(vectors.editedRequests.length).toBeGreaterThanOrEqual(5);
    for (const v of vectors.editedRequests) {
      expect(v.messageHex).toBe(requestMessageHex(v.request));
      expect([v.name, verifies(v.messageHex, v.request.writer.publicKey, v.request.writer.signature)]).toEqual([
        v.name,
        false,
      ]);
      expect(v.valid).toBe(false);
    }
  });

  it('signature age: at most maxSignatureAgeMs before the receipt, maxSignatureFutureMs after', () => {
    expect(vectors.limits).toEqual({ maxSignatureAgeMs: 15 * 60 * 1000, maxSignatureFutureMs: 5 * 60 * 1000 });
    for (const v of vectors.freshness) {
      const age = v.receivedAtMs - v.signedAtMs;
      expect(v.accepted).toBe(age <= vectors.limits.maxSignatureAgeMs && -age <= vectors.limits.maxSignatureFutureMs);
    }
    expect(vectors.freshness.filter((v: Json) => !v.accepted)).toHaveLength(2);
  });

  it('admission: inception, write, rotation, revocation and recovery admitted; each refusal refused', () => {
    for (const v of vectors.admission) {
      expect([v.name, v.admitted ?? 'REFUSED']).toEqual([v.name, admit(v.state, v.candidate)]);
      expect('admitted' in v !== 'refused' in v).toBe(true);
    }
    const kinds = new Set(vectors.admission.map((v: Json) => v.admitted ?? 'REFUSED'));
    expect([...kinds].sort()).toEqual(['INCEPTION', 'RECOVERY', 'REFUSED', 'ROTATION', 'WRITE']);
  });

  it('the chain: record hashes, MACs, every binding, and each record admitted by the policy in force', () => {
    const events = vectors.chain.map((c: Json) => c.event);
    expect(events).toEqual(['INCEPTION', 'WRITE', 'ROTATION', 'REVOCATION', 'RECOVERY', 'WRITE']);
    let inForce: Json = null;
    let parent = tagged('reseal/v1/genesis', jcs({ v: 1, lineageId: vectors.lineageId }));
    for (const [seq, { record, signer }] of vectors.chain.entries()) {
      const { header } = record;
      expect(header.formatVersion).toBe(2);
      expect([header.monotonicSequenceNumber, header.parentRecordHash]).toEqual([seq, parent]);
      expect(record.recordHash).toBe(tagged('reseal/v1/record-header', jcs(header)));
      const mac = createHmac('sha256', Buffer.from(vectors.anchor.keyHex, 'hex')).update(jcs(header)).digest('base64');
      expect(record.anchor).toEqual({ keyId: vectors.anchor.keyId, algorithm: 'HMAC_SHA_256', mac });
      expect(bindingProblem(record)).toBeNull();
      expect(record.writer.publicKey).toBe(vectors.keys[signer].publicKey);
      const kind = admit({ lineageId: vectors.lineageId, seq, inForce, legacyTip: false }, candidateOf(record));
      expect(kind).not.toBe('REFUSED');
      inForce = record.policy ?? inForce;
      expect(header.policyDigest).toBe(policyDigestOf(inForce));
      parent = record.recordHash;
    }
  });

  it('each broken chain fails where its verdict says: a binding (HASH_MISMATCH) or admission (LINEAGE_BROKEN)', () => {
    expect(vectors.chains[0].expected.verdict).toBe('VERIFIED_INTACT');
    for (const c of vectors.chains.slice(1)) {
      const records = resolve(c.records);
      const { seq, verdict } = c.expected.firstFailure;
      const failing = records[seq];
      if (verdict === 'HASH_MISMATCH') {
        expect([c.name, bindingProblem(failing)]).not.toEqual([c.name, null]);
      } else {
        expect(verdict).toBe('LINEAGE_BROKEN');
        expect(bindingProblem(failing)).toBeNull();
        let inForce: Json = null;
        for (const r of records.slice(0, seq)) inForce = r.policy ?? inForce;
        const legacyTip = seq > 0 && records[seq - 1].header.formatVersion === 1;
        expect([
          c.name,
          admit({ lineageId: vectors.lineageId, seq, inForce, legacyTip }, candidateOf(failing)),
        ]).toEqual([c.name, 'REFUSED']);
      }
      for (const r of records.slice(0, seq)) if (r.header.formatVersion === 2) expect(bindingProblem(r)).toBeNull();
    }
  });
});

describe('authorship vectors, reproduced by the code', () => {
  it('the generator gives the file exactly (an edited vector fails here)', async () => {
    expect(JSON.parse(JSON.stringify(await authorshipVectors()))).toEqual(vectors);
  });

  it('verifyChain gives each chain its recorded verdicts', async () => {
    const anchor = new LocalHmacAnchor({ keyId: vectors.anchor.keyId, key: Buffer.from(vectors.anchor.keyHex, 'hex') });
    for (const c of vectors.chains) {
      const result = await verifyChain(resolve(c.records), { lineageId: vectors.lineageId, anchor });
      expect([c.name, result.verdict, result.records.map((r) => r.verdict)]).toEqual([
        c.name,
        c.expected.verdict,
        c.expected.recordVerdicts,
      ]);
      expect(result.firstFailure?.reason ?? null).toBe(c.expected.firstFailure?.reason ?? null);
    }
  });
});
