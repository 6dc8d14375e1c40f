import { createHash } from 'node:crypto';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { soleWriterLineageId } from '../../../client/sole-writer-policy';
import { UNTRUSTED_NOTE } from '../../../mcp/outputs/untrusted-note';
import type { ResealMcpDeps } from '../../../mcp/reseal-mcp-deps';
import { createResealMcpServer } from '../../../mcp/server';
import { canonicalJson } from '../../../shared/canonical/canonical-json';
import { LocalEd25519Signer } from '../../../shared/log/local-ed25519-signer';
import { guardKeyName } from '../../../shared/log/log-names';
import { rejectionStatement, signOutcome } from '../../../shared/log/outcome-statement';
import { verifyRecordProof } from '../../../shared/log/record-proof';
import { openCheckpoint } from '../../../shared/log/verified-checkpoint';
import type { RejectionRecord } from '../../../shared/ports/lineage-store';
import type { WriterSigner } from '../../../shared/ports/writer-signer';
import { requestDigest } from '../../../shared/write/request-digest';
import type { ResidualWriteRequest } from '../../../shared/write/write-request';
import {
  MCP_CLAIMS as CLAIMS,
  MCP_ENV as env,
  MCP_FIRST_WRITE as firstWrite,
  MCP_LINEAGE as LINEAGE,
  MCP_TOOL_NAMES,
} from '../../helpers/mcp-fixtures';
import { staleRejection } from '../../helpers/outcome-factories';
import { TEST_LOG_KEY, TEST_LOG_NAME } from '../../helpers/pipeline-keys';
import { TEST_NOW_MS } from '../../helpers/seal-factories';
import { STRANGER_WRITER, TEST_WRITER, testLineageId } from '../../helpers/writer-factories';
import { pipeline } from './pipeline';

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

async function connected(deps: ResealMcpDeps): Promise<Client> {
  const server = createResealMcpServer(deps);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  close = async () => {
    await client.close();
    await server.close();
  };
  return client;
}

type Structured = Record<string, unknown> & { error?: string };
async function call(mcp: Client, name: string, args: Record<string, unknown>) {
  const result = await mcp.callTool({ name, arguments: args });
  return { isError: result.isError === true, out: result.structuredContent as Structured };
}

const drifted = { ...env, 'tool:npm': '11.0.0' };

/** A rejection of `request` as the guard would file it, but signed by a key that is not the guard's. */
async function forgedRejection(request: ResidualWriteRequest, messageId: string): Promise<RejectionRecord> {
  const forger = new LocalEd25519Signer(
    guardKeyName(TEST_LOG_NAME),
    Uint8Array.from({ length: 32 }, (_, i) => 0xc0 + i),
  );
  const unsigned = staleRejection(request.residualId, {
    lineageId: request.lineageId,
    messageId,
    requestDigest: requestDigest(request),
    bodyDigest: createHash('sha256').update(canonicalJson(request), 'utf8').digest('hex'),
    atMs: TEST_NOW_MS,
  });
  return { ...unsigned, statement: await signOutcome(rejectionStatement(TEST_LOG_NAME, unsigned), forger) };
}

