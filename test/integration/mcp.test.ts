import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { type CallToolResult, Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { LineageKeys } from '../../adapters/lineage-keys';
import { recordOf } from '../../adapters/record-item';
import { MemoryCheckpointStore } from '../../client/memory-checkpoint-store';
import type { ResealClient } from '../../client/reseal-client';
import { soleWriterLineageId, soleWriterPolicy } from '../../client/sole-writer-policy';
import { clientOutputsFrom } from '../../client/stack-outputs';
import type { ResealMcpDeps } from '../../mcp/reseal-mcp-deps';
import { connectMcpClient } from '../../mcp/resolve-mcp-client';
import { createResealMcpServer } from '../../mcp/server';
import { writeRequestFor } from '../../mcp/tools/write';
import { loadSnapshots, type RunnerSnapshot } from '../../scripts/demo/snapshots';
import { clientConfig, EMULATOR_REGION, emulatorEnv } from '../../scripts/emulator/deploy';
import { LocalWriterSigner } from '../../shared/authorship/local-writer-signer';
import { canonicalJson } from '../../shared/canonical/canonical-json';
import { checkpointOrigin } from '../../shared/log/checkpoint-origin';
import { LocalEd25519Signer } from '../../shared/log/local-ed25519-signer';
import { guardKeyName } from '../../shared/log/log-names';
import { rejectionStatement, signOutcome } from '../../shared/log/outcome-statement';
import { verifyRecordProof } from '../../shared/log/record-proof';
import type { RejectionRecord } from '../../shared/ports/lineage-store';
import type { SealedRecord } from '../../shared/seal/sealed-record';
import { differingWriteContent } from '../../shared/seal/write-content';
import { buildManifest } from '../../shared/triage/build-manifest';
import { isolateDelta } from '../../shared/triage/isolate-delta';
import { requestDigest } from '../../shared/write/request-digest';
import { expectGuarantees, type Guarantee } from '../helpers/guarantees';
import { keptCheckpointOrigins } from '../helpers/kept-checkpoint-origins';
import { expectConforming } from '../helpers/mcp-conformance';
import { MCP_TOOL_NAMES } from '../helpers/mcp-fixtures';
import { HOSTILE_ID, HOSTILE_TEXT, hostileLinePlacement, hostileTextPlacement } from '../helpers/untrusted-text';
import { signWriteSync, TEST_WRITER } from '../helpers/writer-factories';
import { runCli } from '../unit/cli/run-cli';

// The MCP server on the deployed stack, driven by the SDK's own client: in process (the tool
// scenarios, its client keeping checkpoints in memory) and over stdio against `reseal mcp`
// (snapshot providers, checkpoint file). Each scenario uses a lineage of its own.
const stack = inject('stack');
const endpoint = inject('endpoint');
const ROOT = join(import.meta.dirname, '..', '..');
const dynamodb = new DynamoDBClient(clientConfig(endpoint));
const table = new DynamoDBLineageStore(dynamodb, stack.TableName);
const SESSION_START_MS = Date.now() - 60_000;

type Structured = Record<string, unknown> & { error?: string };
const WAIT_MS = 90_000;

/** Two real environments: runner-image snapshots 0 and 5 (many tool versions drifted, os:version did not). */
let before: RunnerSnapshot;
let after: RunnerSnapshot;
const CLAIMS = {
  'node-runtime-in-range': {
    content: { statement: 'the preinstalled Node.js satisfies engines' },
    causalKeys: ['language:node.js'],
  },
  'system-python-3-12': {
    content: { statement: 'the system interpreter is CPython 3.12' },
    causalKeys: ['language:python'],
  },
  'native-addons-compile': { content: 'make builds native addons', causalKeys: ['apt:make'] },
};

let mcp: Client;
let resealClient: ResealClient;
let closeInProcess: () => Promise<void>;

beforeAll(async () => {
  const snapshots = await loadSnapshots(join(ROOT, 'examples', 'runner-images', 'ubuntu-24.04.jsonl'));
  before = snapshots[0] as RunnerSnapshot;
  after = snapshots[5] as RunnerSnapshot;
  resealClient = await connectMcpClient({
    outputs: clientOutputsFrom({ ...stack }),
    endpoint,
    region: EMULATOR_REGION,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    checkpointStore: new MemoryCheckpointStore(),
    writer: TEST_WRITER,
  });
  const deps: ResealMcpDeps = { client: resealClient, snapshots: null, sessionStartMs: SESSION_START_MS };
  const server = createResealMcpServer(deps);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  mcp = new Client({ name: 'reseal-integration', version: '1.0.0' });
  await mcp.connect(clientSide);
  closeInProcess = async () => {
    await mcp.close();
    await server.close();
  };
});

afterAll(async () => {
  await closeInProcess?.();
  dynamodb.destroy();
});

/** Calls tool `name` as a host does (after `tools/list`), checking the answer is as listed (docs/mcp.md, "Conformance"). */
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const tool = (await client.listTools()).tools.find((t) => t.name === name);
  if (!tool) throw new Error(`${name} is not listed`);
  const result = (await client.callTool({ name, arguments: args }, { timeout: WAIT_MS + 30_000 })) as CallToolResult;
  expectConforming(tool, result);
  return { isError: result.isError === true, out: result.structuredContent as Structured };
}

