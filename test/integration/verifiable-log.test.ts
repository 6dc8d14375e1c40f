import { createPublicKey, randomUUID, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { GetPublicKeyCommand, KMSClient, SignCommand, VerifyCommand } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, inject, it } from 'vitest';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { EventBridgePublisher } from '../../adapters/eventbridge-publisher';
import { KMSMacAnchor } from '../../adapters/kms-mac-anchor';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { KMSNoteVerifierKey } from '../../adapters/kms-note-verifier-key';
import { LineageKeys } from '../../adapters/lineage-keys';
import { MemoryCheckpointStore } from '../../client/memory-checkpoint-store';
import { ResealClient } from '../../client/reseal-client';
import { clientOutputsFrom } from '../../client/stack-outputs';
import { SealerService } from '../../functions/sealer/sealer-service';
import { TriageService } from '../../functions/triage/triage-service';
import { clientConfig } from '../../scripts/emulator/deploy';
import { evaluateWrite } from '../../shared/guard/evaluate-write';
import { checkpointOrigin } from '../../shared/log/checkpoint-origin';
import { sealerKeyName } from '../../shared/log/log-names';
import { formatVerifierKey } from '../../shared/log/note-key';
import { publicKeyFromSpki } from '../../shared/log/public-key-from-spki';
import { verifyNote } from '../../shared/log/signed-note';
import { verifyCheckpoint } from '../../shared/log/verified-checkpoint';
import { HeadLayout } from '../../shared/ports/head-layout';
import { buildManifest } from '../../shared/triage/build-manifest';
import { FakeMetrics, FakePublisher, fakeLogger } from '../helpers/factories';
import { validWriteRequest } from '../helpers/guard-factories';
import { forgedRejection } from '../helpers/tamper-table';
import { testLineageId } from '../helpers/writer-factories';
import { runCli } from '../unit/cli/run-cli';

// The verifiable log on the deployed stack (docs/verifiable-log.md): the emulator's Ed25519 keys
// checked with node:crypto, and the three measurements of docs/verifiable-log.md "Appending" as tests.
const stack = inject('stack');
const endpoint = inject('endpoint');
const config = clientConfig(endpoint);
const dynamodb = new DynamoDBClient(config);
const kms = new KMSClient(config);
const sqs = new SQSClient({ ...config, useQueueUrlAsEndpoint: false });
const eventBridge = new EventBridgeClient(config);
const store = new DynamoDBLineageStore(dynamodb, stack.TableName);
const outputs = clientOutputsFrom({ ...stack });
const ENV = { ARCH: 'arm64', REGION: 'eu-west-1', TOOL_VERSION: '1.2.3' };
const manifest = buildManifest({
  env: ENV,
  structuralKeys: ['ARCH'],
  claimDependencyMap: { 'claim-region': ['REGION'] },
});
// The in-process CLI resolves credentials through the SDK's default chain (this process's
// environment), as the real CLI does; the emulator accepts any.
process.env.AWS_ACCESS_KEY_ID ??= 'test';
process.env.AWS_SECRET_ACCESS_KEY ??= 'test';

/** The CLI's environment for the emulator (no checkpoint store unless a test adds one). */
const cliEnv = {
  AWS_ENDPOINT_URL: endpoint,
  AWS_REGION: config.region,
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
};

/** Counts the commands an SDK client sends, by name, through its middleware stack. */
function counted<T extends { middlewareStack: { add: (...args: never[]) => void } }>(client: T) {
  const calls: string[] = [];
  (client.middlewareStack.add as (m: unknown, o: unknown) => void)(
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      calls.push(context.commandName ?? '?');
      return next(args);
    },
    { step: 'initialize', name: `count-${randomUUID()}` },
  );
  return { client, calls };
}

/** Seals `count` records into a fresh lineage with the deployed keys and table (in process, as the sealer Lambda does). */
/** `signed`: the sealer also signs a lineage checkpoint per run, as before docs/deployment-log.md, "What changes for the sealer", step 3. */
async function sealLineage(count: number, signed = false): Promise<string> {
  const lineageId = testLineageId(`lin-log-${randomUUID()}`);
  const sealer = new SealerService({
    // A sealer signing lineage checkpoints writes the compatible head (docs/sealing.md, "Migration").
    store: signed ? new DynamoDBLineageStore(dynamodb, stack.TableName, HeadLayout.COMPATIBLE) : store,
    publisher: new EventBridgePublisher(eventBridge, stack.EventBusName),
    anchor: new KMSMacAnchor(kms, stack.MacKeyArn),
    signer: new KMSNoteSigner(kms, stack.LogKeyArn, stack.LogName),
    refusalSigner: new KMSNoteSigner(kms, stack.SealerKeyArn, sealerKeyName(stack.LogName)),
    metrics: new FakeMetrics(),
    logger: fakeLogger(),
    clock: Date.now,
    signLineageCheckpoints: signed,
  });
  // Ten writes per message group, as one FIFO batch of the sealer Lambda holds.
  for (let from = 0; from < count; from += 10) {
    const group = [];
    for (let i = from; i < Math.min(count, from + 10); i++) {
      const nowMs = Date.now();
      const request = validWriteRequest({ lineageId, residualId: `r-${i}`, manifest }, { nowMs });
      const verdict = evaluateWrite(request, { nowMs, maxReceiptAgeSeconds: 900 });
      group.push({
        messageId: `m-${i}`,
        body: JSON.stringify({ formatVersion: 1, request, verdict, acceptedAtMs: nowMs }),
        sentAtMs: nowMs,
      });
    }
    const outcomes = await sealer.handleGroup(group);
    expect(outcomes.map((o) => o.kind)).toEqual(group.map(() => 'SEALED'));
  }
  return lineageId;
}

