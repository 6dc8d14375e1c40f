import { randomUUID } from 'node:crypto';
import { CloudFormationClient, DescribeStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { type AttributeValue, DeleteItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { TestContext } from 'vitest';
import { describe, expect, it, vi } from 'vitest';
import { DynamoDBDeploymentLogStore } from '../../adapters/dynamodb-deployment-log-store';
import { DynamoDBIndexNodeStore } from '../../adapters/dynamodb-index-node-store';
import { DynamoDBIntegrationLease } from '../../adapters/dynamodb-integration-lease';
import { KMSMacAnchor } from '../../adapters/kms-mac-anchor';
import { KMSNoteVerifierKey } from '../../adapters/kms-note-verifier-key';
import { LineageKeys } from '../../adapters/lineage-keys';
import { SqsIntegrationNotifier } from '../../adapters/sqs-integration-notifier';
import type { SealerService } from '../../functions/sealer/sealer-service';
import { clientConfig } from '../../scripts/emulator/deploy';
import { checkIndexPresence } from '../../shared/index/check-index';
import { isEmptyIndexHash } from '../../shared/index/index-hash';
import { type IndexKey, indexKeyPath, keyPathBit } from '../../shared/index/index-key';
import { IndexNodeReader } from '../../shared/index/index-node-reader';
import { INDEX_TILE_LEVELS } from '../../shared/index/index-tile';
import { proveIndexKey } from '../../shared/index/prove-index-key';
import { deploymentLeafHash } from '../../shared/integrator/deployment-leaf';
import { checkpointOrigin } from '../../shared/log/checkpoint-origin';
import { proveInclusion } from '../../shared/log/inclusion-proof';
import { nodeSourceOf } from '../../shared/log/node-source';
import { openCheckpoint } from '../../shared/log/verified-checkpoint';
import { verifyInclusion } from '../../shared/log/verify-inclusion';
import { INTEGRATION_LEASE_MS } from '../../shared/ports/integration-lease';
import type { IntegrationNotifier } from '../../shared/ports/integration-notifier';
import { buildManifest } from '../../shared/triage/build-manifest';
import { deployedStack } from '../helpers/deployed-stack';
import { acceptedWrite, coldSealer, sealGroup } from '../helpers/emulator-lineages';
import { expectGuarantee } from '../helpers/guarantees';
import { refRoot } from '../helpers/merkle-reference';
import { SealedRunNotices } from '../helpers/sealed-run-notices';
import { stackIntegrator } from '../helpers/stack-integrator';
import { until } from '../helpers/until';
import { testLineageId } from '../helpers/writer-factories';

// The integrator on the deployed stack (docs/deployment-log.md): the real sealer and integrator
// services over the emulator's table and KMS log key, then the deployed integrator function fed
// through the deployed integration queue.
const setup = deployedStack();
const { stack, endpoint, dynamodb, kms, sqs, store } = setup;
const manifest = buildManifest({ env: { ARCH: 'arm64' }, structuralKeys: ['ARCH'], claimDependencyMap: {} });
const deployment = new DynamoDBDeploymentLogStore(dynamodb, stack.TableName);
const index = new DynamoDBIndexNodeStore(dynamodb, stack.TableName);

const sealerWith = (notifier: IntegrationNotifier) => coldSealer(setup, { notifier });
const integrator = () => stackIntegrator(setup);

const write = (sealer: SealerService, lineageId: string, residualId: string) => {
  const now = Date.now();
  return sealGroup(sealer, [acceptedWrite(lineageId, residualId, manifest, now)], now);
};

/** The deployment head as the table holds it, verified with the deployed log key. */
async function publishedHead() {
  const head = await deployment.readHead();
  if (!head) return null;
  const key = await new KMSNoteVerifierKey(kms, stack.LogKeyArn, stack.LogName).get();
  return { head, checkpoint: openCheckpoint(head.checkpoint, key, stack.LogName), key };
}

/** Every lineage's index entry proven against the deployment checkpoint's last leaf. */
async function provenHeads(lineageIds: readonly string[]) {
  const read = await publishedHead();
  if (!read) throw new Error('no deployment head');
  const { head, checkpoint, key } = read;
  const root = Buffer.from(head.indexRoot, 'hex');
  const inclusion = await proveInclusion(
    checkpoint.size - 1,
    checkpoint.size,
    nodeSourceOf((refs) => deployment.readNodes(refs)),
  );
  expect(
    verifyInclusion({
      leafIndex: checkpoint.size - 1,
      treeSize: checkpoint.size,
      leafHash: deploymentLeafHash(root),
      proof: inclusion,
      rootHash: checkpoint.rootHash,
    }),
  ).toBe(true);
  const heads = new Map<string, number>();
  for (const lineageId of lineageIds) {
    const proven = await proveIndexKey(index, root, { kind: 'lineage', lineageId });
    if (proven.kind !== 'presence') continue;
    expect(checkIndexPresence(root, proven.entry, proven.proof)).toBeNull();
    const lineageHead = await store.logHead(lineageId);
    const { treeSize, rootHash } = proven.entry.value as { treeSize: number; rootHash: string };
    if (lineageHead?.checkpoint) {
      // A head signed before docs/deployment-log.md, "What changes for the sealer", step 3.
      const signed = openCheckpoint(lineageHead.checkpoint, key, checkpointOrigin(stack.LogName, lineageId));
      if (treeSize === signed.size) expect(rootHash).toBe(Buffer.from(signed.rootHash).toString('hex'));
    } else if (lineageHead && lineageHead.head.seq + 1 === treeSize) {
      // A head the sealer MAC'd: the entry's root is the RFC 9162 root of the lineage's records.
      const records = (await store.readChain(lineageId, 0, treeSize - 1)) as { recordHash: string }[];
      expect(rootHash).toBe(Buffer.from(refRoot(records.map((r) => Buffer.from(r.recordHash, 'hex')))).toString('hex'));
    }
    heads.set(lineageId, (proven.entry.value as { treeSize: number }).treeSize);
  }
  return { checkpoint, heads };
}

describe('integrator on the deployed stack (docs/deployment-log.md)', () => {
  /** The kinds of integration evidence stored for `lineageId` (docs/deployment-log.md, "Evidence"). */
  const evidenceKinds = async (lineageId: string) =>
    (
      (
        await dynamodb.send(
          new QueryCommand({
            TableName: stack.TableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': { S: LineageKeys.deploymentEvidence } },
            ConsistentRead: true,
          }),
        )
      ).Items ?? []
    )
      .filter((item) => item.lineageId?.S === lineageId)
      .map((item) => item.kind?.S);
  /** The items of lineage `lineageId` as a table writer's snapshot would hold them. */
  const snapshotOf = async (lineageId: string) =>
    (
      await dynamodb.send(
        new QueryCommand({
          TableName: stack.TableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: LineageKeys.lineage(lineageId) } },
          ConsistentRead: true,
        }),
      )
    ).Items ?? [];
  /** The table writer's rollback: the records at `seqs` deleted, the snapshot's items put back. */
  const restoreSnapshot = async (
    lineageId: string,
    snapshot: readonly Record<string, AttributeValue>[],
    seqs: readonly number[],
  ) => {
    for (const seq of seqs) {
      await dynamodb.send(
        new DeleteItemCommand({
          TableName: stack.TableName,
          Key: { pk: { S: LineageKeys.lineage(lineageId) }, sk: { S: LineageKeys.record(seq) } },
        }),
      );
    }
    for (const item of snapshot) await dynamodb.send(new PutItemCommand({ TableName: stack.TableName, Item: item }));
  };

  it('the integration lease is one conditional write on the emulator: held until it lapses or is released (docs/deployment-log.md, "One integration at a time")', async () => {
    const lease = new DynamoDBIntegrationLease(dynamodb, stack.TableName);
    const key = { pk: { S: LineageKeys.deploymentLease }, sk: { S: 'LEASE' } };
    const now = Date.now();
    const until = now + INTEGRATION_LEASE_MS;
    expect(await lease.take('one', now, until)).toBe(true);
    expect(await lease.take('two', now + 1000, now + 1000 + INTEGRATION_LEASE_MS)).toBe(false);
    expect(await lease.take('two', until, until + INTEGRATION_LEASE_MS)).toBe(true); // lapsed
    await lease.release('one'); // no longer its holder: left alone
    expect(await lease.take('three', until + 1, until + 1 + INTEGRATION_LEASE_MS)).toBe(false);
    await lease.release('two');
    expect(await lease.take('three', until + 1, until + 1 + INTEGRATION_LEASE_MS)).toBe(true);
    await lease.release('three');
    // A table writer's lease that claims to last past the longest an integrator takes is taken.
    await dynamodb.send(
      new PutItemCommand({
        TableName: stack.TableName,
        Item: { ...key, holder: { S: 'forged' }, expiresAtMs: { N: String(now + 10 * INTEGRATION_LEASE_MS) } },
      }),
    );
    expect(await lease.take('four', now, until)).toBe(true);
    await lease.release('four');
    // An expiry of another type compares false with every number: still a forged lease, taken.
    for (const expiresAtMs of [{ S: '1' }, { M: { n: { N: '1' } } }]) {
      await dynamodb.send(
        new PutItemCommand({ TableName: stack.TableName, Item: { ...key, holder: { S: 'forged' }, expiresAtMs } }),
      );
      expect(await lease.take('five', now, until)).toBe(true);
      await lease.release('five');
    }
    // A running lease of an instance whose clock is a few seconds ahead is not taken as forged.
    expect(await lease.take('six', now + 3_000, now + 3_000 + INTEGRATION_LEASE_MS)).toBe(true);
    expect(await lease.take('seven', now, until)).toBe(false);
    await lease.release('six');
  }, 120_000);

  it('the sealer MACs its notices under the stack\'s notice key: a head an authenticated notice names needs no VerifyMac, nor one named by a notice stripped of its auth: its head-key MAC vouches (docs/deployment-log.md, "Integration", step 2; docs/verifiable-log.md, "Appending")', async () => {
    const notices = new SealedRunNotices();
    const sealer = sealerWith(notices);
    const [a, b] = ['a', 'b'].map((l) => testLineageId(`lin-auth-${l}-${randomUUID()}`)) as [string, string];
    expect(await write(sealer, a, 'r-0')).toEqual(['SEALED']);
    expect(await write(sealer, b, 'r-0')).toEqual(['SEALED']);
    const [genuine, other] = notices.take();
    if (!genuine?.auth || !other?.auth) throw new Error('the sealer sent notices without auth');
    const { auth: _auth, ...stripped } = other;
    const verifyMac = vi.spyOn(KMSMacAnchor.prototype, 'verifyMac');
    try {
      const report = await integrator().integrate([genuine, stripped]);
      expect(report.evidence).toEqual([]);
      expect([...report.integrated].sort()).toEqual([a, b].sort());
      expect(verifyMac.mock.calls.filter(([message]) => message.byteLength === 32)).toHaveLength(0);
    } finally {
      verifyMac.mockRestore();
    }
  });

  it('three lineages under one signed deployment checkpoint; a table-writer rollback of one is refused with evidence', async (context: TestContext) => {
    const notices = new SealedRunNotices();
    const sealer = sealerWith(notices);
    const lineages = ['a', 'b', 'c'].map((l) => testLineageId(`lin-int-${l}-${randomUUID()}`));
    for (const residualId of ['r-0', 'r-1']) {
      for (const lineageId of lineages) expect(await write(sealer, lineageId, residualId)).toEqual(['SEALED']);
    }
    const service = integrator();
    const first = await service.integrate(notices.take());
    expect(first.evidence).toEqual([]);
    expect([...first.integrated].sort()).toEqual([...lineages].sort());
    const { checkpoint, heads } = await provenHeads(lineages);
    expect(first.checkpoint).toBe((await deployment.readHead())?.checkpoint);
    expect([...heads.values()]).toEqual([2, 2, 2]);

    // The table writer keeps lineage a's items at 2 records, lets 2 more be sealed and integrated, then puts them back.
    const [a, b] = lineages as [string, string];
    const snapshot = await snapshotOf(a);
    expect(await write(sealer, a, 'r-2')).toEqual(['SEALED']);
    expect(await write(sealer, a, 'r-3')).toEqual(['SEALED']);
    await service.integrate(notices.take());
    expect((await provenHeads([a])).heads.get(a)).toBe(4);
    await restoreSnapshot(a, snapshot, [2, 3]);
    // A cold sealer extends the rolled-back state; another lineage goes on as usual.
    const cold = sealerWith(notices);
    expect(await write(cold, a, 'r-2b')).toEqual(['SEALED']);
    expect(await write(cold, b, 'r-2')).toEqual(['SEALED']);
    const report = await integrator().integrate(notices.take());
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'lineage (whole)',
        attack:
          'restore head, records and checkpoint from an earlier snapshot; a cold sealer then seals one write (emulator)',
        reader: 'integrator',
        expected: 'evidence LINEAGE_ROLLBACK',
      },
      report.evidence.map((e) => `evidence ${e.kind}`).join(', ') || 'integrated',
    );
    expect(report.integrated).toEqual([b]);
    const after = await provenHeads([a, b]);
    expect(after.heads.get(a)).toBe(4);
    expect(after.heads.get(b)).toBe(3);
    expect(after.checkpoint.size).toBe(checkpoint.size + 2);
    expect(await evidenceKinds(a)).toContain('LINEAGE_ROLLBACK');
  });

  it('a rollback within the interval, the same seqs sealed again and integrated, then the first seal\'s notice late: NOTICE_MISMATCH (docs/deployment-log.md, "Integration", step 3)', async (context: TestContext) => {
    const notices = new SealedRunNotices();
    const sealer = sealerWith(notices);
    const a = testLineageId(`lin-late-${randomUUID()}`);
    expect(await write(sealer, a, 'r-0')).toEqual(['SEALED']);
    expect((await notices.integrateRetrying(integrator)).evidence).toEqual([]);
    const snapshot = await snapshotOf(a);
    expect(await write(sealer, a, 'r-1')).toEqual(['SEALED']);
    expect(await write(sealer, a, 'r-2')).toEqual(['SEALED']);
    const late = notices.take(); // the queue delivers these after the next integration
    // The table writer puts lineage a back at 1 record before any integration; a cold sealer seals seqs 1-3 again.
    await restoreSnapshot(a, snapshot, [1, 2]);
    const cold = sealerWith(notices);
    for (const id of ['r-1b', 'r-2b', 'r-3b']) expect(await write(cold, a, id)).toEqual(['SEALED']);
    expect((await notices.integrateRetrying(integrator)).evidence).toEqual([]);
    expect((await provenHeads([a])).heads.get(a)).toBe(4);
    notices.pending.push(...late);
    const report = await notices.integrateRetrying(integrator);
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'lineage (whole)',
        attack:
          "restore a snapshot within the integration interval; a cold sealer seals the same seqs again, integrated before the first seal's notice arrives (emulator)",
        reader: 'integrator',
        expected: 'evidence NOTICE_MISMATCH',
      },
      report.evidence.map((e) => `evidence ${e.kind}`).join(', ') || 'integrated',
    );
    expect((await provenHeads([a])).heads.get(a)).toBe(4);
    expect(await evidenceKinds(a)).toContain('NOTICE_MISMATCH');
  });

  it('a deleted INDEX# tile item leaves out only the lineage whose path crosses it; the others integrate', async (context: TestContext) => {
    const notices = new SealedRunNotices();
    const sealer = sealerWith(notices);
    // The ids are chosen by their key paths, not left to chance (the index is shared by every file,
    // so its depth varies): x2 shares x's first INDEX_TILE_LEVELS + 1 path bits, so x's path always
    // crosses a tile below the root tile; none of y's keys starts like x's, so none crosses it.
    const prefix = (key: IndexKey, bits: number) => {
      const path = indexKeyPath(key);
      return Array.from({ length: bits }, (_, depth) => keyPathBit(path, depth)).join('');
    };
    const lineageKey = (lineageId: string): IndexKey => ({ kind: 'lineage', lineageId });
    const pick = (name: string, fits: (lineageId: string) => boolean): string => {
      for (;;) {
        const lineageId = testLineageId(`lin-int-node-${name}-${randomUUID()}`);
        if (fits(lineageId)) return lineageId;
      }
    };
    const x = pick('x', () => true);
    const xPrefix = prefix(lineageKey(x), INDEX_TILE_LEVELS + 1);
    const x2 = pick('x2', (id) => prefix(lineageKey(id), INDEX_TILE_LEVELS + 1) === xPrefix);
    const y = pick('y', (id) =>
      [
        lineageKey(id),
        ...['r-0', 'r-1'].map((residualId): IndexKey => ({ kind: 'residual', lineageId: id, residualId })),
      ]
        .map((key) => prefix(key, INDEX_TILE_LEVELS))
        .every((p) => p !== xPrefix.slice(0, INDEX_TILE_LEVELS)),
    );
    for (const lineageId of [x, x2, y]) expect(await write(sealer, lineageId, 'r-0')).toEqual(['SEALED']);
    const service = integrator();
    expect((await service.integrate(notices.take())).evidence).toEqual([]);
    const root = Buffer.from((await deployment.readHead())?.indexRoot ?? '', 'hex');
    // The tile items on a key's path, top-down (docs/verifiable-index.md, "Tiles").
    const tilesOnPath = async (key: IndexKey): Promise<string[]> => {
      const reader = new IndexNodeReader(index);
      const path = indexKeyPath(key);
      const tiles: string[] = [];
      let hash: Uint8Array = root;
      for (let depth = 0; !isEmptyIndexHash(hash); depth += 1) {
        const node = await reader.read(hash);
        if (reader.isTileRoot(hash)) tiles.push(Buffer.from(hash).toString('hex'));
        if (node.kind === 'leaf') break;
        hash = keyPathBit(path, depth) === 1 ? node.right : node.left;
      }
      return tiles;
    };
    const onY = new Set(await tilesOnPath({ kind: 'lineage', lineageId: y }));
    const tile = (await tilesOnPath({ kind: 'lineage', lineageId: x })).filter((t) => !onY.has(t)).at(-1);
    if (tile === undefined) throw new Error(`${x} has no tile of its own`);
    const nodeKey = { pk: { S: LineageKeys.indexNode(tile) }, sk: { S: LineageKeys.indexNodeSk } };
    const deleted = await dynamodb.send(
      new DeleteItemCommand({ TableName: stack.TableName, Key: nodeKey, ReturnValues: 'ALL_OLD' }),
    );
    let report: Awaited<ReturnType<typeof service.integrate>>;
    try {
      for (const lineageId of [x, y]) expect(await write(sealer, lineageId, 'r-1')).toEqual(['SEALED']);
      report = await service.integrate(notices.take());
    } finally {
      // The table is shared by every integration file: put the node back (content-addressed, so the
      // same bytes), or later keys whose paths cross it would be left out by the deployed functions.
      if (deleted.Attributes)
        await dynamodb.send(new PutItemCommand({ TableName: stack.TableName, Item: deleted.Attributes }));
    }
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'index node',
        attack: "delete the index tile on one lineage's path only; two lineages are integrated (emulator)",
        reader: 'integrator',
        expected: 'evidence INDEX_NODE_MISSING, the other lineage integrated',
      },
      `${report.evidence.map((e) => `evidence ${e.kind}`).join(', ') || 'no evidence'}${report.integrated.includes(y) ? ', the other lineage integrated' : ''}`,
    );
    expect(report.evidence).toMatchObject([{ kind: 'INDEX_NODE_MISSING', lineageId: x }]);
    expect((await provenHeads([y])).heads.get(y)).toBe(2);
  });

  it('the deployed integrator function integrates the notices the sealer sends to the integration queue', async () => {
    const cloudformation = new CloudFormationClient(clientConfig(endpoint));
    const stackName = stack.LogName.slice('reseal/'.length);
    const resources = await cloudformation.send(new DescribeStackResourcesCommand({ StackName: stackName }));
    const queue = resources.StackResources?.find(
      (r) => r.ResourceType === 'AWS::SQS::Queue' && /^IntegrationQueue/.test(r.LogicalResourceId ?? ''),
    );
    expect(queue?.PhysicalResourceId).toBeDefined();
    const sealer = sealerWith(new SqsIntegrationNotifier(sqs, queue?.PhysicalResourceId ?? ''));
    const lineageId = testLineageId(`lin-int-q-${randomUUID()}`);
    expect(await write(sealer, lineageId, 'r-0')).toEqual(['SEALED']);
    const heads = await until(`the deployed integrator to index ${lineageId}`, async () => {
      const proven = await provenHeads([lineageId]);
      return proven.heads.get(lineageId) === 1 ? proven.heads : undefined;
    });
    expect(heads.get(lineageId)).toBe(1);
  });
});
