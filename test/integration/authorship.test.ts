import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateKeyCommand } from '@aws-sdk/client-kms';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { type CallToolResult, Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { describe, expect, inject, it } from 'vitest';
import { KmsWriterSigner } from '../../adapters/kms-writer-signer';
import { LineageKeys } from '../../adapters/lineage-keys';
import { connectToStack } from '../../client/connect';
import { soleWriterLineageId, soleWriterPolicy } from '../../client/sole-writer-policy';
import { clientOutputsFrom } from '../../client/stack-outputs';
import { writeRequest } from '../../client/write-request';
import { writerKeyFile } from '../../client/writer-key-file';
import { writtenByOf } from '../../client/written-by';
import { createResealMcpServer } from '../../mcp/server';
import { STACK_NAME } from '../../scripts/emulator/deploy';
import { type LineagePolicy, lineageIdFor } from '../../shared/authorship/lineage-policy';
import { LocalWriterSigner } from '../../shared/authorship/local-writer-signer';
import { MAX_SIGNATURE_AGE_MS } from '../../shared/authorship/signature-age';
import { signWriteRequest } from '../../shared/authorship/write-signature';
import { InvalidInputError } from '../../shared/errors';
import type { WriterSigner } from '../../shared/ports/writer-signer';
import type { ResidualWriteRequest, UnsignedWriteRequest } from '../../shared/write/write-request';
import { deployedStack } from '../helpers/deployed-stack';
import { expectGuarantee, expectGuarantees, type Guarantee } from '../helpers/guarantees';
import { mcpInspect, mcpVerify } from '../helpers/tamper-mcp-readers';
import {
  clientRecall,
  inspectRefusalsCli,
  listedRefusal,
  type ReaderSetup,
  type ReadTarget,
  verifyLineageCli,
} from '../helpers/tamper-readers';
import { partitionsOf, TableWriter, withJson } from '../helpers/tamper-table';
import { until } from '../helpers/until';
import { runCli } from '../unit/cli/run-cli';

// The in-process CLI's SDK clients take credentials from this process's environment, as the real CLI does.
process.env.AWS_ACCESS_KEY_ID ??= 'test';
process.env.AWS_SECRET_ACCESS_KEY ??= 'test';

// Who wrote it (docs/authorship.md), through the real client on the deployed stack: each agent
// signs with its own key; a second principal that may send to the queue is refused.
const { stack, sqs, store, kms, dynamodb } = deployedStack();
const endpoint = inject('endpoint');
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

const agentOf = async (name: string, signer?: WriterSigner) => {
  const writer = signer ?? LocalWriterSigner.generate(name).signer;
  const { client } = await connectToStack({
    outputs: clientOutputsFrom({ ...stack }),
    endpoint,
    region: 'us-east-1',
    credentials,
    writer,
  });
  return { writer, client };
};

const MANIFEST = {
  env: { ARCH: 'arm64', REGION: 'eu-west-1' },
  structuralKeys: ['ARCH'],
  claimDependencyMap: { region: ['REGION'] },
};
const unsigned = (lineageId: string, residualId: string, sessionId: string, generationEpoch: number) =>
  writeRequest({
    residualId,
    lineageId,
    sessionId,
    generationEpoch,
    payload: { note: residualId },
    boundaryAtMs: Date.now() - 1_000,
    manifest: MANIFEST,
  });

/** Sends a request as is, past the client's own checks: what a second principal on the queue can do. */
const sendRaw = (request: ResidualWriteRequest) =>
  sqs.send(new SendMessageCommand({ QueueUrl: stack.ResidualWritesQueueUrl, MessageBody: JSON.stringify(request) }));

const rejectionOf = (lineageId: string, residualId: string) =>
  until(`the rejection of ${residualId}`, async () => (await store.listRejections(lineageId, { residualId })).at(-1));

const row = (attack: string, reader: string, expected: string): Guarantee => ({
  section: 'tampering',
  target: 'write (second principal on the queue)',
  attack,
  reader,
  expected,
});

/** The in-process CLI's environment: the deployed stack on the emulator. */
const cliEnv = {
  AWS_ENDPOINT_URL: endpoint,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
};
const setup: ReaderSetup = { stack, endpoint, region: 'us-east-1', dynamodb, kms, currentEnv: MANIFEST.env };
/** A read of a whole lineage (no trusted checkpoint, nothing waited for). */
const lineageTarget = (lineageId: string): ReadTarget => ({
  lineageId,
  trusted: { note: '', seq: 0, recordHash: '' },
  recall: { latest: true },
  receiptSeq: 0,
  write: unsigned(lineageId, 'r-unused', 's-1', 1) as never,
});

/**
 * The lineage's refusals as its owner reads them (docs/authorship.md, "Two refusals, in order"):
 * `reseal inspect --lineage --json`, the MCP tool `reseal_inspect` and `client.readRefusals`,
 * each `[<reason> signed|unsigned, …]`; an unsigned one is listed as untrusted, never as an outcome.
 */
async function refusalsListed(
  owner: { readonly client: { readRefusals: (id: string) => Promise<Refusals> } },
  lineageId: string,
) {
  const target = lineageTarget(lineageId);
  const { rejections, conflicts } = await owner.client.readRefusals(lineageId);
  const list = (items: Refusals['rejections']) =>
    `[${items.map((item) => listedRefusal(item.reason, item.signatureVerified)).join(', ')}]`;
  return [
    { reader: 'inspect --lineage (refusals listed)', observed: await inspectRefusalsCli.read(setup, target, false) },
    { reader: 'mcp reseal_inspect', observed: await mcpInspect.read(setup, target, false) },
    { reader: 'client.readRefusals', observed: `rejections ${list(rejections)} conflicts ${list(conflicts)}` },
  ];
}
type Refusals = {
  rejections: { reason: string; signatureVerified: boolean }[];
  conflicts: { reason: string; signatureVerified: boolean }[];
};
/** The readers of {@link refusalsListed} and what each shows for `list` (an intact chain). */
const listedAs = (list: string) => ({
  'inspect --lineage (refusals listed)': `exit 0 rejections ${list} conflicts []`,
  'mcp reseal_inspect': `VERIFIED_INTACT rejections ${list} conflicts []`,
  'client.readRefusals': `rejections ${list} conflicts []`,
});

/** `not admitted` when a refusal says so, else what it said. */
const notAdmitted = (text: string) => (/is not admitted/.test(text) ? 'not admitted' : text.slice(0, 300));

/**
 * A writer's own front doors on a write its key is not admitted to: `client.publishWrite`,
 * `reseal publish` (the key from a PEM file) and the MCP tool `reseal_write` (a local server on
 * that client). Each must refuse it before sending (docs/authorship.md, "Two refusals, in order").
 */
async function frontDoors(
  name: string,
  key: { signer: LocalWriterSigner; pem: string },
  request: UnsignedWriteRequest,
) {
  const agent = await agentOf(name, key.signer);
  const viaClient = await agent.client.publishWrite(request).then(
    () => 'sent',
    (error: Error) => `${error.name} ${notAdmitted(error.message)}`,
  );
  const dir = await mkdtemp(join(tmpdir(), 'reseal-front-door-'));
  try {
    await writeFile(join(dir, `${key.signer.keyId}.pem`), key.pem, { mode: 0o600 });
    await writeFile(join(dir, 'write.json'), JSON.stringify(request));
    const run = await runCli(
      ['publish', '--stack', STACK_NAME, '--request', 'write.json', '--writer-key', `${key.signer.keyId}.pem`],
      { cwd: dir, env: cliEnv, nowMs: Date.now },
    );
    const server = createResealMcpServer({ client: agent.client, snapshots: null });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const mcp = new Client({ name: 'reseal-authorship', version: '1.0.0' });
    await mcp.connect(clientSide);
    const tool = (await mcp.callTool({
      name: 'reseal_write',
      arguments: {
        lineageId: request.lineageId,
        residualId: `${request.residualId}-mcp`,
        sessionId: request.sessionId,
        generationEpoch: request.generationEpoch,
        payload: { note: 'via MCP' },
        env: MANIFEST.env,
        timeoutMs: 5_000,
      },
    })) as CallToolResult;
    await mcp.close();
    await server.close();
    const out = (tool.structuredContent ?? {}) as { error?: string };
    return [
      { reader: "client.publishWrite (the writer's own)", observed: viaClient },
      { reader: "reseal publish (the writer's own)", observed: `exit ${run.exitCode} ${notAdmitted(run.stderr)}` },
      {
        reader: "mcp reseal_write (the writer's own)",
        observed: `${out.error ?? 'sent'} ${notAdmitted(JSON.stringify(out))}`,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
/** The owner's `reseal publish --wait --json` of `request` with its PEM key: `<outcome> (exit <code>)`. */
async function ownerPublishCli(key: { signer: LocalWriterSigner; pem: string }, request: UnsignedWriteRequest) {
  const dir = await mkdtemp(join(tmpdir(), 'reseal-owner-'));
  try {
    await writeFile(join(dir, `${key.signer.keyId}.pem`), key.pem, { mode: 0o600 });
    await writeFile(join(dir, 'write.json'), JSON.stringify(request));
    const run = await runCli(
      [
        'publish',
        '--stack',
        STACK_NAME,
        '--request',
        'write.json',
        '--writer-key',
        `${key.signer.keyId}.pem`,
        '--wait',
        '--timeout-seconds',
        '10',
        '--json',
      ],
      { cwd: dir, env: cliEnv, nowMs: Date.now },
    );
    let outcome = run.stderr.slice(0, 300);
    try {
      outcome = String((JSON.parse(run.stdout) as { outcome?: unknown }).outcome);
    } catch {}
    // Exit 0 once PROVEN through the deployment log, 3 while sealed and awaiting integration (docs/cli.md, `publish`).
    return `${outcome} (exit ${run.exitCode === 0 || run.exitCode === 3 ? '0 or 3' : run.exitCode})`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The owner's MCP tool `reseal_write` (a local server on its client) of `request`'s fields:
 * `<outcome> seq <n>` (sealed, proven or still awaiting integration), or the tool error.
 */
async function ownerWriteMcp(
  client: Awaited<ReturnType<typeof agentOf>>['client'],
  request: UnsignedWriteRequest,
): Promise<string> {
  const server = createResealMcpServer({ client, snapshots: null });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const mcp = new Client({ name: 'reseal-authorship', version: '1.0.0' });
  await mcp.connect(clientSide);
  try {
    const tool = (await mcp.callTool(
      {
        name: 'reseal_write',
        arguments: {
          lineageId: request.lineageId,
          residualId: request.residualId,
          sessionId: request.sessionId,
          generationEpoch: request.generationEpoch,
          payload: { note: request.residualId },
          env: MANIFEST.env,
          timeoutMs: 10_000,
        },
      },
      { timeout: 60_000 },
    )) as CallToolResult;
    const out = (tool.structuredContent ?? {}) as { error?: string; outcome?: string; seq?: number };
    return tool.isError ? `${out.error} ${JSON.stringify(out).slice(0, 300)}` : `${out.outcome} seq ${out.seq}`;
  } finally {
    await mcp.close();
    await server.close();
  }
}

const FRONT_DOORS_REFUSE = {
  "client.publishWrite (the writer's own)": 'InvalidInputError not admitted',
  "reseal publish (the writer's own)": 'exit 2 not admitted',
  "mcp reseal_write (the writer's own)": 'INVALID_INPUT not admitted',
};

/** Rows of `attack`, one per reader, each expected as `expected` names it. */
const rowsOf = (
  attack: string,
  reads: { reader: string; observed: string }[],
  expected: Record<string, string>,
): { guarantee: Guarantee; observed: string }[] =>
  reads.map(({ reader, observed }) => ({ guarantee: row(attack, reader, expected[reader] ?? '?'), observed }));

describe('authorship on the deployed stack', () => {
  it("a second principal is refused in an owner's lineage, even with the owner's sessionId and a high epoch; the owner's next write is sealed", async (context) => {
    const ownerKey = LocalWriterSigner.generate('owner');
    const strangerKey = LocalWriterSigner.generate('stranger');
    const owner = await agentOf('owner', ownerKey.signer);
    const stranger = await agentOf('stranger', strangerKey.signer);
    const lineageId = soleWriterLineageId(`auth-${randomUUID().slice(0, 8)}`, owner.writer);

    const first = await owner.client.publishWrite(unsigned(lineageId, 'r-0', 'owner-s1', 1));
    const sealed = await owner.client.waitForOutcome(lineageId, 'r-0', { request: first.request, timeoutMs: 90_000 });
    expect(sealed.kind).toBe('SEALED');
    expect(first.request.policy).toEqual(soleWriterPolicy(owner.writer));

    // The stranger's honest client will not send a write its key is not admitted to.
    await expect(stranger.client.publishWrite(unsigned(lineageId, 'r-x', 'owner-s1', 99))).rejects.toThrow(
      InvalidInputError,
    );
    // Sent raw, with the owner's sessionId and epoch 99: refused by the sealer, unsigned, epoch unnamed.
    const squat = await signWriteRequest(unsigned(lineageId, 'r-squat', 'owner-s1', 99), stranger.writer, Date.now());
    await sendRaw(squat);
    const refused = await rejectionOf(lineageId, 'r-squat');
    expectGuarantee(
      context,
      row(
        "write into another agent's lineage, with its sessionId and epoch 99",
        'the sealer (rejection item)',
        'refused WRITER_NOT_ADMITTED, unsigned',
      ),
      `refused ${refused.reason}, ${refused.statement === null ? 'unsigned' : 'signed'}`,
    );
    expect(refused).toMatchObject({ stage: 'SEALER', reason: 'WRITER_NOT_ADMITTED', statement: null });
    expect(JSON.stringify(refused)).not.toContain('"generationEpoch":1');
    const attack = "write into another agent's lineage, with its sessionId and epoch 99";
    // The stranger's own client, CLI and MCP tool refuse to send it; the owner's readers list the
    // sealer's refusal as unsigned (untrusted), the chain intact.
    expectGuarantees(context, [
      ...rowsOf(
        attack,
        await frontDoors('stranger', strangerKey, unsigned(lineageId, 'r-x', 'owner-s1', 99)),
        FRONT_DOORS_REFUSE,
      ),
      ...rowsOf(attack, await refusalsListed(owner, lineageId), listedAs('[WRITER_NOT_ADMITTED unsigned]')),
    ]);

    // Not fenced out: the owner's next writes (epoch 2 < 99) are sealed, by its client, its CLI and its MCP tool.
    const next = await owner.client.publishWrite(unsigned(lineageId, 'r-1', 'owner-s2', 2));
    const outcome = await owner.client.waitForOutcome(lineageId, 'r-1', { request: next.request, timeoutMs: 90_000 });
    const ownerCli = await ownerPublishCli(ownerKey, unsigned(lineageId, 'r-2', 'owner-s2', 2));
    const ownerMcp = await ownerWriteMcp(owner.client, unsigned(lineageId, 'r-3', 'owner-s2', 2));
    const highEpoch = "a stranger's high epoch, then the owner's next write";
    expectGuarantees(context, [
      { guarantee: row(highEpoch, 'client.waitForOutcome', 'SEALED'), observed: outcome.kind },
      { guarantee: row(highEpoch, 'reseal publish --wait', 'SEALED (exit 0 or 3)'), observed: ownerCli },
      { guarantee: row(highEpoch, 'mcp reseal_write', 'SEALED seq 3'), observed: ownerMcp },
    ]);
    expect((await store.head(lineageId))?.seq).toBe(3);
  });

  it('a forged and a replayed (too old) signature are refused by the guard, unsigned; nothing is sealed', async (context) => {
    const owner = await agentOf('owner');
    const lineageId = soleWriterLineageId(`auth-${randomUUID().slice(0, 8)}`, owner.writer);
    const first = await owner.client.publishWrite(unsigned(lineageId, 'r-0', 's-1', 1));
    expect(
      (await owner.client.waitForOutcome(lineageId, 'r-0', { request: first.request, timeoutMs: 90_000 })).kind,
    ).toBe('SEALED');
    const signed = await signWriteRequest(unsigned(lineageId, 'r-forged', 's-1', 1), owner.writer, Date.now());
    const signature = Buffer.from(signed.writer.signature, 'base64');
    signature[0] = (signature[0] ?? 0) ^ 0x01;
    const forged = { ...signed, writer: { ...signed.writer, signature: signature.toString('base64') } };
    await sendRaw(forged);
    const old = Date.now() - MAX_SIGNATURE_AGE_MS - 60_000;
    const replayed = await signWriteRequest(unsigned(lineageId, 'r-replayed', 's-1', 1), owner.writer, old);
    await sendRaw(replayed);

    for (const [residualId, attack] of [
      ['r-forged', 'forged writer signature'],
      ['r-replayed', 'replayed signature (older than 15 min)'],
    ] as const) {
      const rejection = await rejectionOf(lineageId, residualId);
      expectGuarantee(
        context,
        row(attack, 'the guard (rejection item)', 'refused GUARD WRITER_SIGNATURE_INVALID, unsigned'),
        `refused ${rejection.stage} ${rejection.reason}, ${rejection.statement === null ? 'unsigned' : 'signed'}`,
      );
    }
    // A client with no writer key and `reseal publish` without one send a signed request only if
    // its signature verifies and is fresh; the owner's readers list both refusals as unsigned.
    const { client: keyless } = await connectToStack({
      outputs: clientOutputsFrom({ ...stack }),
      endpoint,
      region: 'us-east-1',
      credentials,
    });
    const badSignature = (text: string) => (/signature|signed/.test(text) ? 'bad signature' : text.slice(0, 300));
    const dir = await mkdtemp(join(tmpdir(), 'reseal-presigned-'));
    const listed = listedAs('[WRITER_SIGNATURE_INVALID unsigned, WRITER_SIGNATURE_INVALID unsigned]');
    try {
      const rows: { guarantee: Guarantee; observed: string }[] = [];
      for (const [request, attack] of [
        [forged, 'forged writer signature'],
        [replayed, 'replayed signature (older than 15 min)'],
      ] as const) {
        const viaClient = await keyless.publishWrite(request).then(
          () => 'sent',
          (error: Error) => `${error.name} ${badSignature(error.message)}`,
        );
        await writeFile(join(dir, 'write.json'), JSON.stringify(request));
        const run = await runCli(['publish', '--stack', STACK_NAME, '--request', 'write.json'], {
          cwd: dir,
          env: cliEnv,
          nowMs: Date.now,
        });
        rows.push(
          {
            guarantee: row(attack, 'client.publishWrite (no writer key)', 'InvalidInputError bad signature'),
            observed: viaClient,
          },
          {
            guarantee: row(attack, 'reseal publish (no writer key)', 'exit 2 bad signature'),
            observed: `exit ${run.exitCode} ${badSignature(run.stderr)}`,
          },
          ...rowsOf(attack, await refusalsListed(owner, lineageId), listed),
        );
      }
      expectGuarantees(context, rows);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect((await store.head(lineageId))?.seq).toBe(0);
  });

  it("a revoked key is refused WRITER_NOT_ADMITTED, unsigned, and the owner's other key still writes; a table writer's edits of the policy or writer fields are detected by verify --lineage, client.recall and reseal_verify", async (context) => {
    const secondKey = LocalWriterSigner.generate('owner-2');
    const [first, second] = [LocalWriterSigner.generate('owner-1').signer, secondKey.signer];
    const keyOf = (signer: WriterSigner) => ({ keyId: signer.keyId, publicKey: signer.publicKey });
    const inception: LineagePolicy = { v: 1, writers: [keyOf(first), keyOf(second)], recoveryKeys: [] };
    const lineageId = lineageIdFor(`auth-rev-${randomUUID().slice(0, 8)}`, inception);
    const owner = await agentOf('owner-1', first);
    const other = await agentOf('owner-2', second);
    const sealedBy = async (agent: typeof owner, residualId: string, epoch: number, policy?: LineagePolicy) => {
      const published = await agent.client.publishWrite({
        ...unsigned(lineageId, residualId, 's-1', epoch),
        ...(policy ? { policy } : {}),
      });
      return agent.client.waitForOutcome(lineageId, residualId, { request: published.request, timeoutMs: 90_000 });
    };
    expect((await sealedBy(owner, 'r-0', 1, inception)).kind).toBe('SEALED'); // inception: both keys
    expect((await sealedBy(other, 'r-1', 1)).kind).toBe('SEALED'); // the second key writes
    // Revocation (docs/authorship.md, "Lineage write policy"): a sealed record, signed by the first key, drops the second.
    const revoked: LineagePolicy = { ...inception, writers: [keyOf(first)] };
    expect((await sealedBy(owner, 'r-2', 1, revoked)).kind).toBe('SEALED');

    await expect(other.client.publishWrite(unsigned(lineageId, 'r-x', 's-1', 2))).rejects.toThrow(InvalidInputError);
    await sendRaw(await signWriteRequest(unsigned(lineageId, 'r-revoked', 's-1', 2), second, Date.now()));
    const refused = await rejectionOf(lineageId, 'r-revoked');
    expectGuarantee(
      context,
      row(
        'write signed by a key the lineage revoked',
        'the sealer (rejection item)',
        'refused WRITER_NOT_ADMITTED, unsigned',
      ),
      `refused ${refused.reason}, ${refused.statement === null ? 'unsigned' : 'signed'}`,
    );
    const revokedAttack = 'write signed by a key the lineage revoked';
    expectGuarantees(context, [
      ...rowsOf(
        revokedAttack,
        await frontDoors('owner-2', secondKey, unsigned(lineageId, 'r-x', 's-1', 2)),
        FRONT_DOORS_REFUSE,
      ),
      ...rowsOf(revokedAttack, await refusalsListed(owner, lineageId), listedAs('[WRITER_NOT_ADMITTED unsigned]')),
    ]);
    expectGuarantee(
      context,
      row("the owner's other key after the revocation", 'client.waitForOutcome', 'SEALED'),
      (await sealedBy(owner, 'r-3', 2)).kind,
    );
    expect((await store.head(lineageId))?.seq).toBe(3);

    // The table writer edits one stored record; each reader must detect it (docs/authorship.md, "Offline checks").
    const table = new TableWriter(dynamodb, stack.TableName);
    const stranger = LocalWriterSigner.generate('stranger').signer;
    const flipped = (base64: string) => {
      const bytes = Buffer.from(base64, 'base64');
      bytes[0] = (bytes[0] ?? 0) ^ 0x01;
      return bytes.toString('base64');
    };
    type Stored = { policy: LineagePolicy; writer: Record<string, unknown> };
    const edits: { attack: string; seq: number; edit: (record: Stored) => void }[] = [
      {
        attack: "edit the policy of the inception record (add a stranger's key)",
        seq: 0,
        edit: (r) => r.policy.writers.push(keyOf(stranger)),
      },
      {
        attack: 'edit the policy of the revocation record (keep the revoked key)',
        seq: 2,
        edit: (r) => r.policy.writers.push(keyOf(second)),
      },
      {
        attack: "edit the writer's publicKey (a stranger's)",
        seq: 1,
        edit: (r) => {
          r.writer.publicKey = stranger.publicKey;
        },
      },
      {
        attack: "edit the writer's keyId",
        seq: 1,
        edit: (r) => {
          r.writer.keyId = 'owner-1';
        },
      },
      {
        attack: "edit the writer's signature",
        seq: 1,
        edit: (r) => {
          r.writer.signature = flipped(String(r.writer.signature));
        },
      },
      {
        attack: "edit the writer's senderId",
        seq: 1,
        edit: (r) => {
          r.writer.senderId = 'AIDAFORGEDSENDER';
        },
      },
    ];
    const untouched: ReadTarget = {
      lineageId,
      trusted: { note: '', seq: 3, recordHash: '' },
      recall: { seq: 1 },
      receiptSeq: 1,
      write: unsigned(lineageId, 'r-unused', 's-1', 2) as never,
    };
    // The readers do tell an intact lineage: a detection below is the edit's.
    expect(await verifyLineageCli.read(setup, untouched, false)).toBe('exit 0 VERIFIED_INTACT');
    expect(await clientRecall.read(setup, untouched, false)).toBe('VERIFIED_INTACT');
    expect(await mcpVerify.read(setup, untouched, false)).toBe('VERIFIED_INTACT');
    const rows: { guarantee: Guarantee; observed: string }[] = [];
    for (const { attack, seq, edit } of edits) {
      const snapshot = await table.snapshot(partitionsOf(lineageId));
      await table.update(LineageKeys.lineage(lineageId), LineageKeys.record(seq), (item) =>
        withJson(item, 'record', (record) => {
          edit(record as unknown as Stored);
          return record;
        }),
      );
      const target: ReadTarget = { ...untouched, recall: { seq }, receiptSeq: seq };
      for (const reader of [verifyLineageCli, clientRecall, mcpVerify]) {
        const observed = await reader.read(setup, target, false);
        const expected =
          reader === verifyLineageCli
            ? 'exit 20 HASH_MISMATCH'
            : reader === mcpVerify
              ? 'TAMPER_DETECTED HASH_MISMATCH'
              : 'HASH_MISMATCH';
        rows.push({
          guarantee: {
            section: 'tampering',
            target: `record (seq ${seq})`,
            attack,
            reader: reader.name,
            checkpoint: false,
            expected,
          },
          observed,
        });
      }
      await table.restore(snapshot);
    }
    expectGuarantees(context, rows);
  });

  it('a key rotation that dropped its own signing key, its seal request delivered again (a retried forward): the same record answers, no refusal', async () => {
    const [first, second] = [LocalWriterSigner.generate('rot-1').signer, LocalWriterSigner.generate('rot-2').signer];
    const keyOf = (signer: WriterSigner) => ({ keyId: signer.keyId, publicKey: signer.publicKey });
    const inception: LineagePolicy = { v: 1, writers: [keyOf(first), keyOf(second)], recoveryKeys: [] };
    const lineageId = lineageIdFor(`auth-rot-${randomUUID().slice(0, 8)}`, inception);
    const owner = await agentOf('rot-1', first);
    const other = await agentOf('rot-2', second);
    const sealedBy = async (agent: typeof owner, residualId: string, policy?: LineagePolicy) => {
      const published = await agent.client.publishWrite({
        ...unsigned(lineageId, residualId, 's-1', 1),
        ...(policy ? { policy } : {}),
      });
      const outcome = await agent.client.waitForOutcome(lineageId, residualId, {
        request: published.request,
        timeoutMs: 90_000,
      });
      return { request: published.request, kind: outcome.kind };
    };
    expect((await sealedBy(owner, 'r-0', inception)).kind).toBe('SEALED');
    // The second key rotates itself out (docs/authorship.md, "Two refusals, in order").
    const rotation = await sealedBy(other, 'r-1', { ...inception, writers: [keyOf(first)] });
    expect(rotation.kind).toBe('SEALED');
    const chain = (await store.readChain(lineageId, 0, 10)) as {
      header: { residualId: string; verdictDigest: string };
    }[];
    const sealed = chain.find((record) => record.header.residualId === 'r-1');
    // The guard's forward again, under another deduplication id, straight to seal-requests (the
    // emulator enforces no queue policy): the very seal request, its verdict the one the record binds.
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.SealRequestsQueueUrl,
        MessageBody: JSON.stringify({
          formatVersion: 1,
          request: rotation.request,
          verdict: {
            isSafe: true,
            rejectedVariables: [],
            requestViolations: [],
            verdictDigest: sealed?.header.verdictDigest,
          },
          acceptedAtMs: Date.now(),
        }),
        MessageGroupId: lineageId,
        MessageDeduplicationId: `retried-forward-${randomUUID()}`,
      }),
    );
    // The owner's next write is forwarded after it in the lineage's message group: once it is
    // sealed, the redelivery was answered.
    expect((await sealedBy(owner, 'r-2')).kind).toBe('SEALED');
    expect(await store.listRejections(lineageId, { residualId: 'r-1' })).toEqual([]);
    expect(await store.listConflicts(lineageId, { residualId: 'r-1' })).toEqual([]);
    expect((await store.head(lineageId))?.seq).toBe(2);
  });

  it('a KMS writer key (Sign RAW, ED25519_SHA_512) starts and extends its lineage', async () => {
    const created = await kms.send(
      new CreateKeyCommand({ KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY', Description: 'writer' }),
    );
    const signer = await KmsWriterSigner.create(kms, created.KeyMetadata?.Arn ?? '');
    const agent = await agentOf('kms-agent', signer);
    const lineageId = soleWriterLineageId(`auth-kms-${randomUUID().slice(0, 8)}`, signer);
    for (const [seq, residualId] of ['r-0', 'r-1'].entries()) {
      const published = await agent.client.publishWrite(unsigned(lineageId, residualId, 's-1', 1));
      expect(published.request.writer.keyId).toBe(signer.keyId);
      const outcome = await agent.client.waitForOutcome(lineageId, residualId, {
        request: published.request,
        timeoutMs: 90_000,
      });
      expect(outcome.kind === 'SEALED' ? outcome.head.seq : outcome.kind).toBe(seq);
    }
  });

  it('connectToStack with writerKeyFile and inceptionPolicy names its lineage by that policy; verify says who wrote each record', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reseal-writer-'));
    try {
      const recovery = LocalWriterSigner.generate('recovery').signer;
      const keyFile = join(dir, 'agent-9.pem');
      const first = await connectToStack({
        outputs: clientOutputsFrom({ ...stack }),
        endpoint,
        region: 'us-east-1',
        credentials,
        writerKeyFile: keyFile,
      });
      // The key file was made on first use; read its key to build the policy the lineage is named by.
      const writer = await writerKeyFile(keyFile);
      expect(writer.keyId).toBe('agent-9');
      const policy = soleWriterPolicy(writer, [recovery.publicKey]);
      const lineageId = lineageIdFor(`auth-connect-${randomUUID().slice(0, 8)}`, policy);
      // Without inceptionPolicy the client's default (the key alone) is not the policy this id names.
      await expect(first.client.publishWrite(unsigned(lineageId, 'r-0', 's-1', 1))).rejects.toThrow(InvalidInputError);

      const { client } = await connectToStack({
        outputs: clientOutputsFrom({ ...stack }),
        endpoint,
        region: 'us-east-1',
        credentials,
        writerKeyFile: keyFile,
        inceptionPolicy: policy,
      });
      for (const [seq, residualId] of ['r-0', 'r-1'].entries()) {
        const published = await client.publishWrite(unsigned(lineageId, residualId, 's-1', 1));
        expect(published.request.policy).toEqual(seq === 0 ? policy : undefined);
        const outcome = await client.waitForOutcome(lineageId, residualId, {
          request: published.request,
          timeoutMs: 90_000,
        });
        expect(outcome.kind).toBe('SEALED');
      }
      const { verification } = await client.verifyStoredLineage(lineageId, { authentication: 'signed-tree' });
      expect(verification.verdict).toBe('VERIFIED_INTACT');
      expect(verification.records.map(writtenByOf)).toEqual([
        expect.objectContaining({
          status: 'SIGNED',
          keyId: 'agent-9',
          publicKey: writer.publicKey,
          admittedAs: 'INCEPTION',
          keyRole: 'writer',
          lineageIdCertifiesPolicy: true,
        }),
        expect.objectContaining({
          status: 'SIGNED',
          keyId: 'agent-9',
          admittedAs: 'WRITE',
          lineageIdCertifiesPolicy: true,
        }),
      ]);
      await expect(
        connectToStack({ outputs: clientOutputsFrom({ ...stack }), writer, writerKeyFile: keyFile }),
      ).rejects.toThrow(InvalidInputError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