describe('the emulator signs with Ed25519 as KMS does (checked with node:crypto)', () => {
  it('GetPublicKey is SPKI DER of an Ed25519 key; Sign RAW/ED25519_SHA_512 verifies with node:crypto and KMS Verify, a changed message does not', async () => {
    const { PublicKey, KeySpec, SigningAlgorithms } = await kms.send(
      new GetPublicKeyCommand({ KeyId: stack.LogKeyArn }),
    );
    expect(KeySpec).toBe('ECC_NIST_EDWARDS25519');
    expect(SigningAlgorithms).toContain('ED25519_SHA_512');
    const spki = createPublicKey({ key: Buffer.from(PublicKey as Uint8Array), format: 'der', type: 'spki' });
    expect(spki.asymmetricKeyType).toBe('ed25519');
    expect(publicKeyFromSpki(PublicKey as Uint8Array)).toHaveLength(32);
    const message = Buffer.from('reseal emulator check\n');
    const { Signature } = await kms.send(
      new SignCommand({
        KeyId: stack.LogKeyArn,
        Message: message,
        MessageType: 'RAW',
        SigningAlgorithm: 'ED25519_SHA_512',
      }),
    );
    expect(Signature).toHaveLength(64);
    expect(verify(null, message, spki, Signature as Uint8Array)).toBe(true);
    expect(verify(null, Buffer.from('reseal emulator check!\n'), spki, Signature as Uint8Array)).toBe(false);
    const kmsSays = await kms.send(
      new VerifyCommand({
        KeyId: stack.LogKeyArn,
        Message: message,
        MessageType: 'RAW',
        Signature,
        SigningAlgorithm: 'ED25519_SHA_512',
      }),
    );
    expect(kmsSays.SignatureValid).toBe(true);
  });

  it('a checkpoint a sealer signing lineage checkpoints stored verifies with the public key alone (C2SP signed note); by default it stores none', async () => {
    const unsigned = await sealLineage(1);
    expect((await store.logHead(unsigned))?.checkpoint).toBeNull();
    const lineageId = await sealLineage(3, true);
    const head = await store.logHead(lineageId);
    const key = await new KMSNoteVerifierKey(kms, stack.LogKeyArn, stack.LogName).get();
    expect(verifyNote(head?.checkpoint as string, key)).toContain(`${checkpointOrigin(stack.LogName, lineageId)}\n3\n`);
    const checkpoint = verifyCheckpoint(head?.checkpoint as string, key, checkpointOrigin(stack.LogName, lineageId));
    expect(checkpoint.size).toBe(3);
  });
});

