import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake endpoint answers: a stack (or none) and the HMAC keys KMS holds. */
export interface FakeAwsOptions {
  /** Stack name → `MacKeyArn` output; a stack not listed does not exist. */
  readonly stacks: Record<string, string>;
  /** KMS key id → key bytes (`VerifyMac` computes HMAC-SHA256 with them). */
  readonly keys: Record<string, Uint8Array>;
  /** KMS key id → raw Ed25519 public key (`GetPublicKey` answers it as SPKI DER). */
  readonly publicKeys?: Record<string, Uint8Array>;
}

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410), before the 32 raw key bytes. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** A running fake endpoint: its URL (for `AWS_ENDPOINT_URL`) and how to stop it. */
export interface FakeAws {
  readonly url: string;
  readonly close: () => Promise<void>;
}

/**
 * A local HTTP endpoint that answers the calls `reseal verify --export` and `reseal pin` make: CloudFormation
 * `DescribeStacks` (query protocol, XML), KMS `VerifyMac` and `GetPublicKey` (JSON). Enough to test key pinning
 * in-process, without an emulator.
 */
export async function startFakeAws(options: FakeAwsOptions): Promise<FakeAws> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      const target = req.headers['x-amz-target'];
      if (target === 'TrentService.GetPublicKey') {
        const input = JSON.parse(body) as { KeyId: string };
        const key = options.publicKeys?.[input.KeyId];
        res.setHeader('content-type', 'application/x-amz-json-1.1');
        if (!key) {
          res.statusCode = 400;
          res.end(JSON.stringify({ __type: 'NotFoundException', message: `Key '${input.KeyId}' does not exist` }));
          return;
        }
        res.end(
          JSON.stringify({
            KeyId: input.KeyId,
            KeySpec: 'ECC_NIST_EDWARDS25519',
            KeyUsage: 'SIGN_VERIFY',
            SigningAlgorithms: ['ED25519_SHA_512'],
            PublicKey: Buffer.concat([ED25519_SPKI_PREFIX, key]).toString('base64'),
          }),
        );
        return;
      }
      if (target === 'TrentService.VerifyMac') {
        const input = JSON.parse(body) as { KeyId: string; Message: string; Mac: string; MacAlgorithm: string };
        const key = options.keys[input.KeyId];
        res.setHeader('content-type', 'application/x-amz-json-1.1');
        if (!key) {
          res.statusCode = 400;
          res.end(JSON.stringify({ __type: 'NotFoundException', message: `Key '${input.KeyId}' does not exist` }));
          return;
        }
        const expected = createHmac('sha256', key).update(Buffer.from(input.Message, 'base64')).digest();
        const given = Buffer.from(input.Mac, 'base64');
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
          res.statusCode = 400;
          res.end(JSON.stringify({ __type: 'KMSInvalidMacException', message: 'invalid MAC' }));
          return;
        }
        res.end(JSON.stringify({ KeyId: input.KeyId, MacAlgorithm: input.MacAlgorithm, MacValid: true }));
        return;
      }
      const params = new URLSearchParams(body);
      res.setHeader('content-type', 'text/xml');
      const stackName = params.get('StackName') ?? '';
      const macKeyArn = params.get('Action') === 'DescribeStacks' ? options.stacks[stackName] : undefined;
      if (macKeyArn === undefined) {
        res.statusCode = 400;
        res.end(
          `<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type><Code>ValidationError</Code><Message>Stack with id ${stackName} does not exist</Message></Error><RequestId>fake</RequestId></ErrorResponse>`,
        );
        return;
      }
      const outputs = {
        TableName: 't',
        ResidualWritesQueueUrl: 'http://q',
        EventBusName: 'b',
        MacKeyArn: macKeyArn,
        LogKeyArn: 'log-key',
        GuardKeyArn: 'guard-key',
        SealerKeyArn: 'sealer-key',
        LogName: 'reseal/ResealStack',
      };
      const members = Object.entries(outputs)
        .map(([k, v]) => `<member><OutputKey>${k}</OutputKey><OutputValue>${v}</OutputValue></member>`)
        .join('');
      res.end(
        `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member><StackName>${stackName}</StackName><StackStatus>CREATE_COMPLETE</StackStatus><CreationTime>2026-01-01T00:00:00Z</CreationTime><Outputs>${members}</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>fake</RequestId></ResponseMetadata></DescribeStacksResponse>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
