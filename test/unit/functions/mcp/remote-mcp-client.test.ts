import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { KMSClient } from '@aws-sdk/client-kms';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { remoteMcpClient } from '../../../../functions/mcp/remote-mcp-client';
import { TEST_GUARD_KEY, TEST_LOG_KEY, TEST_LOG_NAME, TEST_SEALER_KEY } from '../../../helpers/pipeline-keys';

const OUTPUTS = {
  tableName: 'reseal-test',
  residualWritesQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/residual-writes',
  eventBusName: 'reseal-test',
  macKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/mac',
  logKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/log',
  guardKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/guard',
  sealerKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/sealer',
  logName: TEST_LOG_NAME,
};

/** A DynamoDB client over an empty table: every read finds nothing; the keys read are recorded. */
function emptyTable() {
  const reads: string[] = [];
  const dynamodb = {
    send: async (command: { input: { Key?: Record<string, { S?: string }>; KeyConditionExpression?: string } }) => {
      reads.push(JSON.stringify(command.input.Key ?? command.input.KeyConditionExpression ?? null));
      return { Items: [], Count: 0 };
    },
  } as unknown as DynamoDBClient;
  return { dynamodb, reads };
}

const unused = {} as unknown;

// docs/mcp.md, "Remote MCP"; docs/verifiable-log.md, "Verifying a whole lineage": a head that carries
// no signed lineage checkpoint (the default) is tied to the tree head the index holds, so the
// remote server's client must read the deployment log and the index.
describe('remoteMcpClient (docs/mcp.md, "Remote MCP")', () => {
  it('reads the deployment log, so a whole-lineage walk has a tree head to tie to (the index), never "reads no deployment log"', async () => {
    const { dynamodb, reads } = emptyTable();
    const client = remoteMcpClient(
      OUTPUTS,
      {
        dynamodb,
        kms: unused as KMSClient,
        sqs: unused as SQSClient,
        eventBridge: unused as EventBridgeClient,
        logKey: TEST_LOG_KEY,
        guardKey: TEST_GUARD_KEY,
        sealerKey: TEST_SEALER_KEY,
        policy: null,
      },
      null,
    );
    const treeHead = await client.readLineageTreeHead('acme/agent-7');
    expect(treeHead.kind).not.toBe('UNAVAILABLE');
    expect(treeHead).toMatchObject({ kind: 'UNVOUCHED' });
    expect(reads.some((key) => key.includes('DEPLOYMENT'))).toBe(true);
  });
});
