import { randomUUID } from 'node:crypto';
import { DeleteItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { TestContext } from 'vitest';
import { describe, expect, it } from 'vitest';
import { DynamoDBDeploymentLogStore } from '../../adapters/dynamodb-deployment-log-store';
import { DynamoDBIndexNodeStore } from '../../adapters/dynamodb-index-node-store';
import { LineageKeys } from '../../adapters/lineage-keys';
import type { SealerService } from '../../functions/sealer/sealer-service';
import type { LineagePolicy } from '../../shared/authorship/lineage-policy';
import { buildManifest } from '../../shared/triage/build-manifest';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { deployedStack } from '../helpers/deployed-stack';
import { acceptedWrite, coldSealer, sealGroup } from '../helpers/emulator-lineages';
import { expectGuarantee } from '../helpers/guarantees';
import { SealedRunNotices } from '../helpers/sealed-run-notices';
import { stackIntegrator } from '../helpers/stack-integrator';
import { signWriteSync, TEST_POLICY, testLineageId, testWriter } from '../helpers/writer-factories';

// The sealer's index floor on the deployed stack (docs/sealing.md, "The index floor"): the real
// sealer and integrator services over the emulator's table, KMS log key and MAC key. The table
// writer's attacks are raw DynamoDB calls; each sealer after one is a cold start.
const setup = deployedStack();
const { stack, dynamodb, store } = setup;
const manifest = buildManifest({ env: { ARCH: 'arm64' }, structuralKeys: ['ARCH'], claimDependencyMap: {} });
const deployment = new DynamoDBDeploymentLogStore(dynamodb, stack.TableName);
const index = new DynamoDBIndexNodeStore(dynamodb, stack.TableName);
const SECOND_WRITER = testWriter('test-writer-2', 0x40);

/** A cold sealer that checks each run against the index, its notices into `notices`. */
const indexedSealer = (notices: SealedRunNotices) =>
  coldSealer(setup, { notifier: notices, index: { deployment, nodes: index, witness: null } });

const integrator = stackIntegrator(setup);

/** A write by the test writer (or `by`), accepted now. */
function writeOf(lineageId: string, residualId: string, policy: LineagePolicy, by = SECOND_WRITER, signed = false) {
  const now = Date.now();
  const request = acceptedWrite(lineageId, residualId, manifest, now, { policy });
  return signed ? signWriteSync(request, by, now) : request;
}

const seal = (sealer: SealerService, request: ResidualWriteRequest) => sealGroup(sealer, [request], Date.now());

/** The lineage partition's items now, and a function that puts them back with every record above `size` deleted. */
async function snapshotOf(lineageId: string) {
  const items =
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
  return async (size: number, later: number) => {
    for (let seq = size; seq < later; seq += 1) {
      await dynamodb.send(
        new DeleteItemCommand({
          TableName: stack.TableName,
          Key: { pk: { S: LineageKeys.lineage(lineageId) }, sk: { S: LineageKeys.record(seq) } },
        }),
      );
    }
    for (const item of items) await dynamodb.send(new PutItemCommand({ TableName: stack.TableName, Item: item }));
  };
}

/** The stored rejections of `residualId`, with whether each carries a statement. */
async function rejectionsOf(lineageId: string, residualId: string) {
  return (await store.listRejections(lineageId)).filter((r) => r.residualId === residualId);
}

const row = (target: string, attack: string, expected: string) =>
  ({ section: 'tampering', target, attack, reader: 'sealer', expected }) as const;

describe('the sealer against the deployment index on the deployed stack (docs/sealing.md, "The index floor")', () => {
  it('a whole-lineage rollback after integration: a cold sealer refuses the write, unsigned, and signs no second history', async (context: TestContext) => {
    const notices = new SealedRunNotices();
    const lineageId = testLineageId(`lin-floor-${randomUUID()}`);
    const sealer = indexedSealer(notices);
    for (const id of ['r-0', 'r-1'])
      expect(await seal(sealer, writeOf(lineageId, id, TEST_POLICY))).toEqual(['SEALED']);
    const restore = await snapshotOf(lineageId);
    for (const id of ['r-2', 'r-3'])
      expect(await seal(sealer, writeOf(lineageId, id, TEST_POLICY))).toEqual(['SEALED']);
    expect((await integrator.integrate(notices.take())).integrated).toEqual([lineageId]);
    await restore(2, 4);
    const headBefore = await store.logHead(lineageId);
    const observed = await seal(indexedSealer(notices), writeOf(lineageId, 'r-2b', TEST_POLICY));
    expectGuarantee(
      context,
      row(
        'lineage (whole)',
        'restore head, records and checkpoint from a snapshot taken before an integration; a cold sealer then receives one write (emulator)',
        'REJECTED LINEAGE_BEHIND_INDEX',
      ),
      observed.join(', '),
    );
    expect(await store.logHead(lineageId)).toEqual(headBefore);
    expect(notices.pending).toEqual([]);
    const [rejection] = await rejectionsOf(lineageId, 'r-2b');
    expect(rejection).toMatchObject({ reason: 'LINEAGE_BEHIND_INDEX', statement: null });
    expect(rejection?.issues[0]?.message).toMatch(/size 2 .*size 4/);
  });

  it('a rollback past a revocation: the revoked key is refused, not admitted on the restored policy', async (context: TestContext) => {
    const notices = new SealedRunNotices();
    const both: LineagePolicy = {
      ...TEST_POLICY,
      writers: [...TEST_POLICY.writers, { keyId: SECOND_WRITER.keyId, publicKey: SECOND_WRITER.publicKey }],
    };
    const lineageId = testLineageId(`lin-floor-rev-${randomUUID()}`, both);
    const sealer = indexedSealer(notices);
    expect(await seal(sealer, writeOf(lineageId, 'r-0', both))).toEqual(['SEALED']);
    expect(await seal(sealer, writeOf(lineageId, 'r-1', both, SECOND_WRITER, true))).toEqual(['SEALED']);
    const restore = await snapshotOf(lineageId);
    // The owner revokes the second key (say it was stolen); its next write is refused.
    expect(await seal(sealer, writeOf(lineageId, 'r-2', TEST_POLICY))).toEqual(['SEALED']);
    expect(await seal(sealer, writeOf(lineageId, 'r-3', both, SECOND_WRITER, true))).toEqual([
      'REJECTED WRITER_NOT_ADMITTED',
    ]);
    expect((await integrator.integrate(notices.take())).integrated).toEqual([lineageId]);
    await restore(2, 3);
    const observed = await seal(indexedSealer(notices), writeOf(lineageId, 'r-3b', both, SECOND_WRITER, true));
    expectGuarantee(
      context,
      row(
        'lineage (whole)',
        'restore the lineage from a snapshot taken before a writer-key revocation; a cold sealer then receives a write signed by the revoked key (emulator)',
        'REJECTED LINEAGE_BEHIND_INDEX',
      ),
      observed.join(', '),
    );
    expect((await store.logHead(lineageId))?.head.seq).toBe(1);
  });

  it('a deleted residual-id marker and a resend of an integrated write: the duplicate answer, sealed once', async (context: TestContext) => {
    const notices = new SealedRunNotices();
    const lineageId = testLineageId(`lin-floor-marker-${randomUUID()}`);
    const sealer = indexedSealer(notices);
    const first = writeOf(lineageId, 'r-0', TEST_POLICY);
    expect(await seal(sealer, first)).toEqual(['SEALED']);
    expect(await seal(sealer, writeOf(lineageId, 'r-1', TEST_POLICY))).toEqual(['SEALED']);
    expect((await integrator.integrate(notices.take())).integrated).toEqual([lineageId]);
    await dynamodb.send(
      new DeleteItemCommand({
        TableName: stack.TableName,
        Key: { pk: { S: LineageKeys.lineage(lineageId) }, sk: { S: LineageKeys.residualSk('r-0') } },
      }),
    );
    const observed = await seal(indexedSealer(notices), first);
    expectGuarantee(
      context,
      row(
        'residual-id marker',
        'delete the marker of an integrated residual id, then resend the same write to a cold sealer (emulator)',
        'DUPLICATE',
      ),
      observed.join(', '),
    );
    const other = acceptedWrite(lineageId, 'r-0', manifest, Date.now(), { payload: { other: 'content' } });
    expect(await seal(indexedSealer(notices), other)).toEqual(['REJECTED RESIDUAL_ID_REUSED']);
    expect((await store.logHead(lineageId))?.head.seq).toBe(1);
    expect(await store.readRecord(lineageId, 2)).toBeNull();
  });

  it('a deleted residual-id marker and a replay of a write sealed after the last integration: the duplicate answer, sealed once', async (context: TestContext) => {
    const notices = new SealedRunNotices();
    const lineageId = testLineageId(`lin-floor-past-${randomUUID()}`);
    const sealer = indexedSealer(notices);
    expect(await seal(sealer, writeOf(lineageId, 'r-0', TEST_POLICY))).toEqual(['SEALED']);
    expect((await integrator.integrate(notices.take())).integrated).toEqual([lineageId]);
    const replayed = writeOf(lineageId, 'r-1', TEST_POLICY);
    expect(await seal(sealer, replayed)).toEqual(['SEALED']);
    await dynamodb.send(
      new DeleteItemCommand({
        TableName: stack.TableName,
        Key: { pk: { S: LineageKeys.lineage(lineageId) }, sk: { S: LineageKeys.residualSk('r-1') } },
      }),
    );
    const observed = await seal(indexedSealer(notices), replayed);
    expectGuarantee(
      context,
      row(
        'residual-id marker',
        'delete the marker of a residual id sealed after the last integration, then replay the same signed write to a cold sealer (emulator)',
        'DUPLICATE',
      ),
      observed.join(', '),
    );
    const other = acceptedWrite(lineageId, 'r-1', manifest, Date.now(), { payload: { other: 'content' } });
    expect(await seal(indexedSealer(notices), other)).toEqual(['REJECTED RESIDUAL_ID_REUSED']);
    expect((await store.logHead(lineageId))?.head.seq).toBe(1);
    expect(await store.readRecord(lineageId, 2)).toBeNull();
  });
});
