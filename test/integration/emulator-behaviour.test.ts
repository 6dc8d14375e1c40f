import { randomUUID } from 'node:crypto';
import {
  DynamoDBClient,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateKeyCommand,
  DisableKeyCommand,
  GenerateMacCommand,
  KMSClient,
  ScheduleKeyDeletionCommand,
  VerifyMacCommand,
} from '@aws-sdk/client-kms';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { clientConfig } from '../../scripts/emulator/deploy';

// What emulators have got wrong (docs/infrastructure.md, "Emulator notes"), asserted against the
// deployed stack instead of assumed.
const stack = inject('stack');
const endpoint = inject('endpoint');
const sqs = new SQSClient({ ...clientConfig(endpoint), useQueueUrlAsEndpoint: false });
const kms = new KMSClient(clientConfig(endpoint));
const dynamodb = new DynamoDBClient(clientConfig(endpoint));

const attributesOf = async (queueUrl: string) =>
  (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }))).Attributes ?? {};

/**
 * Whether KMS accepts `mac` for `message`. AWS answers a wrong MAC with KMSInvalidMacException;
 * some emulators answer MacValid: false. Both mean "not valid"; any other error is rethrown.
 */
async function macVerifies(keyId: string, message: Uint8Array, mac: Uint8Array): Promise<boolean> {
  try {
    const { MacValid } = await kms.send(
      new VerifyMacCommand({ KeyId: keyId, MacAlgorithm: 'HMAC_SHA_256', Message: message, Mac: mac }),
    );
    return MacValid === true;
  } catch (error) {
    if ((error as Error).name === 'KMSInvalidMacException') return false;
    throw error;
  }
}

describe('SQS queues as deployed', () => {
  it('seal-requests is a FIFO queue without content-based deduplication', async () => {
    const attributes = await attributesOf(stack.SealRequestsQueueUrl);
    expect(attributes.FifoQueue).toBe('true');
    expect(attributes.ContentBasedDeduplication).toBe('false');
    expect((await attributesOf(stack.SealRequestsDlqUrl)).FifoQueue).toBe('true');
  });

  it('both work queues redrive to their own dead-letter queue', async () => {
    for (const [queue, dlq] of [
      [stack.ResidualWritesQueueUrl, stack.ResidualWritesDlqUrl],
      [stack.SealRequestsQueueUrl, stack.SealRequestsDlqUrl],
    ] as const) {
      const redrive = JSON.parse((await attributesOf(queue)).RedrivePolicy ?? 'null') as {
        deadLetterTargetArn: string;
        maxReceiveCount: number | string;
      } | null;
      expect(redrive?.deadLetterTargetArn).toBe((await attributesOf(dlq)).QueueArn);
      expect(Number(redrive?.maxReceiveCount)).toBe(5);
    }
  });

  it('every queue takes 1 MiB messages and work queues hide a message for six function timeouts', async () => {
    for (const url of [
      stack.ResidualWritesQueueUrl,
      stack.ResidualWritesDlqUrl,
      stack.SealRequestsQueueUrl,
      stack.SealRequestsDlqUrl,
      stack.TriageDlqUrl,
    ]) {
      expect((await attributesOf(url)).MaximumMessageSize).toBe('1048576');
    }
    expect((await attributesOf(stack.ResidualWritesQueueUrl)).VisibilityTimeout).toBe('180');
    expect((await attributesOf(stack.SealRequestsQueueUrl)).VisibilityTimeout).toBe('180');
  });
});

describe('KMS HMAC with the stack key', () => {
  const message = new TextEncoder().encode('{"lineageId":"l-1","monotonicSequenceNumber":0}');

  it('GenerateMac returns 32 raw bytes that VerifyMac accepts, and a flipped byte is refused', async () => {
    const { Mac } = await kms.send(
      new GenerateMacCommand({ KeyId: stack.MacKeyArn, MacAlgorithm: 'HMAC_SHA_256', Message: message }),
    );
    expect(Mac).toBeInstanceOf(Uint8Array);
    expect(Mac?.length).toBe(32);
    const mac = Mac as Uint8Array;
    expect(await macVerifies(stack.MacKeyArn, message, mac)).toBe(true);

    const flipped = Uint8Array.from(mac);
    flipped[7] = (flipped[7] as number) ^ 0x01;
    expect(await macVerifies(stack.MacKeyArn, message, flipped)).toBe(false);
  });

  it('the alias names the same key', async () => {
    const byAlias = await kms.send(
      new GenerateMacCommand({ KeyId: stack.MacKeyAlias, MacAlgorithm: 'HMAC_SHA_256', Message: message }),
    );
    expect(await macVerifies(stack.MacKeyArn, message, byAlias.Mac as Uint8Array)).toBe(true);
  });

  it('accepts a 4,096-byte message and refuses a 4,097-byte one', async () => {
    const mac = (bytes: number) =>
      kms.send(
        new GenerateMacCommand({
          KeyId: stack.MacKeyArn,
          MacAlgorithm: 'HMAC_SHA_256',
          Message: new Uint8Array(bytes),
        }),
      );
    expect((await mac(4096)).Mac?.length).toBe(32);
    await expect(mac(4097)).rejects.toThrow();
  });
});

describe('KMS with a disabled key (a separate test key, never the stack key)', () => {
  let keyId: string;
  beforeAll(async () => {
    const { KeyMetadata } = await kms.send(
      new CreateKeyCommand({ KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC', Description: 'reseal test key' }),
    );
    keyId = KeyMetadata?.KeyId as string;
  });
  afterAll(async () => {
    await kms.send(new ScheduleKeyDeletionCommand({ KeyId: keyId, PendingWindowInDays: 7 }));
  });

  it('VerifyMac fails with DisabledException after DisableKey', async () => {
    const message = new TextEncoder().encode('header');
    const { Mac } = await kms.send(
      new GenerateMacCommand({ KeyId: keyId, MacAlgorithm: 'HMAC_SHA_256', Message: message }),
    );
    await kms.send(new DisableKeyCommand({ KeyId: keyId }));
    await expect(
      kms.send(new VerifyMacCommand({ KeyId: keyId, MacAlgorithm: 'HMAC_SHA_256', Message: message, Mac })),
    ).rejects.toMatchObject({ name: 'DisabledException' });
  });
});

describe('DynamoDB TransactWriteItems on the stack table', () => {
  it('reports cancellation reasons by position, with the old item of the failed condition', async () => {
    const pk = `TEST#${randomUUID()}`;
    await dynamodb.send(
      new PutItemCommand({
        TableName: stack.TableName,
        Item: { pk: { S: pk }, sk: { S: 'HEAD' }, seq: { N: '3' } },
      }),
    );

    const transaction = dynamodb.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          {
            Put: {
              TableName: stack.TableName,
              Item: { pk: { S: pk }, sk: { S: 'REC#0000000004' } },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: stack.TableName,
              Key: { pk: { S: pk }, sk: { S: 'HEAD' } },
              UpdateExpression: 'SET seq = :next',
              ConditionExpression: 'seq = :expected',
              ExpressionAttributeValues: { ':next': { N: '4' }, ':expected': { N: '2' } },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
        ],
      }),
    );

    const error = await transaction.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TransactionCanceledException);
    const reasons = (error as TransactionCanceledException).CancellationReasons ?? [];
    expect(reasons).toHaveLength(2);
    expect(reasons[0]?.Code).toBe('None');
    expect(reasons[1]?.Code).toBe('ConditionalCheckFailed');
    expect(reasons[1]?.Item).toMatchObject({ pk: { S: pk }, sk: { S: 'HEAD' }, seq: { N: '3' } });
  });
});