/**
 * A fresh lineage of the in-process server's writer key: self-certifying under that key alone
 * (docs/authorship.md), so its first write sets the policy.
 */
const freshLineage = (label: string) => soleWriterLineageId(`${label}-${randomUUID()}`, TEST_WRITER);

const session = (overrides: Record<string, unknown> = {}) => ({
  sessionId: 's-2',
  generationEpoch: 2,
  predecessor: { sessionId: 's-1', epoch: 1 },
  timeoutMs: WAIT_MS,
  ...overrides,
});

describe('MCP tools on the deployed stack (in process)', () => {
  const lineageId = freshLineage('mcp');
  let sealed: Structured;

  it('reseal_write: a write is sealed, with the tree head it is sealed in (no signed lineage checkpoint) and an inclusion proof that verifies in it', async () => {
    const { isError, out } = await call(mcp, 'reseal_write', {
      lineageId,
      ...session(),
      claims: CLAIMS,
      structuralKeys: ['os:version'],
      payload: { runner: before.image_version },
      env: before.env,
      variables: [{ name: 'ATTEMPT', value: 'a-1', freshness: 'FRESH_GENERATED', sourceEpoch: 2 }],
    });
    expect(isError).toBe(false);
    const origin = checkpointOrigin(stack.LogName, lineageId);
    expect(out).toMatchObject({
      outcome: 'SEALED',
      lineageId,
      seq: 0,
      supersedes: null,
      // The sealer signs no lineage checkpoint (docs/deployment-log.md, "What changes for the sealer",
      // step 3): the tree head is vouched for by the index once integrated (its freshness).
      checkpoint: { origin, size: 1, note: null },
      proof: { leafIndex: 0, treeSize: 1, inclusionProof: [] },
    });
    expect(out.claims).toEqual(Object.keys(CLAIMS).sort());
    // The stored record is the leaf the proof names, in the tree head the answer gives.
    const opened = {
      origin,
      size: 1,
      rootHash: Buffer.from((out.checkpoint as { rootHash: string }).rootHash, 'hex'),
    };
    const proven = verifyRecordProof(await table.readRecord(lineageId, 0), out.proof as never, opened, lineageId);
    expect(proven).toMatchObject({ verdict: 'VERIFIED_INTACT', record: { recordHash: out.recordHash } });
    sealed = out;
  });

  it('reseal_write: a stale write (inherited, never re-probed) is refused with its reason and what to do', async () => {
    const { isError, out } = await call(mcp, 'reseal_write', {
      lineageId: freshLineage('mcp-stale'),
      ...session(),
      claims: CLAIMS,
      env: before.env,
      variables: [{ name: 'RUNNER_ID', value: 'runner-17', freshness: 'UNVERIFIED_INHERITED', sourceEpoch: 1 }],
    });
    expect(isError).toBe(true);
    expect(out).toMatchObject({
      error: 'WRITE_REJECTED',
      stage: 'GUARD',
      reason: 'STALE_STATE',
      rejectedVariables: [{ name: 'RUNNER_ID', reason: 'UNVERIFIED_INHERITED' }],
    });
    expect((out.rejectedVariables as { action: string }[])[0]?.action).toMatch(/reprobe/);
    // Signed by the guard's KMS key (the client only reports refusals it can check).
    expect(out.statement).toMatch(/^reseal\/v1\/outcome\n/);
  });

  it('reseal_write: rejections of this very write planted in the table before it is sealed (forged, unsigned) do not make it a refusal', async () => {
    const forgedLineage = freshLineage('mcp-forged');
    const args = {
      lineageId: forgedLineage,
      residualId: `r-${randomUUID()}`,
      ...session(),
      claims: CLAIMS,
      structuralKeys: ['os:version'],
      env: before.env,
      variables: [{ name: 'ATTEMPT', value: 'a-1', freshness: 'FRESH_GENERATED' as const, sourceEpoch: 2 }],
    };
    // The request the server will publish (same builder, session start, inception policy and key);
    // only its signing time differs. The unit tests plant refusals of the exact published request.
    const request = signWriteSync({
      ...writeRequestFor(args, before.env, Date.now(), SESSION_START_MS),
      policy: soleWriterPolicy(TEST_WRITER),
    });
    const forger = new LocalEd25519Signer(
      guardKeyName(stack.LogName),
      Uint8Array.from({ length: 32 }, (_, i) => 0xc0 + i),
    );
    const forged: RejectionRecord = {
      stage: 'GUARD',
      reason: 'STALE_STATE',
      lineageId: forgedLineage,
      residualId: args.residualId,
      messageId: 'forged-1',
      verdictDigest: 'd'.repeat(64),
      bodyDigest: createHash('sha256').update(canonicalJson(request), 'utf8').digest('hex'),
      bodyPreview: canonicalJson(request).slice(0, 200),
      issues: [],
      rejectedVariables: [{ name: 'ATTEMPT', reason: 'UNVERIFIED_INHERITED', detail: 'planted' }],
      requestViolations: [],
      atMs: Date.now(),
      requestDigest: requestDigest(request),
      statement: null,
    };
    await table.recordRejection({
      ...forged,
      statement: await signOutcome(rejectionStatement(stack.LogName, forged), forger),
    });
    await table.recordRejection({ ...forged, messageId: 'unsigned-1', statement: null });
    expect(await table.listRejections(forgedLineage, { residualId: args.residualId })).toHaveLength(2);
    const { isError, out } = await call(mcp, 'reseal_write', args);
    expect(isError).toBe(false);
    expect(out).toMatchObject({ outcome: 'SEALED', lineageId: forgedLineage, residualId: args.residualId, seq: 0 });
    // The seal is of the very write the forgeries named.
    const record = (await table.readRecord(forgedLineage, 0)) as SealedRecord;
    expect(differingWriteContent(request, record)).toEqual([]);
  });

  it('text a table writer planted (ANSI codes, CR/LF, U+2028, bidi overrides, an instruction) reaches reseal_inspect and reseal inspect only as untrusted, escaped', async (context) => {
    const hostileLineage = freshLineage('mcp-hostile');
    const { isError } = await call(mcp, 'reseal_write', {
      lineageId: hostileLineage,
      ...session(),
      claims: CLAIMS,
      structuralKeys: ['os:version'],
      env: before.env,
    });
    expect(isError).toBe(false);
    const atMs = Date.now();
    await table.recordRejection({
      stage: 'GUARD',
      reason: 'STALE_STATE',
      lineageId: hostileLineage,
      residualId: HOSTILE_ID,
      messageId: 'planted-1',
      verdictDigest: null,
      bodyDigest: 'b'.repeat(64),
      bodyPreview: HOSTILE_TEXT,
      issues: [{ path: HOSTILE_TEXT, message: HOSTILE_TEXT }],
      rejectedVariables: [{ name: HOSTILE_TEXT, reason: 'UNVERIFIED_INHERITED', detail: HOSTILE_TEXT }],
      requestViolations: [{ field: 'payload', reason: HOSTILE_TEXT, detail: HOSTILE_TEXT }],
      atMs,
      requestDigest: null,
      statement: null,
    });
    await table.recordConflict({
      lineageId: hostileLineage,
      residualId: HOSTILE_ID,
      reason: 'STALE_EPOCH',
      detail: HOSTILE_TEXT,
      attemptedHeader: { monotonicSequenceNumber: 1, generationEpoch: 1 },
      expectedHead: null,
      observedHead: null,
      atMs: atMs + 1,
      messageId: 'planted-2',
      requestDigest: null,
      statement: null,
    });
    const attack =
      'insert an unsigned rejection and conflict whose text holds ANSI codes, CR/LF, U+2028, bidi overrides and an instruction';
    const row = (reader: string, expected: string): Guarantee => ({
      section: 'tampering',
      target: 'rejection, conflict',
      attack,
      reader,
      expected,
    });
    const inspected = await call(mcp, 'reseal_inspect', { lineageId: hostileLineage });
    expect(inspected.isError).toBe(false);
    expect(inspected.out).toMatchObject({ rejections: [], conflicts: [] });
    const dir = await mkdtemp(join(tmpdir(), 'reseal-hostile-'));
    try {
      const env = {
        AWS_ENDPOINT_URL: endpoint,
        AWS_REGION: EMULATOR_REGION,
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
      };
      // The in-process CLI resolves credentials through the SDK's default chain (this process's
      // environment), as the real CLI does; the emulator accepts any.
      process.env.AWS_ACCESS_KEY_ID ??= 'test';
      process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
      const text = await runCli(['inspect', '--lineage', hostileLineage], { cwd: dir, env });
      const json = await runCli(['inspect', '--lineage', hostileLineage, '--json'], { cwd: dir, env });
      expect(text.exitCode, text.stderr).toBe(0);
      expect(json.exitCode, json.stderr).toBe(0);
      expectGuarantees(context, [
        {
          guarantee: row('mcp reseal_inspect', 'only in untrusted, escaped'),
          observed: hostileTextPlacement(inspected.out),
        },
        {
          guarantee: row('inspect --lineage (text)', 'only in the untrusted section, escaped'),
          observed: hostileLinePlacement(text.stdout),
        },
        {
          guarantee: row('inspect --lineage --json', 'only in untrusted, escaped'),
          observed: hostileTextPlacement(JSON.parse(json.stdout)),
        },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reseal_recall after real drift (through triage, and with triage: false): the claims on drifted keys are to re-probe, the others kept with their content', async () => {
    const { isError, out } = await call(mcp, 'reseal_recall', { lineageId, env: after.env, timeoutMs: WAIT_MS });
    expect(isError).toBe(false);
    // The server's client answers it itself (no RecallRequested): the same proven answer.
    const direct = await call(mcp, 'reseal_recall', { lineageId, env: after.env, triage: false });
    expect(direct.isError).toBe(false);
    const { requestId: _r, completedAt: _c, ...directAnswer } = direct.out;
    expect(out).toMatchObject(directAnswer);
    const expected = isolateDelta(
      buildManifest({
        env: before.env,
        structuralKeys: ['os:version'],
        claimDependencyMap: Object.fromEntries(Object.entries(CLAIMS).map(([id, c]) => [id, c.causalKeys])),
      }),
      after.env,
    );
    expect(expected.invalidatedClaims).toEqual(['node-runtime-in-range']);
    expect(out).toMatchObject({
      outcome: 'TRIAGED',
      seq: 0,
      recordHash: sealed.recordHash,
      verification: {
        verdict: 'VERIFIED_INTACT',
        checkpointSize: 1,
        // Nothing kept: the write's head carries no signed lineage checkpoint (docs/deployment-log.md,
        // "What changes for the sealer", step 3); the record is proven in the tree head the index holds.
        truncationChecked: false,
        checkpoint: sealed.checkpoint,
        proof: sealed.proof,
      },
      delta: { verdict: expected.verdict },
      keptClaims: expected.retainedClaims.map((claimId) => ({
        claimId,
        content: CLAIMS[claimId as keyof typeof CLAIMS].content,
      })),
      reprobeClaims: [
        {
          claimId: 'node-runtime-in-range',
          driftedKeys: ['language:node.js'],
          previousContent: CLAIMS['node-runtime-in-range'].content,
        },
      ],
      data: { runner: before.image_version },
      supersedes: { seq: 0, recordHash: sealed.recordHash },
    });
  });

  it('a re-seal after the re-probe supersedes the record; recalled again, every claim stands', async () => {
    const { out: recalled } = await call(mcp, 'reseal_recall', { lineageId, env: after.env, timeoutMs: WAIT_MS });
    const reprobed = {
      ...CLAIMS,
      'node-runtime-in-range': {
        content: { statement: 'the preinstalled Node.js satisfies engines', observed: after.env['language:node.js'] },
        causalKeys: ['language:node.js'],
      },
    };
    const { isError, out } = await call(mcp, 'reseal_write', {
      lineageId,
      ...session({ sessionId: 's-3', generationEpoch: 3, predecessor: { sessionId: 's-2', epoch: 2 } }),
      claims: reprobed,
      structuralKeys: ['os:version'],
      env: after.env,
      supersedes: recalled.supersedes,
    });
    expect(isError).toBe(false);
    const first = { seq: 0, recordHash: sealed.recordHash };
    expect(out).toMatchObject({
      outcome: 'SEALED',
      seq: 1,
      supersedes: first,
      checkpoint: { size: 2 },
      proof: { leafIndex: 1, treeSize: 2 },
    });
    const again = await call(mcp, 'reseal_recall', {
      lineageId,
      env: after.env,
      timeoutMs: WAIT_MS,
      checkpoint: first,
    });
    expect(again.out).toMatchObject({
      seq: 1,
      delta: { verdict: 'NO_DRIFT' },
      reprobeClaims: [],
      verification: { checkpointSize: 2, truncationChecked: true, callerCheckpoint: first },
    });
    expect((again.out.keptClaims as unknown[]).length).toBe(3);
    const timeline = await call(mcp, 'reseal_inspect', { lineageId });
    expect(timeline.out).toMatchObject({
      verdict: 'VERIFIED_INTACT',
      records: [
        { seq: 0, supersedes: null, verification: 'VERIFIED_INTACT' },
        { seq: 1, supersedes: first, verification: 'VERIFIED_INTACT' },
      ],
      // A head tied to the index, not to a signed lineage checkpoint (docs/mcp.md).
      checkpoint: null,
    });
    const verified = await call(mcp, 'reseal_verify', { lineageId });
    expect(verified.out).toMatchObject({
      verdict: 'VERIFIED_INTACT',
      records: 2,
      head: { seq: 1, recordHash: out.recordHash },
      // The tail is tied to the tree head the index holds, with no signed lineage checkpoint kept or
      // stored (docs/deployment-log.md, "What changes for the sealer", step 3; docs/mcp.md).
      checkpoint: null,
      trustedCheckpointSize: null,
      tailCheckedAgainst: { seq: 1, recordHash: out.recordHash, source: 'index' },
      truncationChecked: false,
    });
  });

  it('reseal_inspect of a lineage with a guard rejection: the SDK client accepts it (its outputSchema declares each field)', async () => {
    const refused = await call(mcp, 'reseal_write', {
      lineageId,
      ...session({ sessionId: 's-4', generationEpoch: 4, predecessor: { sessionId: 's-3', epoch: 3 } }),
      claims: CLAIMS,
      env: after.env,
      variables: [{ name: 'RUNNER_ID', value: 'runner-17', freshness: 'UNVERIFIED_INHERITED', sourceEpoch: 3 }],
    });
    expect(refused.out).toMatchObject({ error: 'WRITE_REJECTED', reason: 'STALE_STATE' });
    const timeline = await call(mcp, 'reseal_inspect', { lineageId });
    expect(timeline).toMatchObject({
      isError: false,
      out: {
        verdict: 'VERIFIED_INTACT',
        rejections: [
          {
            stage: 'GUARD',
            rejectedVariables: [{ name: 'RUNNER_ID', action: expect.stringContaining('reprobe') }],
            signatureVerified: true,
          },
        ],
      },
    });
  });

  it('a record edited directly in DynamoDB: recall and verify come back as TAMPER_DETECTED errors', async () => {
    const key = { pk: { S: LineageKeys.lineage(lineageId) }, sk: { S: LineageKeys.record(1) } };
    const item = await dynamodb.send(
      new GetItemCommand({ TableName: stack.TableName, Key: key, ConsistentRead: true }),
    );
    const record = recordOf(item.Item ?? {}) as { payload: { claims: Record<string, unknown> } };
    record.payload.claims['native-addons-compile'] = 'nothing went wrong';
    await dynamodb.send(
      new UpdateItemCommand({
        TableName: stack.TableName,
        Key: key,
        UpdateExpression: 'SET #r = :r',
        ExpressionAttributeNames: { '#r': 'record' },
        ExpressionAttributeValues: { ':r': { S: JSON.stringify(record) } },
      }),
    );
    const recall = await call(mcp, 'reseal_recall', { lineageId, env: after.env, timeoutMs: WAIT_MS });
    expect(recall.isError).toBe(true);
    expect(recall.out).toMatchObject({ error: 'TAMPER_DETECTED', verdict: 'HASH_MISMATCH', firstFailure: { seq: 1 } });
    expect(JSON.stringify(recall.out)).not.toContain('nothing went wrong');
    const direct = await call(mcp, 'reseal_recall', { lineageId, env: after.env, triage: false });
    expect(direct).toMatchObject({
      isError: true,
      out: { error: 'TAMPER_DETECTED', verdict: 'HASH_MISMATCH', firstFailure: { seq: 1 }, detectedBy: 'client' },
    });
    expect(JSON.stringify(direct.out)).not.toContain('nothing went wrong');
    const verify = await call(mcp, 'reseal_verify', { lineageId });
    expect(verify).toMatchObject({ isError: true, out: { error: 'TAMPER_DETECTED', verdict: 'HASH_MISMATCH' } });
  });
});

describe('reseal mcp over stdio: snapshot providers from reseal.config.json, checkpoints in a file', () => {
  let dir = '';
  let stdio: Client;
  // The server's writer key file (RESEAL_WRITER_KEY): its key id is the file's base name.
  const key = LocalWriterSigner.generate('mcp-stdio-writer');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reseal-mcp-'));
    await writeFile(join(dir, 'mcp-stdio-writer.pem'), key.pem, { mode: 0o600 });
    await writeFile(join(dir, 'outputs.json'), JSON.stringify({ ResealStack: stack }));
    await writeFile(join(dir, 'tool-versions.txt'), 'node 20\n');
    await writeFile(
      join(dir, 'reseal.config.json'),
      JSON.stringify({
        snapshot: {
          env: { names: ['RESEAL_TEST_MODE'] },
          commands: { node: { command: process.execPath, args: ['--version'] } },
          files: ['tool-versions.txt'],
        },
      }),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, 'bin', 'reseal.mjs'), 'mcp', '--outputs-file', join(dir, 'outputs.json')],
      cwd: dir, // reseal.config.json is found in the working directory
      env: {
        PATH: process.env.PATH ?? '',
        ...emulatorEnv(endpoint),
        RESEAL_CHECKPOINTS: join(dir, 'checkpoints.json'),
        RESEAL_WRITER_KEY: 'mcp-stdio-writer.pem',
        RESEAL_TEST_MODE: 'integration',
      },
      stderr: 'ignore',
    });
    stdio = new Client({ name: 'reseal-stdio-integration', version: '1.0.0' });
    await stdio.connect(transport);
  });

  afterAll(async () => {
    await stdio?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a write without env seals the providers’ snapshot; a recall without env finds no drift', async () => {
    const lineageId = soleWriterLineageId(`mcp-stdio-${randomUUID()}`, key.signer);
    const { tools } = await stdio.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES]);
    const written = await call(stdio, 'reseal_write', {
      lineageId,
      ...session(),
      claims: {
        'node-matches-pin': {
          content: 'node matches tool-versions.txt',
          causalKeys: ['tool:node', 'file:tool-versions.txt'],
        },
      },
      structuralKeys: ['env:RESEAL_TEST_MODE'],
    });
    expect(written.isError).toBe(false);
    expect(written.out).toMatchObject({
      outcome: 'SEALED',
      seq: 0,
      snapshot: { source: 'providers', keys: 3, notes: [] },
    });
    // The head carries no signed lineage checkpoint (docs/deployment-log.md, "What changes for the
    // sealer", step 3), so the server's client keeps none in the RESEAL_CHECKPOINTS file: only the
    // deployment checkpoint it authenticated the outcome with (docs/verifiable-log.md, "Checkpoints
    // the client keeps") ...
    expect((written.out.checkpoint as { note: string | null }).note).toBeNull();
    expect(keptCheckpointOrigins(join(dir, 'checkpoints.json'))).toEqual([stack.LogName]);
    const recalled = await call(stdio, 'reseal_recall', { lineageId, timeoutMs: WAIT_MS });
    expect(recalled.out).toMatchObject({
      delta: { verdict: 'NO_DRIFT' },
      keptClaims: [{ claimId: 'node-matches-pin', causalKeys: ['file:tool-versions.txt', 'tool:node'] }],
      // ... and proves the recall in the tree head the index holds, with nothing kept to check truncation against.
      verification: {
        verdict: 'VERIFIED_INTACT',
        checkpointSize: 1,
        truncationChecked: false,
        checkpoint: { note: null },
      },
    });
    expect(keptCheckpointOrigins(join(dir, 'checkpoints.json'))).toEqual([stack.LogName]);
  });
});

