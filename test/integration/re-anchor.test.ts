import { randomUUID } from 'node:crypto';
import { type AttributeValue, BatchWriteItemCommand, DeleteTableCommand, paginateScan } from '@aws-sdk/client-dynamodb';
import type { TestContext } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBDeploymentLogStore } from '../../adapters/dynamodb-deployment-log-store';
import { DynamoDBIndexNodeStore } from '../../adapters/dynamodb-index-node-store';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { DynamoDBWitnessStore } from '../../adapters/dynamodb-witness-store';
import { KMSMacAnchor } from '../../adapters/kms-mac-anchor';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { KMSNoteVerifierKey } from '../../adapters/kms-note-verifier-key';
import { DeploymentChainReader } from '../../client/deployment-chain-reader';
import { freshnessPolicy } from '../../client/freshness-policy';
import { freshnessShape } from '../../client/shapes/freshness-shape';
import { createReAnchorHandler } from '../../functions/integrator/create-re-anchor-handler';
import { IntegratorService } from '../../functions/integrator/integrator-service';
import { WitnessService } from '../../functions/witness/witness-service';
import { prepareReAnchor } from '../../scripts/re-anchor';
import { LogStateError } from '../../shared/errors';
import { formatVerifierKey } from '../../shared/log/note-key';
import { formatCosignerKey } from '../../shared/witness/cosigner-key';
import { parsePolicy } from '../../shared/witness/tlog-policy';
import { parseTrustedLogs } from '../../shared/witness/trusted-logs';
import { deployedStack } from '../helpers/deployed-stack';
import { acceptedWrite, coldSealer, sealGroup, stackNoticeKey } from '../helpers/emulator-lineages';
import { FakeMetrics, fakeLogger } from '../helpers/factories';
import { expectGuarantee } from '../helpers/guarantees';
import { testRecoveryKey, testRecoverySigner } from '../helpers/re-anchor-factories';
import { createScratchTable } from '../helpers/scratch-table';
import { SealedRunNotices } from '../helpers/sealed-run-notices';
import { testCosignerKey, testWitnessSigner } from '../helpers/witness-factories';
import { testLineageId } from '../helpers/writer-factories';
import { MANIFEST } from './tamper/fixture';

// The operator's recovery after a legitimate restore (docs/deployment-log.md, "Re-anchor"), on the
// emulator: the stack's KMS log and MAC keys, and a lineage table and witness table of this file's
// own (the same key schema as the stack's), so the restore and the re-anchor touch no deployment log
// another file reads. Sealer, integrator and witness run in process on them; the witness's key is a
// local one (one account: see docs/deployment-log.md, "What a second account adds").
const { stack, dynamodb, kms } = deployedStack();
const suffix = randomUUID().slice(0, 8);
const tableName = `reseal-re-anchor-${suffix}`;
const witnessTableName = `reseal-re-anchor-witness-${suffix}`;
const REASON = 'lineage table restored from a point-in-time backup after an operator error';

/** The POSIX second after the one now, once the clock has reached it (the test runs faster than an operator). */
async function nextSecond(): Promise<number> {
  const next = Math.floor(Date.now() / 1000) + 1;
  await new Promise((resolve) => setTimeout(resolve, next * 1000 - Date.now() + 1));
  return next;
}

const logSigner = new KMSNoteSigner(kms, stack.LogKeyArn, stack.LogName);
const logKey = await new KMSNoteVerifierKey(kms, stack.LogKeyArn, stack.LogName).get();
const recoveryKey = await testRecoveryKey();
const policyText = `log ${formatVerifierKey(logKey)}\nwitness w1 ${formatCosignerKey(await testCosignerKey())}\nquorum w1\n`;
const store = new DynamoDBLineageStore(dynamodb, tableName);
const deployment = new DynamoDBDeploymentLogStore(dynamodb, tableName);
const index = new DynamoDBIndexNodeStore(dynamodb, tableName);
const witnessStore = new DynamoDBWitnessStore(dynamodb, witnessTableName);
const witness = new WitnessService({
  store: witnessStore,
  signer: testWitnessSigner(),
  trusted: parseTrustedLogs(formatVerifierKey(logKey)),
  logger: fakeLogger(),
  clock: Date.now,
  recoveryKeys: [recoveryKey],
});
const notices = new SealedRunNotices();
// The stack's keys over this file's own table.
const sealer = () =>
  coldSealer({ stack: { ...stack, TableName: tableName }, dynamodb, kms }, { signer: logSigner, notifier: notices });