describe('docs/verifiable-log.md "Recall" cost on the deployed stack', () => {
  it('1. recall cost is independent of lineage length: at most one KMS call per recall (none warm), item reads grow no faster than log n', async () => {
    const results: { n: number; kms: string[]; reads: number }[] = [];
    for (const n of [10, 50]) {
      const lineageId = await sealLineage(n);
      const kmsCount = counted(new KMSClient(config));
      const dynamoCount = counted(new DynamoDBClient(config));
      const verifierKey = new KMSNoteVerifierKey(kmsCount.client, stack.LogKeyArn, stack.LogName);
      const triage = new TriageService({
        store: new DynamoDBLineageStore(dynamoCount.client, stack.TableName),
        publisher: new FakePublisher(),
        logKey: () => verifierKey.get(),
        metrics: new FakeMetrics(),
        logger: fakeLogger(),
        clock: Date.now,
      });
      for (const target of [{ seq: 0 }, { latest: true }]) {
        const result = await triage.handle({ requestId: `req-${randomUUID()}`, lineageId, target, currentEnv: ENV });
        expect(result.kind === 'COMPLETED' && result.detail.outcome).toBe('TRIAGED');
      }
      results.push({ n, kms: kmsCount.calls, reads: dynamoCount.calls.length / 2 });
    }
    for (const { kms: calls } of results) expect(calls).toEqual(['GetPublicKeyCommand']); // once, then cached; no VerifyMac
    // Requests per recall: head, last record key, record, nodes (one batch), report lookup and put.
    const [small, large] = results as [(typeof results)[number], (typeof results)[number]];
    expect(large.reads).toBeLessThanOrEqual(small.reads + 1);
  });

  it('2. a third party checks a format-1 receipt (of a head signed before step 3) offline with only the log key (no AWS)', async () => {
    const lineageId = await sealLineage(5, true);
    const dir = mkdtempSync(join(tmpdir(), 'reseal-receipt-'));
    // docs/verifiable-log.md, "Receipts": format 1 while the head carries a signed lineage checkpoint.
    const exported = await runCli(
      ['export', '--lineage', lineageId, '--receipt', '--receipt-format', '1', '--seq', '2', '--out', 'r.json'],
      {
        cwd: dir,
        env: cliEnv,
      },
    );
    expect(exported.exitCode, exported.stderr).toBe(0);
    const logKey = (await runCli(['log-key'], { cwd: dir, env: cliEnv })).stdout.trim();
    expect(logKey).toBe(formatVerifierKey(await new KMSNoteVerifierKey(kms, stack.LogKeyArn, stack.LogName).get()));
    // Offline: an empty environment, no endpoint, no credentials.
    const checked = await runCli(['verify', '--receipt', 'r.json', '--log-key', logKey], { cwd: dir, env: {} });
    expect(checked.exitCode, checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/verdict: +VERIFIED_INTACT/);
    const receipt = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
    receipt.record.payload = { edited: true };
    writeFileSync(join(dir, 'edited.json'), JSON.stringify(receipt));
    const edited = await runCli(['verify', '--receipt', 'edited.json', '--log-key', logKey], { cwd: dir, env: {} });
    expect(edited.exitCode).toBe(20);
  });

  it('3a. a triage report forged in the table (pre-written under the caller’s request id) never reaches the client as an answer', async () => {
    const lineageId = await sealLineage(2);
    // The table writer edits record 1 and pre-writes a TRIAGED / VERIFIED_INTACT report for it.
    const original = (await store.readRecord(lineageId, 1)) as Record<string, unknown>;
    await dynamodb.send(
      new PutItemCommand({
        TableName: stack.TableName,
        Item: {
          pk: { S: LineageKeys.lineage(lineageId) },
          sk: { S: LineageKeys.record(1) },
          record: { S: JSON.stringify({ ...original, payload: { conclusion: 'forged' } }) },
        },
      }),
    );
    const requestId = `req-forged-${randomUUID()}`;
    const forged = {
      formatVersion: 1,
      requestId,
      lineageId,
      seq: 1,
      residualId: 'r-1',
      outcome: 'TRIAGED',
      verification: { verdict: 'VERIFIED_INTACT', firstFailure: null },
      report: {
        formatVersion: 1,
        verdict: 'NO_DRIFT',
        sealIntact: true,
        driftedKeys: { changed: [], vanished: [], appeared: [] },
        structuralDrift: [],
        unattributedKeys: [],
        retainedClaims: ['claim-region'],
        invalidatedClaims: [],
        reason: 'forged',
      },
      proof: null,
      refusalReason: null,
      refusalCode: null,
      completedAtMs: Date.now(),
    };
    await dynamodb.send(
      new PutItemCommand({
        TableName: stack.TableName,
        Item: { pk: { S: LineageKeys.triage(lineageId) }, sk: { S: requestId }, report: { S: JSON.stringify(forged) } },
      }),
    );
    const client = new ResealClient(outputs, { sqs, dynamodb, kms, eventBridge });
    const recall = await client.recall(
      { lineageId, requestId, target: { seq: 1 }, currentEnv: ENV },
      { timeoutMs: 30_000 },
    );
    expect(recall.report.outcome).toBe('TRIAGED'); // the stored answer is the forgery …
    expect(recall.verdict).not.toBe('VERIFIED_INTACT'); // … and the client does not act on it
    expect(recall.delta).toBeNull();
    const cli = await runCli(
      [
        'recall',
        '--lineage',
        lineageId,
        '--seq',
        '1',
        '--env',
        'env.json',
        '--request-id',
        requestId,
        '--timeout-seconds',
        '30',
      ],
      { cwd: writeEnv(), env: cliEnv },
    );
    expect(cli.exitCode, cli.stderr).toBe(20);
    // Without the forgery the deployed triage proves the edited record against the signed tree: HASH_MISMATCH.
    const honest = await client.recall({ lineageId, target: { seq: 1 }, currentEnv: ENV }, { timeoutMs: 30_000 });
    expect(honest.verdict).toBe('HASH_MISMATCH');
  });

  it('3b. a rejection forged in the table for a write that was sealed does not make publish --wait report REJECTED', async () => {
    const lineageId = await sealLineage(1);
    await dynamodb.send(
      new PutItemCommand({
        TableName: stack.TableName,
        Item: forgedRejection(lineageId, 'r-0', Date.now() + 60_000),
      }),
    );
    const checkpoints = new MemoryCheckpointStore();
    const client = new ResealClient(outputs, { sqs, dynamodb, kms, eventBridge, checkpointStore: checkpoints });
    const outcome = await client.waitForOutcome(lineageId, 'r-0', { timeoutMs: 10_000 });
    expect(outcome.kind === 'SEALED' && outcome.head.seq).toBe(0);
  });
});

/** A directory holding `env.json` = {@link ENV}, for the CLI's `--env`. */
function writeEnv(): string {
  const dir = mkdtempSync(join(tmpdir(), 'reseal-env-'));
  writeFileSync(join(dir, 'env.json'), JSON.stringify(ENV));
  return dir;
}