describe('the Reseal MCP server in process, over the real pipeline on an in-memory table', () => {
  it('lists the four tools with JSON Schemas from the wire-format zod schemas', async () => {
    const mcp = await connected(pipeline().deps(env));
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES]);
    const write = tools.find((t) => t.name === 'reseal_write');
    expect(write?.inputSchema).toMatchObject({
      type: 'object',
      required: ['lineageId', 'sessionId', 'generationEpoch'],
    });
    const properties = write?.inputSchema.properties as Record<string, { items?: { properties?: object } }>;
    // The variables are the wire format's SessionVariable (with freshness and receipt), plus reprobe.
    expect(Object.keys(properties.variables?.items?.properties ?? {})).toEqual(
      expect.arrayContaining(['name', 'value', 'freshness', 'sourceEpoch', 'receipt', 'reprobe']),
    );
    expect(write?.outputSchema).toMatchObject({ type: 'object' });
  });

  it('reseal_write: builds the request (claims layout, reprobe receipts, provider snapshot); SEALED with a signed checkpoint and an inclusion proof that verify', async () => {
    const published: ResidualWriteRequest[] = [];
    const p = pipeline({ onPublish: async (request) => void published.push(request) });
    const mcp = await connected(p.deps(env));
    const { isError, out } = await call(mcp, 'reseal_write', {
      ...firstWrite,
      variables: [
        {
          name: 'INSTANCE',
          value: 'i-0abc',
          freshness: 'VERIFIED_INHERITED',
          sourceEpoch: 2,
          reprobe: { probe: 'ec2:DescribeInstances' },
        },
      ],
    });
    expect(isError).toBe(false);
    expect(out).toMatchObject({
      outcome: 'SEALED',
      lineageId: LINEAGE,
      seq: 0,
      supersedes: null,
      claims: ['node-builds', 'npm-ci-works'],
      snapshot: { source: 'providers', keys: 3 },
      checkpoint: { origin: `${TEST_LOG_NAME}/${LINEAGE}`, size: 1 },
      proof: { leafIndex: 0, treeSize: 1, inclusionProof: [] },
    });
    const [request] = published;
    expect(request?.payload).toEqual({
      claims: { 'node-builds': 'npm run build passes', 'npm-ci-works': { exit: 0 } },
    });
    expect(request?.residualId).toMatch(/^r-[0-9a-f-]{36}$/);
    expect(request?.boundary).toEqual({
      activeSessionId: 's-3',
      predecessorSessionId: 's-2',
      predecessorEpoch: 2,
      boundaryAtMs: TEST_NOW_MS - 60_000,
    });
    expect(request?.variablesUsed[0]?.receipt).toMatchObject({
      probe: 'ec2:DescribeInstances',
      sessionId: 's-3',
      probedAtMs: TEST_NOW_MS,
    });
    // The answer holds up with the log's public key alone: the note, and the record's proof in it.
    const checkpoint = out.checkpoint as { note: string; rootHash: string };
    const opened = openCheckpoint(checkpoint.note, TEST_LOG_KEY, `${TEST_LOG_NAME}/${LINEAGE}`);
    expect(Buffer.from(opened.rootHash).toString('hex')).toBe(checkpoint.rootHash);
    const stored = await p.store.readRecord(LINEAGE, 0);
    const proven = verifyRecordProof(stored, out.proof as never, opened, LINEAGE);
    expect(proven).toMatchObject({ verdict: 'VERIFIED_INTACT', record: { recordHash: out.recordHash } });
    // The client kept the note: the server has no checkpoint file of its own.
    expect(await p.checkpointStore.load(`${TEST_LOG_NAME}/${LINEAGE}`)).toBe(checkpoint.note);
  });

  it('reseal_write: forged and unsigned rejections of this very write, planted before it is sealed, are ignored: SEALED', async () => {
    let planted: RejectionRecord[] = [];
    const p = pipeline({
      onPublish: async (request) => {
        planted = [
          await forgedRejection(request, 'forged-1'),
          { ...(await forgedRejection(request, 'unsigned-1')), statement: null },
        ];
        for (const rejection of planted) await p.store.recordRejection(rejection);
      },
    });
    const mcp = await connected(p.deps(env));
    const { isError, out } = await call(mcp, 'reseal_write', { ...firstWrite, residualId: 'r-forged-target' });
    expect(planted).toHaveLength(2);
    expect(await p.store.listRejections(LINEAGE, { residualId: 'r-forged-target' })).toHaveLength(2);
    // The client looked at the table while only the planted refusals were there, then waited.
    expect(p.waits()).toBeGreaterThan(0);
    expect(isError).toBe(false);
    expect(out).toMatchObject({ outcome: 'SEALED', residualId: 'r-forged-target', seq: 0 });
  });

  it('reseal_write: a refusal the guard records unsigned (WRITER_SIGNATURE_INVALID) is never an outcome: TIMEOUT, the refusal only as unproven', async () => {
    // The write is signed, then reaches the queue 16 minutes later: too old for the guard
    // (docs/authorship.md, "Replay"), which refuses it without a signature.
    const late: WriterSigner = {
      keyId: TEST_WRITER.keyId,
      publicKey: TEST_WRITER.publicKey,
      sign: async (digest) => {
        p.clock.now += 16 * 60_000;
        return TEST_WRITER.sign(digest);
      },
    };
    const p = pipeline({ writer: late });
    // A writer given to the pipeline starts its own sole-writer lineage.
    const lineageId = soleWriterLineageId('agent-7', late);
    const mcp = await connected(p.deps(env));
    const { isError, out } = await call(mcp, 'reseal_write', {
      ...firstWrite,
      lineageId,
      residualId: 'r-late',
      timeoutMs: 5_000,
    });
    expect(await p.store.listRejections(lineageId, { residualId: 'r-late' })).toMatchObject([
      { stage: 'GUARD', reason: 'WRITER_SIGNATURE_INVALID', statement: null },
    ]);
    expect(isError).toBe(true);
    expect(out).toMatchObject({
      error: 'TIMEOUT',
      lineageId,
      residualId: 'r-late',
      untrusted: { note: UNTRUSTED_NOTE, refusals: [{ stage: 'GUARD', reason: 'WRITER_SIGNATURE_INVALID' }] },
    });
    expect(out).not.toHaveProperty('statement');
    expect(out.message).toMatch(/unproven/);
  });

  it('reseal_write: unsigned WRITER_NOT_ADMITTED and WRITER_SIGNATURE_INVALID refusals of this very write, planted, are ignored: SEALED', async () => {
    const p = pipeline({
      onPublish: async (request) => {
        for (const [reason, stage] of [
          ['WRITER_NOT_ADMITTED', 'SEALER'],
          ['WRITER_SIGNATURE_INVALID', 'GUARD'],
        ] as const) {
          await p.store.recordRejection({
            ...(await forgedRejection(request, `planted-${reason}`)),
            stage,
            reason,
            rejectedVariables: [],
            statement: null,
          });
        }
      },
    });
    const mcp = await connected(p.deps(env));
    const { isError, out } = await call(mcp, 'reseal_write', { ...firstWrite, residualId: 'r-planted-writer' });
    expect(await p.store.listRejections(LINEAGE, { residualId: 'r-planted-writer' })).toHaveLength(2);
    expect(isError).toBe(false);
    expect(out).toMatchObject({ outcome: 'SEALED', residualId: 'r-planted-writer', seq: 0 });
  });

  it('reseal_write without a writer key, or to a lineage its key does not write: INVALID_INPUT at writer; nothing published', async () => {
    const published: ResidualWriteRequest[] = [];
    const onPublish = async (r: ResidualWriteRequest) => void published.push(r);
    const unkeyed = await connected(pipeline({ onPublish, writer: null }).deps(env));
    const noKey = await call(unkeyed, 'reseal_write', firstWrite);
    expect(noKey).toMatchObject({ isError: true, out: { error: 'INVALID_INPUT', issues: [{ path: 'writer' }] } });
    await close?.();
    const keyed = await connected(pipeline({ onPublish }).deps(env));
    const strangers = testLineageId('agent-7', {
      v: 1,
      writers: [{ keyId: STRANGER_WRITER.keyId, publicKey: STRANGER_WRITER.publicKey }],
      recoveryKeys: [],
    });
    const notAdmitted = await call(keyed, 'reseal_write', { ...firstWrite, lineageId: strangers });
    expect(notAdmitted).toMatchObject({
      isError: true,
      out: { error: 'INVALID_INPUT', lineageId: strangers, issues: [{ path: 'writer' }] },
    });
    expect(published).toEqual([]);
  });

  it('reseal_write: a stale write → WRITE_REJECTED by the guard, its signed statement and what to do', async () => {
    const mcp = await connected(pipeline().deps(env));
    const { isError, out } = await call(mcp, 'reseal_write', {
      ...firstWrite,
      variables: [{ name: 'RUNNER_ID', value: 'runner-17', freshness: 'UNVERIFIED_INHERITED', sourceEpoch: 2 }],
    });
    expect(isError).toBe(true);
    expect(out).toMatchObject({
      error: 'WRITE_REJECTED',
      stage: 'GUARD',
      reason: 'STALE_STATE',
      rejectedVariables: [{ name: 'RUNNER_ID', reason: 'UNVERIFIED_INHERITED' }],
    });
    expect(out.statement).toMatch(/^reseal\/v1\/outcome\n/);
    expect((out.rejectedVariables as { action: string }[])[0]?.action).toMatch(/reprobe/);
  });

  it('reseal_write: a causal key missing from the snapshot → INVALID_INPUT naming it; nothing published', async () => {
    const published: ResidualWriteRequest[] = [];
    const mcp = await connected(pipeline({ onPublish: async (r) => void published.push(r) }).deps(env));
    const { isError, out } = await call(mcp, 'reseal_write', {
      lineageId: LINEAGE,
      sessionId: 's-3',
      generationEpoch: 3,
      claims: { 'git-works': { content: 'ok', causalKeys: ['tool:git'] } },
    });
    expect(isError).toBe(true);
    expect(out).toMatchObject({ error: 'INVALID_INPUT' });
    expect(JSON.stringify(out)).toContain('tool:git');
    expect(published).toEqual([]);
  });

  it('arguments that fail the wire schema are refused before anything runs', async () => {
    const published: ResidualWriteRequest[] = [];
    const mcp = await connected(pipeline({ onPublish: async (r) => void published.push(r) }).deps(env));
    const result = await mcp.callTool({
      name: 'reseal_write',
      arguments: { lineageId: 'has spaces', sessionId: 's', generationEpoch: -1 },
    });
    expect(result.isError).toBe(true);
    expect(published).toEqual([]);
  });

  it('recall after drift, re-seal with supersedes, recall again, verify and inspect: every answer proven by the client', async () => {
    const p = pipeline();
    const mcp = await connected(p.deps(env));
    const written = await call(mcp, 'reseal_write', { ...firstWrite, env });
    const recalled = await call(mcp, 'reseal_recall', { lineageId: LINEAGE, env: drifted });
    expect(recalled.isError).toBe(false);
    expect(recalled.out).toMatchObject({
      outcome: 'TRIAGED',
      seq: 0,
      recordHash: written.out.recordHash,
      delta: { verdict: 'PARTIAL_REPROBE_REQUIRED', changed: ['tool:npm'] },
      keptClaims: [{ claimId: 'node-builds', causalKeys: ['tool:node'], content: 'npm run build passes' }],
      reprobeClaims: [{ claimId: 'npm-ci-works', driftedKeys: ['tool:npm'], previousContent: { exit: 0 } }],
      verification: {
        verdict: 'VERIFIED_INTACT',
        checkpointSize: 1,
        truncationChecked: true, // against the checkpoint the client kept from the write
        checkpoint: { note: (written.out.checkpoint as { note: string }).note },
        proof: { leafIndex: 0, treeSize: 1 },
        callerCheckpoint: null,
      },
      supersedes: { seq: 0, recordHash: written.out.recordHash },
    });
    const resealed = await call(mcp, 'reseal_write', {
      ...firstWrite,
      sessionId: 's-4',
      generationEpoch: 4,
      predecessor: { sessionId: 's-3', epoch: 3 },
      claims: { ...CLAIMS, 'npm-ci-works': { content: { exit: 0, npm: '11.0.0' }, causalKeys: ['tool:npm'] } },
      env: drifted,
      supersedes: recalled.out.supersedes,
    });
    expect(resealed.out).toMatchObject({
      outcome: 'SEALED',
      seq: 1,
      supersedes: recalled.out.supersedes,
      checkpoint: { size: 2 },
      proof: { leafIndex: 1, treeSize: 2 },
    });
    const again = await call(mcp, 'reseal_recall', {
      lineageId: LINEAGE,
      env: drifted,
      checkpoint: { seq: 0, recordHash: written.out.recordHash },
    });
    expect(again.out).toMatchObject({
      seq: 1,
      delta: { verdict: 'NO_DRIFT' },
      reprobeClaims: [],
      verification: { checkpointSize: 2, callerCheckpoint: { seq: 0 } },
    });
    expect(again.out.keptClaims).toHaveLength(2);
    const verified = await call(mcp, 'reseal_verify', { lineageId: LINEAGE });
    expect(verified.out).toMatchObject({
      verdict: 'VERIFIED_INTACT',
      records: 2,
      head: { seq: 1, recordHash: resealed.out.recordHash },
      checkpoint: { size: 2, note: (resealed.out.checkpoint as { note: string }).note },
      trustedCheckpointSize: 2,
      tailCheckedAgainst: { seq: 1, recordHash: resealed.out.recordHash, source: 'signed-checkpoint' },
      truncationChecked: true,
    });
    expect(verified.out.logKey).toMatch(/^reseal\/test-stack\+[0-9a-f]{8}\+/);
    const timeline = await call(mcp, 'reseal_inspect', { lineageId: LINEAGE });
    expect(timeline.out).toMatchObject({
      verdict: 'VERIFIED_INTACT',
      records: [
        { seq: 0, supersedes: null, verification: 'VERIFIED_INTACT' },
        { seq: 1, supersedes: { seq: 0 }, verification: 'VERIFIED_INTACT' },
      ],
      checkpoint: { size: 2 },
      truncationChecked: true,
    });
  });

  it('docs/triage.md "Keys declared absent" through MCP: a claim on an absent key is sealed, and re-probed when the key appears', async () => {
    const p = pipeline();
    const mcp = await connected(p.deps(env));
    const written = await call(mcp, 'reseal_write', {
      ...firstWrite,
      claims: {
        ...CLAIMS,
        'no-proxy': { content: 'downloads go direct', absentKeys: ['env:HTTP_PROXY'] },
      },
      env,
    });
    expect(written.out).toMatchObject({ outcome: 'SEALED' });
    const withProxy = { ...env, 'env:HTTP_PROXY': 'http://10.0.0.1:3128' };
    const recalled = await call(mcp, 'reseal_recall', { lineageId: LINEAGE, env: withProxy });
    expect(recalled.out).toMatchObject({
      outcome: 'TRIAGED',
      delta: { verdict: 'PARTIAL_REPROBE_REQUIRED', appeared: ['env:HTTP_PROXY'] },
      reprobeClaims: [{ claimId: 'no-proxy', previousContent: 'downloads go direct' }],
    });
    // An undeclared key appearing is ambient: every claim kept.
    const ambient = await call(mcp, 'reseal_recall', { lineageId: LINEAGE, env: { ...env, 'env:UNRELATED': '1' } });
    expect(ambient.out).toMatchObject({ delta: { verdict: 'AMBIENT_DRIFT_ONLY' } });
  });

  it('a key declared absent (NFC) that appears in NFD: the re-probed claim names it among its drifted keys', async () => {
    const p = pipeline();
    const mcp = await connected(p.deps(env));
    const nfc = 'env:caf\u00e9';
    const nfd = 'env:cafe\u0301';
    const written = await call(mcp, 'reseal_write', {
      ...firstWrite,
      claims: { ...CLAIMS, 'no-cafe': { content: 'no café configured', absentKeys: [nfc] } },
      env,
    });
    expect(written.out).toMatchObject({ outcome: 'SEALED' });
    const recalled = await call(mcp, 'reseal_recall', { lineageId: LINEAGE, env: { ...env, [nfd]: '1' } });
    expect(recalled.out).toMatchObject({
      outcome: 'TRIAGED',
      delta: { verdict: 'PARTIAL_REPROBE_REQUIRED', appeared: [nfd] },
      reprobeClaims: [{ claimId: 'no-cafe', causalKeys: [nfc], driftedKeys: [nfc] }],
    });
  });

  it('a record edited in the table: recall and verify are TAMPER_DETECTED, and no claim content comes back', async () => {
    const p = pipeline();
    const mcp = await connected(p.deps(env));
    await call(mcp, 'reseal_write', { ...firstWrite, env });
    p.store.tamperRecord(LINEAGE, 0, (record) => {
      (record.payload as { claims: Record<string, unknown> }).claims['node-builds'] = 'nothing went wrong';
    });
    const recall = await call(mcp, 'reseal_recall', { lineageId: LINEAGE, env });
    expect(recall.isError).toBe(true);
    expect(recall.out).toMatchObject({ error: 'TAMPER_DETECTED', verdict: 'HASH_MISMATCH', firstFailure: { seq: 0 } });
    expect(JSON.stringify(recall.out)).not.toContain('nothing went wrong');
    const verify = await call(mcp, 'reseal_verify', { lineageId: LINEAGE });
    expect(verify).toMatchObject({ isError: true, out: { error: 'TAMPER_DETECTED', verdict: 'HASH_MISMATCH' } });
    const inspect = await call(mcp, 'reseal_inspect', { lineageId: LINEAGE });
    expect(inspect.out).toMatchObject({
      error: 'TAMPER_DETECTED',
      records: [{ seq: 0, verification: 'HASH_MISMATCH' }],
    });
  });

  it('a lineage rolled back to an earlier signed state (head restored, tail deleted): the kept checkpoint catches it', async () => {
    const p = pipeline();
    const mcp = await connected(p.deps(env));
    await call(mcp, 'reseal_write', { ...firstWrite, env });
    const head = structuredClone(p.store.heads.get(LINEAGE));
    const log = structuredClone(p.store.logHeads.get(LINEAGE));
    await call(mcp, 'reseal_write', {
      ...firstWrite,
      sessionId: 's-4',
      generationEpoch: 4,
      predecessor: { sessionId: 's-3', epoch: 3 },
      env,
    });
    if (!head || !log) throw new Error('no head');
    p.store.heads.set(LINEAGE, head);
    p.store.logHeads.set(LINEAGE, log);
    p.store.deleteRecord(LINEAGE, 1);
    // Every item left is genuine and signed: only the checkpoint the client kept (size 2) shows the cut.
    const recall = await call(mcp, 'reseal_recall', { lineageId: LINEAGE, env });
    expect(recall.out).toMatchObject({ error: 'TAMPER_DETECTED', verdict: 'TRUNCATION_DETECTED' });
    const verify = await call(mcp, 'reseal_verify', { lineageId: LINEAGE });
    expect(verify.out).toMatchObject({ error: 'TAMPER_DETECTED', verdict: 'TRUNCATION_DETECTED', detectedBy: 'log' });
  });

  it('a triage report planted in the table (no drift claimed) is not believed: TAMPER_DETECTED', async () => {
    const p = pipeline();
    const mcp = await connected(p.deps(env));
    await call(mcp, 'reseal_write', { ...firstWrite, env });
    // An honest report for the sealed env, replayed under the next request id as the answer for a drifted env.
    const honest = await p.client.recall({ lineageId: LINEAGE, target: { latest: true }, currentEnv: env });
    // Every report read that finds none gets the planted one (triage re-emits it; the client reads it).
    const stored = p.store.getTriageReport.bind(p.store);
    p.store.getTriageReport = async (lineageId, requestId) =>
      (await stored(lineageId, requestId)) ?? { ...honest.report, requestId };
    const recall = await call(mcp, 'reseal_recall', { lineageId: LINEAGE, env: drifted });
    expect(recall.out).toMatchObject({ error: 'TAMPER_DETECTED', verdict: 'HASH_MISMATCH', detectedBy: 'client' });
    expect(JSON.stringify(recall.out)).not.toContain('keptClaims');
  });

  it('recall of an unknown lineage → NOT_FOUND; no env and no providers → INVALID_INPUT at env', async () => {
    const p = pipeline();
    const mcp = await connected(p.deps(env));
    const missing = await call(mcp, 'reseal_recall', { lineageId: 'nobody-wrote-here', env });
    expect(missing.out).toMatchObject({ error: 'NOT_FOUND' });
    await close?.();
    const bare = await connected({ ...p.deps(env), snapshots: null });
    const noEnv = await call(bare, 'reseal_recall', { lineageId: LINEAGE });
    expect(noEnv.out).toMatchObject({ error: 'INVALID_INPUT', issues: [{ path: 'env' }] });
  });
});