const integrator = () =>
  new IntegratorService({
    lineages: store,
    deployment,
    index,
    signer: logSigner,
    anchor: new KMSMacAnchor(kms, stack.MacKeyArn),
    // The sealer MACs its heads and notices under the stack's notice key, as deployed.
    noticeKey: stackNoticeKey({ stack, dynamodb, kms }),
    witness: {
      client: {
        addCheckpoint: async (body) => witness.addCheckpoint(body),
        reAnchor: async (body) => witness.reAnchor(body),
      },
      policy: parsePolicy(policyText),
      maxAgeSeconds: 180,
    },
    metrics: new FakeMetrics(),
    logger: fakeLogger(),
    clock: Date.now,
    recoveryKeys: [recoveryKey],
  });
const reader = new DeploymentChainReader({
  log: deployment,
  index,
  policy: async () => freshnessPolicy(policyText),
  nowMs: Date.now,
});

/** Every item of the lineage table (the backup a restore puts back). */
async function scanAll(): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  for await (const page of paginateScan({ client: dynamodb }, { TableName: tableName, ConsistentRead: true }))
    items.push(...(page.Items ?? []));
  return items;
}

/** The table as the backup held it: items written since deleted, the backup's items put back. */
async function restore(backup: readonly Record<string, AttributeValue>[]): Promise<void> {
  const key = (i: Record<string, AttributeValue>) => `${i.pk?.S}\u0000${i.sk?.S}`;
  const kept = new Set(backup.map(key));
  const writes = [
    ...(await scanAll())
      .filter((i) => !kept.has(key(i)))
      .map((i) => ({ DeleteRequest: { Key: { pk: i.pk as AttributeValue, sk: i.sk as AttributeValue } } })),
    ...backup.map((i) => ({ PutRequest: { Item: i } })),
  ];
  for (let i = 0; i < writes.length; i += 25) {
    await dynamodb.send(new BatchWriteItemCommand({ RequestItems: { [tableName]: writes.slice(i, i + 25) } }));
  }
}

async function seal(lineageId: string, residualId: string): Promise<void> {
  const now = Date.now();
  expect(await sealGroup(sealer(), [acceptedWrite(lineageId, residualId, MANIFEST, now)], now)).toEqual(['SEALED']);
}

beforeAll(async () => {
  await createScratchTable(dynamodb, tableName, ['pk', 'sk']);
  await createScratchTable(dynamodb, witnessTableName, ['origin']);
});

afterAll(async () => {
  for (const name of [tableName, witnessTableName]) {
    await dynamodb.send(new DeleteTableCommand({ TableName: name })).catch(() => undefined);
  }
});

