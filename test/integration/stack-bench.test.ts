import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { KMSMacAnchor } from '../../adapters/kms-mac-anchor';
import { CallTally, countsSince } from '../../bench/stack/call-tally';
import { countCalls } from '../../bench/stack/counting-middleware';
import { type CountingProxy, startCountingProxy } from '../../bench/stack/counting-proxy';
import { functionLogs } from '../../bench/stack/function-logs';
import {
  BENCH_ENV,
  BENCH_WRITER,
  type BenchStack,
  benchClient,
  benchLineageId,
  benchWrite,
  measureAudit,
  measureWrites,
  pinBenchStack,
  runBenchCli,
} from '../../bench/stack/stack-bench';
import { scenarioUsage } from '../../bench/stack/stack-usage';
import { soleWriterPolicy } from '../../client/sole-writer-policy';
import { clientConfig, STACK_NAME } from '../../scripts/emulator/deploy';
import { signWriteRequest } from '../../shared/authorship/write-signature';
import { verifyChain } from '../../shared/seal/verify-chain';
import { buildManifest } from '../../shared/triage/build-manifest';
import { deployedStack } from '../helpers/deployed-stack';
import { acceptedWrite, coldSealer, sealGroup } from '../helpers/emulator-lineages';
import { testLineageId } from '../helpers/writer-factories';

// The emulator bench's harness (bench/stack/, `npm run bench:stack`) at tiny counts on the stack
// the integration run deployed, so the counting cannot rot silently: the SDK middleware, the
// counting proxy and the functions' logs each count what the stack really did.
const { stack, endpoint } = deployedStack();
const lineageId = benchLineageId(`bench-it-${randomUUID().slice(0, 8)}`);
let cliProxy: CountingProxy;
let bench: BenchStack;

beforeAll(async () => {
  cliProxy = await startCountingProxy({ target: endpoint });
  bench = {
    outputs: stack,
    endpoint,
    // The integration stack's functions call the emulator directly: only their logs are read here.
    functionCalls: null,
    cli: { endpoint: cliProxy.endpoint, calls: cliProxy.tally },
    logs: await functionLogs(endpoint, new CloudFormationClient(clientConfig(endpoint)), STACK_NAME),
  };
});

afterAll(async () => {
  await cliProxy.close();
});

/** A cold sealer on the stack whose DynamoDB and KMS calls are counted in `tally`. */
function countedColdSealer() {
  const tally = new CallTally();
  const config = clientConfig(endpoint);
  // As the deployed sealer runs: heads MAC'd under the stack's notice key (docs/verifiable-log.md, "Appending").
  const sealer = coldSealer(
    {
      stack,
      dynamodb: countCalls(new DynamoDBClient(config), tally),
      kms: countCalls(new KMSClient(config), tally),
    },
    { headKeyMacs: true },
  );
  return { tally, config, sealer };
}

