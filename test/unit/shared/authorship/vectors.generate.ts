/**
 * Writes test/vectors/authorship.json (docs/authorship.md, "Vectors"): run once with
 * `npx tsx test/unit/shared/authorship/vectors.generate.ts > /tmp/authorship.json && mv /tmp/authorship.json test/vectors/authorship.json`,
 * then review the diff by hand. `vectors.test.ts` recomputes every value with plain node:crypto
 * and compares the file with {@link authorshipVectors}, so a format change shows up as a failing
 * test, never as a silently regenerated file.
 *
 * Everything is fixed: keys from 32-byte seeds, times, ids. Ed25519 and HMAC are deterministic.
 */
import { pathToFileURL } from 'node:url';
import type { AdmissionState } from '../../../../shared/authorship/admission';
import { admitWrite } from '../../../../shared/authorship/admit-write';
import { boundaryDigest } from '../../../../shared/authorship/boundary-digest';
import {
  type LineagePolicy,
  LineagePolicySchema,
  lineageIdFor,
  lineageIdMatchesPolicy,
  policyDigest,
} from '../../../../shared/authorship/lineage-policy';
import { LocalWriterSigner } from '../../../../shared/authorship/local-writer-signer';
import { requestSigningDigest } from '../../../../shared/authorship/request-signing-digest';
import {
  MAX_SIGNATURE_AGE_MS,
  MAX_SIGNATURE_FUTURE_MS,
  signatureAgeProblem,
} from '../../../../shared/authorship/signature-age';
import { verifyWriterSignature } from '../../../../shared/authorship/verify-writer-signature';
import { signWriteRequest } from '../../../../shared/authorship/write-signature';
import type { RecordWriter } from '../../../../shared/authorship/writer-block';
import { writerDigest } from '../../../../shared/authorship/writer-digest';
import { canonicalJson, type JsonValue } from '../../../../shared/canonical/canonical-json';
import { hashCanonical } from '../../../../shared/canonical/hash-canonical';
import { HashDomain } from '../../../../shared/canonical/hash-domain';
import { InvalidInputError } from '../../../../shared/errors';
import { lineageHeadOf } from '../../../../shared/seal/lineage-head';
import { LocalHmacAnchor } from '../../../../shared/seal/local-hmac-anchor';
import { payloadHash } from '../../../../shared/seal/payload-hash';
import { headerBytes, recordHashOf } from '../../../../shared/seal/record-header';
import type { SealInput } from '../../../../shared/seal/seal-input';
import { sealRecord } from '../../../../shared/seal/seal-record';
import type { SealedRecord } from '../../../../shared/seal/sealed-record';
import { variablesDigest } from '../../../../shared/seal/variables-digest';
import { verifyChain } from '../../../../shared/seal/verify-chain';
import { buildManifest } from '../../../../shared/triage/build-manifest';
import { manifestDigest } from '../../../../shared/triage/manifest-digest';
import type { ResidualWriteRequest, UnsignedWriteRequest } from '../../../../shared/write/write-request';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const seedOf = (first: number): Uint8Array => Uint8Array.from({ length: 32 }, (_, i) => first + i);

/** The anchor of the chain vectors: the key and key id of test/vectors/seal.json (bytes 0x00…0x1f). */
const ANCHOR_KEY = seedOf(0x00);
const ANCHOR_KEY_ID = 'test-key-1';
/** 2026-10-26T00:00:00Z: records are sealed one ms apart from here; writers sign 1 s before. */
const T0 = Date.UTC(2026, 9, 26);
const LABEL = 'agent-7';

/** The writer keys of the vectors, by role: each a 32-byte seed `first, first + 1, …`. */
const KEY_SEEDS = {
  writer: { keyId: 'test-writer-1', first: 0x80 },
  writer2: { keyId: 'test-writer-2', first: 0xa0 },
  recovery: { keyId: 'test-recovery-1', first: 0xc0 },
  stranger: { keyId: 'stranger-1', first: 0xe0 },
  successor: { keyId: 'arn:aws:kms:eu-west-1:111122223333:key/0b0e5a1e-7c44-4d5e-9a1f-3c2b1a0f9e8d', first: 0x40 },
  recovery2: { keyId: 'test-recovery-2', first: 0x60 },
} as const;
type Role = keyof typeof KEY_SEEDS;