describe('re-anchor after a legitimate restore, on the emulator (docs/deployment-log.md, "Re-anchor")', () => {
  it('writes, backup, more writes, restore: refused; the operator re-anchors; integration resumes; a cold client sees the statement; a second restore and re-anchor keep the first statement in the chain', async (context: TestContext) => {
    const [a, b] = ['a', 'b'].map((l) => testLineageId(`re-anchor-${l}-${randomUUID()}`)) as [string, string];
    const warm = integrator();
    await seal(a, 'r-0');
    await seal(a, 'r-1');
    await warm.integrate(notices.take());
    const backup = await scanAll();
    await seal(a, 'r-2');
    await warm.integrate(notices.take());
    await seal(b, 'r-0');
    await warm.integrate(notices.take());
    const keptOld = (await deployment.readHead())?.published ?? '';
    expect((await witnessStore.read(stack.LogName))?.size).toBe(3);

    await restore(backup);
    expect((await deployment.readHead())?.size).toBe(1);
    await seal(a, 'r-2b');
    const batch = notices.take();
    const cold = integrator();
    await expect(cold.integrate(batch)).rejects.toBeInstanceOf(LogStateError);

    // The operator: the statement for the table's head and the witness's state, signed with the
    // recovery key, given to the integrator function's re-anchor entry.
    const lost = await witnessStore.read(stack.LogName);
    const prepared = await prepareReAnchor({
      head: await deployment.readHead(),
      key: logKey,
      lost: lost ?? { size: 0, rootHash: new Uint8Array(32) },
      reason: REASON,
      // Made after the restore, in a later second than the old history's cosignatures (a statement
      // explains only checkpoints that predate it) and no later than the witnesses' cosignature of
      // the checkpoint carrying it ("What clients see"): the operator's clock, read in a new second.
      nowSeconds: await nextSecond(),
      recovery: testRecoverySigner(),
    });
    const answer = await createReAnchorHandler(cold, fakeLogger())({ reAnchor: prepared?.note ?? '' });
    expect(answer).toMatchObject({ ok: true, size: 2 });
    expect((await witnessStore.read(stack.LogName))?.size).toBe(2);

    expect((await cold.integrate(batch)).witnessStatus).toBe(200);
    await seal(b, 'r-0b');
    expect((await integrator().integrate(notices.take())).witnessStatus).toBe(200);
    const backupOfSecond = await scanAll();
    await seal(b, 'r-1b');
    expect((await warm.integrate(notices.take())).witnessStatus).toBe(200);
    expect((await deployment.readHead())?.size).toBe(5);

    const chain = await reader.read({ lineageId: a, residualId: 'r-2b' });
    const notice = chain.kind === 'PROVEN' ? (chain.reAnchor ?? null) : null;
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'deployment log',
        attack:
          'none: the table restored from backup (the witness had cosigned 3, the table holds 1); the operator re-anchors (emulator)',
        reader: 'DeploymentChainReader (cold)',
        expected: 'PROVEN, re-anchored at 1, lost 2 leaves up to 3, with the reason',
      },
      notice
        ? `${chain.kind}, re-anchored at ${notice.restoredSize}, lost ${notice.lostLeaves} leaves up to ${notice.lostSize}${notice.reason === REASON ? ', with the reason' : ''}`
        : `${chain.kind}, no re-anchor shown`,
    );
    expect(
      freshnessShape({
        state: 'PROVEN',
        checkpointSize: 1,
        windowSeconds: null,
        witnessing: 'UNWITNESSED',
        reason: 'proven',
        reAnchor: notice,
      })?.reAnchor,
    ).toMatchObject({ restoredSize: 1, lostSize: 3, lostLeaves: 2, reason: REASON });
    expect(await reader.compareKept(keptOld)).toMatchObject({ kind: 'EXPLAINED_BY_RE_ANCHOR' });

    // A second restore, of the re-anchored history (docs/deployment-log.md, "A chain of re-anchors"):
    // back to 4 leaves while the witness holds 5; the operator re-anchors again.
    await restore(backupOfSecond);
    await seal(a, 'r-3c');
    const secondBatch = notices.take();
    const second = integrator();
    await expect(second.integrate(secondBatch)).rejects.toBeInstanceOf(LogStateError);
    const again = await prepareReAnchor({
      head: await deployment.readHead(),
      key: logKey,
      lost: (await witnessStore.read(stack.LogName)) ?? { size: 0, rootHash: new Uint8Array(32) },
      reason: 'restored again',
      // Made after the restore, in a later second than the old history's cosignatures (a statement
      // explains only checkpoints that predate it) and no later than the witnesses' cosignature of
      // the checkpoint carrying it ("What clients see"): the operator's clock, read in a new second.
      nowSeconds: await nextSecond(),
      recovery: testRecoverySigner(),
    });
    expect(await createReAnchorHandler(second, fakeLogger())({ reAnchor: again?.note ?? '' })).toMatchObject({
      ok: true,
      size: 5,
    });
    expect((await second.integrate(secondBatch)).witnessStatus).toBe(200);
    const head = await deployment.readHead();
    expect(head?.reAnchorChain).toEqual([notice?.note]);
    const throughChain = await reader.compareKept(keptOld);
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'deployment log',
        attack:
          'none: a client kept a checkpoint of the history before two successive re-anchors (restore, re-anchor, restore, re-anchor) (emulator)',
        reader: 'DeploymentChainReader.compareKept',
        expected: 'EXPLAINED_BY_RE_ANCHOR through 2 statements',
      },
      throughChain.kind === 'EXPLAINED_BY_RE_ANCHOR'
        ? `${throughChain.kind} through ${throughChain.chain.length} statements`
        : throughChain.kind,
    );
  });
});