describe('emulator bench: the counts are real', () => {
  it('two writes through the pipeline: two SendMessage by the client, the guard and the sealer invoked as their logs show', async () => {
    const measured = await measureWrites(bench, benchClient(bench), {
      name: 'integration',
      lineages: [lineageId],
      perLineage: 2,
      intervalMs: 0,
      timeoutMs: 120_000,
    });
    expect(measured.operations).toBe(2);
    expect(measured.latenciesMs).toHaveLength(2);
    expect(measured.client['SQS.SendMessage']?.calls).toBe(2);
    // The client proves each outcome with consistent reads, whose capacity the emulator reports.
    expect(measured.client['DynamoDB.GetItem']?.readUnits).toBeGreaterThan(0);
    const { guard, sealer } = measured.lambda ?? {};
    expect(guard?.invocations).toBeGreaterThanOrEqual(1);
    expect(sealer?.invocations).toBeGreaterThanOrEqual(1);
    expect(guard?.invocations).toBeLessThanOrEqual(2);
    expect(sealer?.gbSeconds).toBeGreaterThan(0);
    expect(sealer?.logBytes).toBeGreaterThan(0);
    // The cost model sees the publish and the Lambda side.
    const usage = scenarioUsage(measured);
    expect(usage.client.sqsStandardRequest).toBe(1);
    expect(usage.stack.lambdaRequest).toBeGreaterThanOrEqual(1);
  });

  it("a sealed write makes exactly one GenerateMac (the record's seal; its head is MAC'd in process under the notice data key, one GenerateDataKey per cold container), no Sign, and no transaction: conditional PutItems whose capacity the emulator reports", async () => {
    const { tally, sealer } = countedColdSealer();
    const manifest = buildManifest({ env: { ...BENCH_ENV }, structuralKeys: ['ARCH'], claimDependencyMap: {} });
    const own = testLineageId(`${lineageId}-sealer`);
    expect(await sealGroup(sealer, [acceptedWrite(own, `${own}-r0`, manifest, Date.now())])).toEqual(['SEALED']);
    const counts = tally.snapshot();
    // One seal per record batch; the head MAC'd in process under the notice data key, fetched once
    // by this cold sealer (docs/verifiable-log.md, "Appending").
    expect(counts['KMS.GenerateMac']?.calls).toBe(1);
    expect(counts['KMS.GenerateDataKey']?.calls).toBe(1);
    expect(counts['KMS.VerifyMac']).toBeUndefined();
    // No signed lineage checkpoint (docs/deployment-log.md, "What changes for the sealer", step 3).
    expect(counts['KMS.Sign']).toBeUndefined();
    // The record, then the head and the marker, each a conditional PutItem (docs/sealing.md, "The
    // write"), and the manifest item on a sealer's first write naming it: no transaction.
    expect(counts['DynamoDB.TransactWriteItems']).toBeUndefined();
    expect(counts['DynamoDB.PutItem']?.calls).toBeGreaterThanOrEqual(3);
    expect(counts['DynamoDB.PutItem']?.writeUnits).toBeGreaterThanOrEqual(3);
    expect(counts['DynamoDB.PutItem']?.requestBytes).toBeGreaterThan(1024);
  });

  it('docs/sealing.md "The append\'s layout": a write of 1 KiB with a 100-key manifest is three PutItems of 4 WCU (record 2, head 1, marker 1); its manifest is put once, by digest', async () => {
    const { tally, config, sealer } = countedColdSealer();
    // The bench's own write (benchWrite: 1 KiB payload, a 100-key manifest, signed by the bench
    // writer, its policy at inception), on a lineage of its own.
    const own = benchLineageId(`bench-it-capacity-${randomUUID().slice(0, 8)}`);
    const perWrite = [];
    for (const i of [0, 1, 2]) {
      const before = tally.snapshot();
      const nowMs = Date.now();
      const inception = i === 0 ? { policy: soleWriterPolicy(BENCH_WRITER) } : {};
      const request = await signWriteRequest(
        { ...benchWrite(own, `${own}-r${i}`, nowMs), ...inception },
        BENCH_WRITER,
        nowMs,
      );
      expect(await sealGroup(sealer, [request], nowMs)).toEqual(['SEALED']);
      perWrite.push(countsSince(tally.snapshot(), before));
    }
    const manifest = benchWrite(own, 'any', Date.now()).manifest;
    // Before the manifest was content-addressed, the record item carried it: 32–34 WCU a write;
    // before the record was compressed, 14 (a 3 KB record item, 2 × (4 + 2 + 1)).
    // Then one transaction of 10 WCU, 2 × (2 + 2 + 1); now no transaction: the record (2), then the
    // small head (1) and the marker (1), each a PutItem (docs/sealing.md, "The write").
    for (const counts of perWrite) expect(counts['DynamoDB.TransactWriteItems']).toBeUndefined();
    // The first write also puts the manifest item (binary, a few KB, once); the next ones do not.
    expect(perWrite[0]?.['DynamoDB.PutItem']?.calls).toBe(4);
    expect(perWrite[0]?.['DynamoDB.PutItem']?.writeUnits).toBeLessThanOrEqual(4 + 6);
    for (const counts of perWrite.slice(1)) {
      expect(counts['DynamoDB.PutItem']?.calls).toBe(3);
      expect(counts['DynamoDB.PutItem']?.writeUnits).toBe(4);
    }
    // They read it back instead (docs/sealing.md, "Writing it"): one BatchGetItem each.
    expect(perWrite[1]?.['DynamoDB.BatchGetItem']?.calls).toBe(1);
    expect(perWrite[2]?.['DynamoDB.BatchGetItem']?.calls).toBe(1);
    // And the records read back whole, the manifest put back from its item: the chain verifies.
    const records = await new DynamoDBLineageStore(new DynamoDBClient(config), stack.TableName).readChain(own, 0, 2);
    const kms = new KMSClient(config);
    const result = await verifyChain(records, { lineageId: own, anchor: new KMSMacAnchor(kms, stack.MacKeyArn) });
    expect(result.verdict).toBe('VERIFIED_INTACT');
    expect(records.map((r) => (r as { manifest?: unknown }).manifest)).toEqual([manifest, manifest, manifest]);
  });

  it('an audit of the two-record lineage through the CLI: by the signed tree, no VerifyMac; with --audit-macs, one per record', async () => {
    const byTree = await measureAudit(bench, 'integration audit', lineageId, 2);
    expect(byTree.client['KMS.VerifyMac']).toBeUndefined();
    expect(byTree.client['CloudFormation.DescribeStacks']?.calls).toBe(1);
    expect(byTree.client['DynamoDB.Query']?.readUnits).toBeGreaterThan(0);
    const audit = await measureAudit(bench, 'integration audit', lineageId, 2, { auditMacs: true });
    expect(audit.client['KMS.VerifyMac']?.calls).toBe(2);
    expect(scenarioUsage(audit).unpriced).toEqual(['CloudFormation.DescribeStacks']);
  });

  it('docs/cli.md "Pinning the stack": with the stack pinned, a CLI recall and an audit make no KMS and no CloudFormation call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reseal-pin-it-'));
    try {
      const pinFile = join(dir, 'stack.json');
      await pinBenchStack(bench, pinFile);
      writeFileSync(join(dir, 'env.json'), JSON.stringify(BENCH_ENV));
      const before = bench.cli.calls.snapshot();
      const recall = await runBenchCli(
        bench,
        ['recall', '--lineage', lineageId, '--env', join(dir, 'env.json'), '--json', '--stack', STACK_NAME],
        { RESEAL_STACK_FILE: pinFile },
      );
      expect(recall.code, recall.stderr).toBe(0);
      const counted = Object.keys(countsSince(bench.cli.calls.snapshot(), before));
      expect(counted).toContain('EventBridge.PutEvents');
      expect(counted.filter((operation) => /^(KMS|CloudFormation)\./.test(operation))).toEqual([]);
      const audit = await measureAudit(bench, 'integration audit, pinned', lineageId, 2, { pinFile });
      expect(Object.keys(audit.client).filter((operation) => /^(KMS|CloudFormation)\./.test(operation))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