/** Builds the content of test/vectors/authorship.json. */
export async function authorshipVectors(): Promise<Record<string, unknown>> {
  const signers = Object.fromEntries(
    Object.entries(KEY_SEEDS).map(([role, { keyId, first }]) => [
      role,
      LocalWriterSigner.fromSeed(keyId, seedOf(first)),
    ]),
  ) as Record<Role, LocalWriterSigner>;
  const writerKey = (role: Role) => ({ keyId: signers[role].keyId, publicKey: signers[role].publicKey });
  const pub = (role: Role) => signers[role].publicKey;

  const policies = {
    inception: { v: 1, writers: [writerKey('writer')], recoveryKeys: [pub('recovery')] },
    rotation: { v: 1, writers: [writerKey('writer'), writerKey('writer2')], recoveryKeys: [pub('recovery')] },
    revocation: { v: 1, writers: [writerKey('writer2')], recoveryKeys: [pub('recovery')] },
    recovery: { v: 1, writers: [writerKey('successor')], recoveryKeys: [pub('recovery2')] },
    strangerSole: { v: 1, writers: [writerKey('stranger')], recoveryKeys: [] },
    recoveryKeysDropped: { v: 1, writers: [writerKey('writer')], recoveryKeys: [] },
  } satisfies Record<string, LineagePolicy>;
  const lineageId = lineageIdFor(LABEL, policies.inception);
  const anchor = new LocalHmacAnchor({ keyId: ANCHOR_KEY_ID, key: ANCHOR_KEY });
  const manifest = buildManifest({
    env: { ARCH: 'arm64', REGION: 'eu-west-1' },
    structuralKeys: ['ARCH'],
    claimDependencyMap: { 'claim-1': ['REGION'] },
  });

  /** The unsigned request of step `index` of a lineage. */
  const unsigned = (index: number, extra: Partial<UnsignedWriteRequest> = {}): UnsignedWriteRequest => ({
    formatVersion: 1,
    residualId: `residual-${index}`,
    lineageId,
    sessionId: 'session-1',
    generationEpoch: 2,
    authority: 'OPERATIONAL',
    payload: { conclusion: `finding ${index}`, index, note: 'caf\u00e9 \u2713' },
    variablesUsed: [{ name: 'TASK_ID', value: 'task-42', freshness: 'FRESH_GENERATED', sourceEpoch: 2 }],
    boundary: {
      activeSessionId: 'session-1',
      predecessorSessionId: 'session-0',
      predecessorEpoch: 1,
      boundaryAtMs: T0 - 60_000,
    },
    declaredImmutableConstants: [],
    manifest,
    ...extra,
  });
  const sign = (request: UnsignedWriteRequest, role: Role, index: number) =>
    signWriteRequest(request, signers[role], T0 - 1000 + index);
  const seal = (
    request: ResidualWriteRequest,
    senderId: string | null,
    head: SealedRecord | null,
    index: number,
  ): Promise<SealedRecord> => {
    const input: SealInput = {
      lineageId: request.lineageId,
      residualId: request.residualId,
      sessionId: request.sessionId,
      payload: request.payload,
      generationEpoch: request.generationEpoch,
      authority: request.authority,
      manifest: request.manifest as SealInput['manifest'],
      verdictDigest: hashCanonical(HashDomain.VERDICT, { v: 1, index }),
      variablesUsed: request.variablesUsed,
      ...(request.supersedes ? { supersedes: request.supersedes } : {}),
      writer: { ...request.writer, senderId },
      boundary: request.boundary,
      declaredImmutableConstants: request.declaredImmutableConstants,
      policy: request.policy ?? null,
    };
    const tip = head ? { ...lineageHeadOf(head), policyDigest: head.header.policyDigest ?? null } : null;
    return sealRecord(input, tip, anchor, T0 + index);
  };

  // The chain: inception, an ordinary write (superseding seq 0, a cold start, declared constants),
  // a rotation adding a key, a revocation by the new key, a recovery, the successor's write.
  const steps: { event: string; role: Role; senderId: string | null; extra: Partial<UnsignedWriteRequest> }[] = [
    { event: 'INCEPTION', role: 'writer', senderId: 'AIDAEXAMPLEWRITER1', extra: { policy: policies.inception } },
    {
      event: 'WRITE',
      role: 'writer',
      senderId: null,
      extra: {
        variablesUsed: [{ name: 'REGION', value: 'eu-west-1', freshness: 'IMMUTABLE_CONSTANT', sourceEpoch: 2 }],
        declaredImmutableConstants: ['REGION'],
        boundary: { activeSessionId: 'session-1', boundaryAtMs: T0 - 30_000 },
      },
    },
    { event: 'ROTATION', role: 'writer', senderId: '000000000000', extra: { policy: policies.rotation } },
    { event: 'REVOCATION', role: 'writer2', senderId: 'AIDAEXAMPLEWRITER2', extra: { policy: policies.revocation } },
    { event: 'RECOVERY', role: 'recovery', senderId: 'AIDAEXAMPLERECOVERY', extra: { policy: policies.recovery } },
    { event: 'WRITE', role: 'successor', senderId: 'AROAEXAMPLE:agent-7', extra: { generationEpoch: 3 } },
  ];
  const requests: ResidualWriteRequest[] = [];
  const records: SealedRecord[] = [];
  const admissions: {
    name: string;
    state: AdmissionState;
    candidate: { publicKey: string; policy: LineagePolicy | null };
  }[] = [];
  let inForce: LineagePolicy | null = null;
  for (const [index, step] of steps.entries()) {
    const extra =
      index === 1
        ? { ...step.extra, supersedes: { seq: 0, recordHash: (records[0] as SealedRecord).recordHash } }
        : step.extra;
    const request = await sign(unsigned(index, extra), step.role, index);
    const record = await seal(request, step.senderId, records.at(-1) ?? null, index);
    admissions.push({
      name: `chain seq ${index}: ${step.event.toLowerCase()} by ${step.role}`,
      state: { lineageId, seq: index, inForce, legacyTip: false },
      candidate: { publicKey: request.writer.publicKey, policy: request.policy ?? null },
    });
    requests.push(request);
    records.push(record);
    inForce = request.policy ?? inForce;
  }

  const signedWrites = requests.map((request, index) => {
    const { writer } = request;
    const digests = {
      payloadHash: payloadHash(request.payload),
      manifestDigest: manifestDigest(request.manifest),
      variablesDigest: variablesDigest(request.variablesUsed),
      boundaryDigest: boundaryDigest(request.boundary, request.declaredImmutableConstants),
      policyDigest: request.policy ? policyDigest(request.policy) : null,
    };
    const signedContent = {
      v: 1,
      lineageId: request.lineageId,
      residualId: request.residualId,
      sessionId: request.sessionId,
      generationEpoch: request.generationEpoch,
      authority: request.authority,
      payloadHash: digests.payloadHash,
      manifestDigest: digests.manifestDigest,
      variablesDigest: digests.variablesDigest,
      boundaryDigest: digests.boundaryDigest,
      supersedes: request.supersedes ?? null,
      policyDigest: digests.policyDigest,
      keyId: writer.keyId,
      publicKey: writer.publicKey,
      signedAtMs: writer.signedAtMs,
    };
    const message = requestSigningDigest(request, writer);
    return {
      name: `chain seq ${index} (${(steps[index] as { event: string }).event.toLowerCase()})`,
      signer: (steps[index] as { role: Role }).role,
      request,
      digests,
      signedContentCanonical: canonicalJson(signedContent as JsonValue),
      messageHex: hex(message),
      signature: writer.signature,
      valid: verifyWriterSignature(message, writer.publicKey, writer.signature),
    };
  });

  // A signature over an edited request: the block stays, one field changes.
  const base = requests[1] as ResidualWriteRequest;
  const edits: [string, Partial<ResidualWriteRequest>][] = [
    ['generationEpoch raised (a stranger fencing the owner out)', { generationEpoch: 99 }],
    [
      'lineageId changed (the write moved to another lineage)',
      { lineageId: lineageIdFor(LABEL, policies.strangerSole) },
    ],
    ['payload changed', { payload: { conclusion: 'finding 1', index: 1, note: 'edited' } }],
    ['boundary changed', { boundary: { activeSessionId: 'session-1', boundaryAtMs: T0 - 29_999 } }],
    ['supersedes removed', { supersedes: undefined }],
    ['a policy added', { policy: policies.strangerSole }],
    ['signedAtMs changed', { writer: { ...base.writer, signedAtMs: base.writer.signedAtMs + 1 } }],
    ['keyId changed', { writer: { ...base.writer, keyId: 'stranger-1' } }],
    ['publicKey swapped for the stranger key', { writer: { ...base.writer, publicKey: pub('stranger') } }],
  ];
  const editedRequests = edits.map(([name, patch]) => {
    const request = JSON.parse(JSON.stringify({ ...base, ...patch })) as ResidualWriteRequest;
    const message = requestSigningDigest(request, request.writer);
    return {
      name,
      request,
      messageHex: hex(message),
      valid: verifyWriterSignature(message, request.writer.publicKey, request.writer.signature),
    };
  });

  const freshness = [
    { name: 'signed at the moment of receipt', signedAtMs: T0, receivedAtMs: T0 },
    { name: 'exactly the maximum age', signedAtMs: T0 - MAX_SIGNATURE_AGE_MS, receivedAtMs: T0 },
    {
      name: 'one ms older than the maximum age (a replay)',
      signedAtMs: T0 - MAX_SIGNATURE_AGE_MS - 1,
      receivedAtMs: T0,
    },
    { name: 'exactly the tolerated clock skew ahead', signedAtMs: T0 + MAX_SIGNATURE_FUTURE_MS, receivedAtMs: T0 },
    { name: 'one ms further ahead', signedAtMs: T0 + MAX_SIGNATURE_FUTURE_MS + 1, receivedAtMs: T0 },
  ].map((c) => ({ ...c, accepted: signatureAgeProblem(c, c.receivedAtMs) === null }));

  const writers: { name: string; writer: RecordWriter }[] = [
    ...records.map((record, index) => ({ name: `chain seq ${index}`, writer: record.writer as RecordWriter })),
  ];
  const writerDigests = writers.map(({ name, writer }) => ({
    name,
    writer,
    canonical: canonicalJson({ v: 1, ...writer } as JsonValue),
    digest: writerDigest(writer),
  }));
  const boundaryDigests = [requests[0], requests[1]].map((request, index) => {
    const { boundary, declaredImmutableConstants } = request as ResidualWriteRequest;
    return {
      name: index === 0 ? 'an inherited context (predecessor named)' : 'a cold start with a declared constant',
      boundary,
      declaredImmutableConstants,
      canonical: canonicalJson({ v: 1, boundary, declaredImmutableConstants } as JsonValue),
      digest: boundaryDigest(boundary, declaredImmutableConstants),
    };
  });
  const policyDigests = Object.entries(policies).map(([name, policy]) => ({
    name,
    policy,
    canonical: canonicalJson(policy as JsonValue),
    digest: policyDigest(policy),
    lineageId: lineageIdFor(LABEL, policy),
  }));

  const suffix = (policy: LineagePolicy) => policyDigest(policy).slice(0, 32);
  const inceptionPolicy = policies.inception;
  const lineageIds = [
    { name: 'the chain lineage, its inception policy', lineageId, policy: inceptionPolicy },
    { name: 'a dot inside the label', lineageId: `team.a.${suffix(inceptionPolicy)}`, policy: inceptionPolicy },
    {
      name: "another policy's suffix (a stranger squatting the label)",
      lineageId: lineageIdFor(LABEL, policies.strangerSole),
      policy: inceptionPolicy,
    },
    {
      name: 'the suffix in upper case',
      lineageId: `${LABEL}.${suffix(inceptionPolicy).toUpperCase()}`,
      policy: inceptionPolicy,
    },
    {
      name: 'the suffix one character short',
      lineageId: `${LABEL}.${suffix(inceptionPolicy).slice(0, 31)}`,
      policy: inceptionPolicy,
    },
    {
      name: 'the whole digest as suffix',
      lineageId: `${LABEL}.${policyDigest(inceptionPolicy)}`,
      policy: inceptionPolicy,
    },
    { name: 'no label', lineageId: `.${suffix(inceptionPolicy)}`, policy: inceptionPolicy },
    { name: 'no dot', lineageId: suffix(inceptionPolicy), policy: inceptionPolicy },
  ].map((c) => ({ ...c, matches: lineageIdMatchesPolicy(c.lineageId, c.policy) }));
  const badLabels = ['', '-agent', '.agent', 'agent 7', 'a'.repeat(168), 'agent\u00e9'].map((label) => ({
    label,
    refused: refuses(() => lineageIdFor(label, inceptionPolicy)),
  }));

  const w = writerKey('writer');
  const invalidPolicies = [
    { name: 'no writer', policy: { v: 1, writers: [], recoveryKeys: [] } },
    { name: 'a writer named twice', policy: { v: 1, writers: [w, { ...w, keyId: 'again' }], recoveryKeys: [] } },
    {
      name: 'a recovery key named twice',
      policy: { v: 1, writers: [w], recoveryKeys: [pub('recovery'), pub('recovery')] },
    },
    {
      name: 'seventeen writers',
      policy: {
        v: 1,
        writers: Array.from({ length: 17 }, (_, i) => ({
          keyId: `w-${i}`,
          publicKey: LocalWriterSigner.fromSeed('x', seedOf(i + 1)).publicKey,
        })),
        recoveryKeys: [],
      },
    },
    {
      name: 'nine recovery keys',
      policy: {
        v: 1,
        writers: [w],
        recoveryKeys: Array.from({ length: 9 }, (_, i) => LocalWriterSigner.fromSeed('x', seedOf(i + 1)).publicKey),
      },
    },
    {
      name: 'a public key with padding bits set (non-canonical base64)',
      policy: {
        v: 1,
        writers: [{ ...w, publicKey: `${w.publicKey.slice(0, 42)}${nonCanonicalLast(w.publicKey)}=` }],
        recoveryKeys: [],
      },
    },
    {
      name: 'a public key of 31 bytes',
      policy: { v: 1, writers: [{ ...w, publicKey: Buffer.alloc(31, 1).toString('base64') }], recoveryKeys: [] },
    },
    { name: 'an empty key id', policy: { v: 1, writers: [{ ...w, keyId: '' }], recoveryKeys: [] } },
    {
      name: 'a control character in the key id',
      policy: { v: 1, writers: [{ ...w, keyId: 'a\nb' }], recoveryKeys: [] },
    },
    { name: 'an unknown member', policy: { ...inceptionPolicy, threshold: 1 } },
    { name: 'an unknown member of a writer', policy: { v: 1, writers: [{ ...w, role: 'admin' }], recoveryKeys: [] } },
    { name: 'version 2', policy: { ...inceptionPolicy, v: 2 } },
    { name: 'recovery keys missing', policy: { v: 1, writers: [w] } },
  ].map((c) => {
    const parsed = LineagePolicySchema.safeParse(c.policy);
    if (parsed.success) throw new Error(`invalid policy vector "${c.name}" is accepted`);
    return { ...c, issuePath: (parsed.error.issues[0]?.path ?? []).map(String).join('.') };
  });

  // Admission: the chain's own steps (admitted), and the refusals of docs/authorship.md.
  const { inception: p0, rotation: p1, revocation: p2, recovery: p3 } = policies;
  const cases: typeof admissions = [
    {
      name: 'a stranger writes',
      state: { lineageId, seq: 1, inForce: p0, legacyTip: false },
      candidate: { publicKey: pub('stranger'), policy: null },
    },
    {
      name: 'a stranger rotates in its own key',
      state: { lineageId, seq: 1, inForce: p0, legacyTip: false },
      candidate: { publicKey: pub('stranger'), policy: policies.strangerSole },
    },
    {
      name: 'the revoked key writes',
      state: { lineageId, seq: 4, inForce: p2, legacyTip: false },
      candidate: { publicKey: pub('writer'), policy: null },
    },
    {
      name: 'the revoked key rotates itself back in',
      state: { lineageId, seq: 4, inForce: p2, legacyTip: false },
      candidate: { publicKey: pub('writer'), policy: p1 },
    },
    {
      name: 'a writer drops the recovery keys (a stolen key locking the owner out)',
      state: { lineageId, seq: 2, inForce: p0, legacyTip: false },
      candidate: { publicKey: pub('writer'), policy: policies.recoveryKeysDropped },
    },
    {
      name: 'a writer replaces the recovery keys',
      state: { lineageId, seq: 2, inForce: p0, legacyTip: false },
      candidate: { publicKey: pub('writer'), policy: p3 },
    },
    {
      name: 'a recovery key writes an ordinary record',
      state: { lineageId, seq: 1, inForce: p0, legacyTip: false },
      candidate: { publicKey: pub('recovery'), policy: null },
    },
    {
      name: 'a replaced recovery key recovers',
      state: { lineageId, seq: 6, inForce: p3, legacyTip: false },
      candidate: { publicKey: pub('recovery'), policy: p0 },
    },
    {
      name: 'inception without a policy',
      state: { lineageId, seq: 0, inForce: null, legacyTip: false },
      candidate: { publicKey: pub('writer'), policy: null },
    },
    {
      name: 'inception with a policy the lineage id does not name',
      state: { lineageId, seq: 0, inForce: null, legacyTip: false },
      candidate: { publicKey: pub('stranger'), policy: policies.strangerSole },
    },
    {
      name: 'inception signed by the recovery key',
      state: { lineageId, seq: 0, inForce: null, legacyTip: false },
      candidate: { publicKey: pub('recovery'), policy: p0 },
    },
    {
      name: 'a write past seq 0 with no policy in force',
      state: { lineageId, seq: 3, inForce: null, legacyTip: false },
      candidate: { publicKey: pub('writer'), policy: null },
    },
    {
      name: 'a legacy (format-1) tip',
      state: { lineageId, seq: 3, inForce: null, legacyTip: true },
      candidate: { publicKey: pub('writer'), policy: p0 },
    },
    {
      name: 'the writer at a legacy seq 0 tip',
      state: { lineageId, seq: 0, inForce: null, legacyTip: true },
      candidate: { publicKey: pub('writer'), policy: p0 },
    },
    {
      name: 'a second writer keeps the recovery keys while removing the first (revocation)',
      state: { lineageId, seq: 3, inForce: p1, legacyTip: false },
      candidate: { publicKey: pub('writer2'), policy: p2 },
    },
    {
      name: 'a recovery key replaces everything',
      state: { lineageId, seq: 4, inForce: p2, legacyTip: false },
      candidate: { publicKey: pub('recovery'), policy: p3 },
    },
  ];
  const admission = [...admissions, ...cases].map((c) => {
    const outcome = admitWrite(c.state, c.candidate);
    return { ...c, ...('admitted' in outcome ? { admitted: outcome.admitted } : { refused: outcome.refused }) };
  });

  // Chains to verify: the whole chain, and what a stranger, a revoked key, the operator (who holds
  // the MAC key) and the table writer can make of it.
  const verify = async (chain: unknown[]) => {
    const result = await verifyChain(chain, { lineageId, anchor });
    return {
      verdict: result.verdict,
      firstFailure: result.firstFailure
        ? { seq: result.firstFailure.seq, verdict: result.firstFailure.verdict, reason: result.firstFailure.reason }
        : null,
      recordVerdicts: result.records.map((r) => r.verdict),
    };
  };
  const upTo = (n: number) => records.slice(0, n).map((r) => structuredClone(r));
  const extend = async (n: number, role: Role, extra: Partial<UnsignedWriteRequest>) => {
    const chain = upTo(n);
    const request = await sign(unsigned(n, extra), role, n);
    return [...chain, await seal(request, null, chain.at(-1) ?? null, n)];
  };
  const edited = (seq: number, edit: (record: SealedRecord) => void) => {
    const chain = upTo(records.length);
    edit(chain[seq] as SealedRecord);
    return chain;
  };
  const remac = async (seq: number, patch: Record<string, unknown>) => {
    const chain = upTo(seq + 1);
    const record = chain[seq] as SealedRecord;
    const header = { ...record.header, ...patch };
    chain[seq] = {
      ...record,
      header,
      recordHash: recordHashOf(header),
      anchor: await anchor.generateMac(headerBytes(header)),
    };
    return chain;
  };
  const legacyStart = await sealRecord(
    {
      lineageId,
      residualId: 'residual-0',
      sessionId: 'session-1',
      payload: { conclusion: 'finding 0' },
      generationEpoch: 2,
      authority: 'OPERATIONAL',
      manifest,
      verdictDigest: hashCanonical(HashDomain.VERDICT, { v: 1, index: 0 }),
      variablesUsed: [],
    },
    null,
    anchor,
    T0,
  );
  const legacyThenSigned = [
    legacyStart,
    await seal(await sign(unsigned(1, { policy: p0 }), 'writer', 1), null, legacyStart, 1),
  ];
  const chainCases: { name: string; records: unknown[] }[] = [
    { name: 'the whole chain', records: upTo(records.length) },
    { name: 'a stranger extends the lineage', records: await extend(1, 'stranger', {}) },
    { name: 'the revoked key writes after the revocation', records: await extend(4, 'writer', {}) },
    {
      name: 'a writer drops the recovery keys',
      records: await extend(2, 'writer', { policy: policies.recoveryKeysDropped }),
    },
    {
      name: 'the replaced recovery key recovers again',
      records: await extend(6, 'recovery', { policy: p0, generationEpoch: 3 }),
    },
    {
      name: 'inception by a policy the lineage id does not name',
      records: await extendAt0('stranger', policies.strangerSole),
    },
    { name: 'a format-2 record extends a format-1 (legacy) lineage', records: legacyThenSigned },
    {
      name: 'the operator re-MACs a record with a raised epoch (the writer signature fails)',
      records: await remac(1, { generationEpoch: 99 }),
    },
    {
      name: 'the table writer edits the policy of the rotation',
      records: edited(2, (r) => {
        (r.policy as { writers: unknown[] }).writers.push(writerKey('stranger'));
      }),
    },
    {
      name: 'the table writer swaps in the stranger key',
      records: edited(5, (r) => {
        (r.writer as { publicKey: string }).publicKey = pub('stranger');
      }),
    },
    {
      name: 'the table writer edits the sender id',
      records: edited(0, (r) => {
        (r.writer as { senderId: string | null }).senderId = 'AIDASTRANGER';
      }),
    },
    {
      name: 'the table writer edits the boundary',
      records: edited(1, (r) => {
        (r.boundary as { boundaryAtMs: number }).boundaryAtMs += 1;
      }),
    },
    {
      name: 'the table writer removes the policy of the inception',
      records: edited(0, (r) => {
        r.policy = null;
      }),
    },
  ];
  async function extendAt0(role: Role, policy: LineagePolicy) {
    const request = await sign(unsigned(0, { policy }), role, 0);
    return [await seal(request, null, null, 0)];
  }
  // A record equal to the chain's record at the same seq is written as that seq (the file stays small).
  const chains = [];
  for (const c of chainCases) {
    const compact = c.records.map((r, i) =>
      records[i] && canonicalJson(r as JsonValue) === canonicalJson(records[i] as JsonValue) ? i : r,
    );
    chains.push({ name: c.name, records: compact, expected: await verify(c.records) });
  }

  return {
    description:
      'Authorship vectors (docs/authorship.md): signed writes, writer, boundary and lineage-policy digests, self-certifying lineage ids, admission, and format-2 chains. ' +
      'Each digest is SHA-256(ASCII(tag) || 0x00 || UTF-8(RFC 8785 text)); tags: reseal/v1/signed-write (messageHex, over signedContentCanonical), reseal/v1/writer, reseal/v1/boundary, reseal/v1/lineage-policy; payloadHash, manifestDigest, variablesDigest as in docs/canonical-form.md. ' +
      'signature = base64 of pure Ed25519 (RFC 8032) over the 32 bytes of messageHex, under the key of keys[signer].seedHex. lineageId = label + "." + first 32 hex characters of the policy digest. ' +
      'Records are sealed with the HMAC key of seal.json; in chains, a number n stands for chain[n].record. Generated by test/unit/shared/authorship/vectors.generate.ts; regenerate only on a deliberate format change.',
    label: LABEL,
    lineageId,
    anchor: { keyId: ANCHOR_KEY_ID, keyHex: hex(ANCHOR_KEY) },
    limits: { maxSignatureAgeMs: MAX_SIGNATURE_AGE_MS, maxSignatureFutureMs: MAX_SIGNATURE_FUTURE_MS },
    keys: Object.fromEntries(
      Object.entries(KEY_SEEDS).map(([role, { keyId, first }]) => [
        role,
        { keyId, seedHex: hex(seedOf(first)), publicKey: signers[role as Role].publicKey },
      ]),
    ),
    signedWrites,
    editedRequests,
    freshness,
    writerDigests,
    boundaryDigests,
    policyDigests,
    lineageIds,
    badLabels,
    invalidPolicies,
    admission,
    chain: steps.map((step, index) => ({ event: step.event, signer: step.role, record: records[index] })),
    chains,
  };
}

/** The last base64 character of a 32-byte key with one padding bit set (same bytes, non-canonical text). */
function nonCanonicalLast(publicKey: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  return alphabet[alphabet.indexOf(publicKey.charAt(42)) + 1] as string;
}

/** Whether `fn` throws an {@link InvalidInputError}. */
function refuses(fn: () => unknown): boolean {
  try {
    fn();
    return false;
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    return true;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${JSON.stringify(await authorshipVectors(), null, 2)}\n`);
}