describe('reseal mcp over stdio before the stack is reachable: UNAVAILABLE naming what is missing, until it is', () => {
  let dir = '';
  const clients: Client[] = [];
  const key = LocalWriterSigner.generate('late-writer');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reseal-mcp-unreachable-'));
    await writeFile(join(dir, 'late-writer.pem'), key.pem, { mode: 0o600 });
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function serve(args: string[], env: Record<string, string>): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, 'bin', 'reseal.mjs'), 'mcp', ...args],
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...env },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'reseal-unreachable', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  /** A local port nothing listens on. */
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  it('an endpoint that does not answer (the emulator not started): endpoint missing', async () => {
    const mcp = await serve([], emulatorEnv(`http://127.0.0.1:${await closedPort()}`));
    expect((await mcp.listTools()).tools).toHaveLength(4);
    const { isError, out } = await call(mcp, 'reseal_verify', { lineageId: 'agent-7' });
    expect(isError).toBe(true);
    expect(out).toMatchObject({ error: 'UNAVAILABLE', missing: 'endpoint', stackName: 'ResealStack' });
  });

  it('a stack that is not deployed: stack missing', async () => {
    const mcp = await serve(['--stack', `NotDeployed${randomUUID().slice(0, 8)}`], emulatorEnv(endpoint));
    const { isError, out } = await call(mcp, 'reseal_inspect', { lineageId: 'agent-7' });
    expect(isError).toBe(true);
    expect(out).toMatchObject({ error: 'UNAVAILABLE', missing: 'stack' });
  });

  it('no outputs file yet: outputs missing; once it is written, the next call resolves the stack and seals', async () => {
    const outputsFile = join(dir, 'outputs.json');
    const mcp = await serve(['--outputs-file', outputsFile], {
      ...emulatorEnv(endpoint),
      RESEAL_WRITER_KEY: join(dir, 'late-writer.pem'),
    });
    const lineageId = soleWriterLineageId(`mcp-late-${randomUUID()}`, key.signer);
    const before = await call(mcp, 'reseal_verify', { lineageId });
    expect(before).toMatchObject({ isError: true, out: { error: 'UNAVAILABLE', missing: 'outputs', outputsFile } });
    await writeFile(outputsFile, JSON.stringify({ ResealStack: stack }));
    const written = await call(mcp, 'reseal_write', {
      lineageId,
      ...session(),
      claims: { 'make-works': { content: 'make builds', causalKeys: ['apt:make'] } },
      env: { 'apt:make': '4.3' },
    });
    expect(written).toMatchObject({ isError: false, out: { outcome: 'SEALED', seq: 0 } });
  });
});
