import { type DynamoDBClient, TransactWriteItemsCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { HexDigest } from '../shared/canonical/digest';
import type { IntegrationEvidence } from '../shared/integrator/integration-evidence';
import { lastLeafOf } from '../shared/log/last-leaf';
import type { NodeRef } from '../shared/log/node-ref';
import type { DeploymentLogReads } from '../shared/ports/deployment-log-reads';
import type {
  DeploymentLogStore,
  StoredDeploymentHead,
  StoredDeploymentLeaf,
} from '../shared/ports/deployment-log-store';
import { batchGetItems } from './batch-get-items';
import { deploymentLeafItem, leafIndexRootOf, leafNodeOf } from './deployment-leaf-item';
import { type Item, itemOf } from './item';
import { LineageKeys } from './lineage-keys';
import { LineageTable } from './lineage-table';
import { readJson, readNumber, readString } from './read-attribute';

const HEAD_SK = 'HEAD';

/**
 * {@link DeploymentLogStore} in the lineage table (docs/deployment-log.md, "Storage"): the head
 * `DEPLOYMENT#log` / `HEAD`, one item per leaf `DEPLOYMENT#log` / `LEAF#<16 digits>` carrying the
 * tree nodes completed at that leaf (node (L, j) lives with leaf `(j + 1) · 2^L − 1`, as lineage
 * records carry theirs), and evidence under `DEPLOYMENT#evidence`. The append is one
 * `TransactWriteItems`: the head conditional on the size and checkpoint read, the leaf on its
 * absence. Everything read is a claim the integrator authenticates.
 */
export class DynamoDBDeploymentLogStore implements DeploymentLogStore, DeploymentLogReads {
  readonly #table: LineageTable;

  constructor(client: DynamoDBClient, tableName: string) {
    this.#table = new LineageTable(client, tableName);
  }

  async readHead(): Promise<StoredDeploymentHead | null> {
    const item = await this.#table.get(LineageKeys.deploymentLog, HEAD_SK);
    return item ? deploymentHeadOf(item) : null;
  }

  async peekHead(): Promise<StoredDeploymentHead | null> {
    const item = await this.#table.get(LineageKeys.deploymentLog, HEAD_SK, { consistent: false });
    return item ? deploymentHeadOf(item) : null;
  }

  async readLeafIndexRoot(index: number): Promise<HexDigest | null> {
    if (!Number.isSafeInteger(index) || index < 0) return null;
    // A leaf is put once with the head that grows over it, and its index root is checked against
    // the log's tree: eventually consistent first, strongly again before answering absent.
    const item = await this.#table.getWritten(LineageKeys.deploymentLog, LineageKeys.deploymentLeaf(index));
    return item ? leafIndexRootOf(item) : null;
  }

  async append(
    expected: StoredDeploymentHead | null,
    next: StoredDeploymentHead,
    leaf: StoredDeploymentLeaf,
  ): Promise<boolean> {
    const { client, tableName } = this.#table;
    const condition =
      expected === null
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : {
            ConditionExpression: '#size = :size AND checkpoint = :checkpoint',
            ExpressionAttributeNames: { '#size': 'size' },
            ExpressionAttributeValues: itemOf({ ':size': expected.size, ':checkpoint': expected.checkpoint }),
          };
    try {
      await client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: tableName, Item: deploymentHeadItem(next, Date.now()), ...condition } },
            {
              Put: {
                TableName: tableName,
                Item: deploymentLeafItem(leaf),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error)?.name === 'TransactionCanceledException') return false;
      throw error;
    }
  }

  async publish(size: number, checkpoint: string, published: string): Promise<boolean> {
    try {
      await this.#table.client.send(
        new UpdateItemCommand({
          TableName: this.#table.tableName,
          Key: itemOf({ pk: LineageKeys.deploymentLog, sk: HEAD_SK }),
          UpdateExpression: 'SET published = :published',
          ConditionExpression: '#size = :size AND checkpoint = :checkpoint',
          ExpressionAttributeNames: { '#size': 'size' },
          ExpressionAttributeValues: itemOf({ ':size': size, ':checkpoint': checkpoint, ':published': published }),
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error)?.name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }

  async readNodes(refs: readonly NodeRef[]): Promise<(HexDigest | null)[]> {
    const { client, tableName } = this.#table;
    const leaves = [...new Set(refs.map(lastLeafOf))].filter((i) => Number.isSafeInteger(i));
    const keys = leaves.map((index) =>
      itemOf({ pk: LineageKeys.deploymentLog, sk: LineageKeys.deploymentLeaf(index) }),
    );
    const leafItems = new Map<number, Item>();
    const read = async (wanted: readonly Item[], consistentRead: boolean) => {
      for (const item of await batchGetItems(client, tableName, wanted, { consistentRead })) {
        const index = Number(/^LEAF#(\d{16})$/.exec(readString(item, 'sk') ?? '')?.[1]);
        if (Number.isSafeInteger(index)) leafItems.set(index, item);
      }
    };
    // Leaf items are put once and their nodes hashed into the checkpoint the reader verifies: an
    // eventually consistent copy (half the read units) is the item or nothing, and a leaf it
    // misses is read again strongly, so no node is taken as absent from a stale copy.
    await read(keys, false);
    const missed = leaves.flatMap((index, i) => (leafItems.has(index) ? [] : [keys[i] as Item]));
    if (missed.length > 0) await read(missed, true);
    return refs.map((ref) => {
      const item = leafItems.get(lastLeafOf(ref));
      return item ? leafNodeOf(item, ref.level) : null;
    });
  }

  async recordEvidence(evidence: IntegrationEvidence, atMs: number): Promise<void> {
    await this.#table.putIfAbsent(
      itemOf({
        pk: LineageKeys.deploymentEvidence,
        sk: `${new Date(atMs).toISOString()}#${evidence.lineageId}#${evidence.kind}`,
        lineageId: evidence.lineageId,
        kind: evidence.kind,
        evidence: JSON.stringify(evidence),
        atMs,
      }),
    );
  }
}

/** The deployment head item `DEPLOYMENT#log` / `HEAD` (docs/deployment-log.md, "Storage"); `updatedAtMs` is ms since the Unix epoch. */
export function deploymentHeadItem(head: StoredDeploymentHead, updatedAtMs: number): Item {
  return itemOf({
    pk: LineageKeys.deploymentLog,
    sk: HEAD_SK,
    size: head.size,
    checkpoint: head.checkpoint,
    frontier: JSON.stringify(head.frontier),
    indexRoot: head.indexRoot,
    published: head.published ?? undefined,
    reAnchor: head.reAnchor ?? undefined,
    reAnchorChain: head.reAnchorChain?.length ? JSON.stringify(head.reAnchorChain) : undefined,
    updatedAtMs,
  });
}

/** A deployment head item as a claim: a missing or mistyped field reads as `-1` / `''` / `[]` / `null`, never coerced. */
export function deploymentHeadOf(item: Item): StoredDeploymentHead {
  const chain = readJson<unknown>(item, 'reAnchorChain', null);
  // A frontier that is not a JSON list of strings (`null`, an object with a `length`) reads as
  // none: every reader then takes the leaf from the log's nodes, as with a frontier that does not
  // verify, and none throws on the table writer's text.
  const frontier = readJson<unknown>(item, 'frontier', []);
  return {
    size: readNumber(item, 'size') ?? -1,
    checkpoint: readString(item, 'checkpoint') ?? '',
    frontier: Array.isArray(frontier) && frontier.every((h) => typeof h === 'string') ? frontier : [],
    indexRoot: readString(item, 'indexRoot') ?? '',
    published: readString(item, 'published') ?? null,
    reAnchor: readString(item, 'reAnchor') ?? null,
    // Each entry is checked by its reader (`verifyReAnchorChain`); only the list's shape is read here.
    ...(Array.isArray(chain) ? { reAnchorChain: chain as string[] } : {}),
  };
}
