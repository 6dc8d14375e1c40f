import { randomUUID } from 'node:crypto';
import { CreateKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResealStack } from '../../infra/reseal-stack';
import { clientConfig, EMULATOR_ACCOUNT } from '../../scripts/emulator/deploy';
import { type Emulator, startEmulator } from '../../scripts/emulator/emulator';
import { createIamUser, type IamUser } from '../helpers/emulator-iam-user';
import { expectGuarantee } from '../helpers/guarantees';

// A second principal refused at the API (docs/authorship.md, "Tenancy", "On the emulator"):
// MiniStack started with AUTH=true checks signatures and evaluates IAM. The stack itself does not
// deploy there (every queue's TLS-only deny, and the CDK bootstrap bucket's, refuse each call over
// the emulator's plain HTTP, and the CDK cannot publish its assets), so this test takes the tenant
// queue's policy and the tenant writer key's policy from the synthesized template, puts them on a
// queue and a key of the emulator, and calls as each tenant's IAM user. MiniStack derives
// aws:SecureTransport from `X-Forwarded-Proto: https`, which the test's clients send (a TLS
// terminator's header), so the TLS-only deny does not hide the tenant rule.
const RUN = randomUUID().slice(0, 8);
let emulator: Emulator | undefined;
let endpoint = '';

/** A template value with `Ref`, `Fn::GetAtt` and `Fn::Join` replaced by what `refs` names (`<id>` / `<id>.<attribute>`). */
function resolved(value: unknown, refs: Record<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => resolved(v, refs));
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const lookup = (name: string) => {
    const found = refs[name];
    if (found === undefined) throw new Error(`no value for ${name}`);
    return found;
  };
  if (typeof object.Ref === 'string') return lookup(object.Ref);
  if (Array.isArray(object['Fn::GetAtt'])) return lookup((object['Fn::GetAtt'] as string[]).join('.'));
  if (Array.isArray(object['Fn::Join'])) {
    const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
    return parts.map((p) => resolved(p, refs)).join(separator);
  }
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, resolved(v, refs)]));
}

/** Marks a request as arrived over TLS, as a TLS terminator in front of MiniStack would (`X-Forwarded-Proto: https`). */
type Next = (args: { request: unknown }) => Promise<unknown>;
const overTls = (next: Next) => async (args: { request: unknown }) => {
  (args.request as { headers: Record<string, string> }).headers['x-forwarded-proto'] = 'https';
  return next(args);
};

/** `client` with {@link overTls} in its build step (each client types its stack by its own commands). */
function withTls<T extends { middlewareStack: { add: (...args: never[]) => void } }>(client: T): T {
  (client.middlewareStack.add as (m: unknown, o: unknown) => void)(overTls, { step: 'build', name: 'overTls' });
  return client;
}

/** An SQS client as `keys`, over "TLS" unless `tls` is false. */
function sqsAs(keys: IamUser['keys'], tls = true): SQSClient {
  const client = new SQSClient({ ...clientConfig(endpoint), credentials: keys, useQueueUrlAsEndpoint: false });
  return tls ? withTls(client) : client;
}

/** A KMS client as `keys`, over "TLS". */
function kmsAs(keys: IamUser['keys']): KMSClient {
  return withTls(new KMSClient({ ...clientConfig(endpoint), credentials: keys }));
}

/** `ok`, or the error's name (`AccessDenied`, …). */
async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'ok';
  } catch (error) {
    return (error as Error).name;
  }
}

let acme: IamUser;
let beta: IamUser;
/** A principal of no tenant, allowed `sqs:SendMessage` on every queue by its own policy. */
let nobody: IamUser;
let template: Record<string, { Type: string; Properties?: Record<string, unknown> }>;

beforeAll(async () => {
  emulator = await startEmulator({ auth: true });
  endpoint = emulator.endpoint;
  acme = await createIamUser(endpoint, `reseal-acme-${RUN}`, ['sqs:SendMessage', 'kms:Sign']);
  beta = await createIamUser(endpoint, `reseal-beta-${RUN}`, ['sqs:SendMessage', 'kms:Sign']);
  nobody = await createIamUser(endpoint, `reseal-nobody-${RUN}`, ['sqs:SendMessage']);
  const stack = new ResealStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'ResealStack', {
    tenants: [
      { id: 'acme', senderPrincipals: [acme.arn] },
      { id: 'beta', senderPrincipals: [beta.arn] },
    ],
  });
  template = Template.fromStack(stack).toJSON().Resources;
}, 300_000);
afterAll(async () => {
  await emulator?.stop();
}, 120_000);

/** The logical id of acme's `Type` resource whose id continues with `name` (`Queue`, `WriterKey`) in the template. */
const acmeResource = (type: string, name: string) => {
  const id = Object.keys(template).find(
    (key) => template[key]?.Type === type && key.startsWith(`TenantsTenantacme${name}`),
  );
  if (!id) throw new Error(`no ${type} ${name} of tenant acme`);
  return id;
};

describe('tenancy under AUTH=true: IAM refuses a second principal at the API', () => {
  it("only acme's IAM user may send to acme's queue: beta's user, allowed sqs:SendMessage on every queue by its own policy, is AccessDenied", async (context) => {
    const root = new SQSClient({ ...clientConfig(endpoint), useQueueUrlAsEndpoint: false });
    const { QueueUrl } = await root.send(new CreateQueueCommand({ QueueName: `acme-writes-${RUN}` }));
    const { Attributes } = await root.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
    const queueId = acmeResource('AWS::SQS::Queue', 'Queue');
    const mcpRole = Object.keys(template).find((key) => /^RemoteMcpHandlerRole[0-9A-F]{8}$/.test(key)) ?? '';
    const policy = Object.values(template).find(
      (r) =>
        r.Type === 'AWS::SQS::QueuePolicy' &&
        JSON.stringify(r.Properties?.Queues) === JSON.stringify([{ Ref: queueId }]),
    )?.Properties?.PolicyDocument;
    if (policy === undefined) throw new Error(`no queue policy of ${queueId}`);
    const document = resolved(policy, {
      [`${queueId}.Arn`]: Attributes?.QueueArn ?? '',
      [`${mcpRole}.Arn`]: `arn:aws:iam::${EMULATOR_ACCOUNT}:role/reseal-mcp`,
    });
    await root.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: { Policy: JSON.stringify(document) } }));

    const send =
      (user: IamUser, overTls = true) =>
      () =>
        sqsAs(user.keys, overTls).send(new SendMessageCommand({ QueueUrl, MessageBody: '{}' }));
    const seen = { acme: await outcome(send(acme)), beta: await outcome(send(beta)) };
    expectGuarantee(
      context,
      {
        section: 'posture',
        target: 'tenant queue (emulator, AUTH=true)',
        attack: "another tenant's IAM user sends a write, its own policy allowing it",
        reader: 'SQS SendMessage',
        expected: 'acme ok, beta AccessDenied',
      },
      `acme ${seen.acme}, beta ${seen.beta}`,
    );
    expect(seen).toEqual({ acme: 'ok', beta: 'AccessDenied' });
    // Without TLS the queue's TLS-only deny refuses even acme: why the stack cannot run on the plain-HTTP emulator under AUTH=true.
    expect(await outcome(send(acme, false))).toBe('AccessDenied');
  }, 300_000);

  it('docs/authorship.md, "Refused at the caller": with tenants, the residual-writes queue refuses every sender, a principal of no tenant included, at the API', async (context) => {
    const root = new SQSClient({ ...clientConfig(endpoint), useQueueUrlAsEndpoint: false });
    const { QueueUrl } = await root.send(new CreateQueueCommand({ QueueName: `residual-writes-${RUN}` }));
    const { Attributes } = await root.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
    const statementsOf = (r: { Properties?: Record<string, unknown> }) =>
      ((r.Properties?.PolicyDocument as { Statement?: { Sid?: string }[] } | undefined)?.Statement ?? []).map(
        (statement) => statement.Sid,
      );
    const queuePolicy = Object.values(template).find(
      (r) => r.Type === 'AWS::SQS::QueuePolicy' && statementsOf(r).includes('NoWritesOutsideATenant'),
    );
    const queueId = (queuePolicy?.Properties?.Queues as { Ref: string }[] | undefined)?.[0]?.Ref;
    if (queuePolicy === undefined || queueId === undefined) throw new Error('no residual-writes queue policy');
    const document = resolved(queuePolicy.Properties?.PolicyDocument, {
      [`${queueId}.Arn`]: Attributes?.QueueArn ?? '',
    });
    await root.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: { Policy: JSON.stringify(document) } }));
    const send = (user: IamUser) => () =>
      sqsAs(user.keys).send(new SendMessageCommand({ QueueUrl, MessageBody: '{}' }));
    const seen = { nobody: await outcome(send(nobody)), acme: await outcome(send(acme)) };
    expectGuarantee(
      context,
      {
        section: 'posture',
        target: 'residual-writes (with tenants; emulator, AUTH=true)',
        attack: "a principal of no tenant, or a tenant's, sends a write to residual-writes, its own policy allowing it",
        reader: 'SQS SendMessage',
        expected: 'nobody AccessDenied, acme AccessDenied',
      },
      `nobody ${seen.nobody}, acme ${seen.acme}`,
    );
    // The same user sends to a queue with no policy of its own: the refusal above is the stack's policy.
    const { QueueUrl: open } = await root.send(new CreateQueueCommand({ QueueName: `open-${RUN}` }));
    expect(
      await outcome(() => sqsAs(nobody.keys).send(new SendMessageCommand({ QueueUrl: open, MessageBody: '{}' }))),
    ).toBe('ok');
  }, 300_000);

  it("only acme's signers may sign with acme's writer key: beta's user, allowed kms:Sign by its own policy, is AccessDenied", async (context) => {
    const keyId = acmeResource('AWS::KMS::Key', 'WriterKey');
    const policy = resolved(template[keyId]?.Properties?.KeyPolicy, {
      'AWS::Partition': 'aws',
      'AWS::AccountId': EMULATOR_ACCOUNT,
    });
    const root = new KMSClient(clientConfig(endpoint));
    const { KeyMetadata } = await root.send(
      new CreateKeyCommand({
        KeySpec: 'ECC_NIST_EDWARDS25519',
        KeyUsage: 'SIGN_VERIFY',
        Policy: JSON.stringify(policy),
        BypassPolicyLockoutSafetyCheck: true,
      }),
    );
    const sign = (user: IamUser) => () =>
      kmsAs(user.keys).send(
        new SignCommand({
          KeyId: KeyMetadata?.Arn,
          Message: new Uint8Array(32),
          MessageType: 'RAW',
          SigningAlgorithm: 'ED25519_SHA_512',
        }),
      );
    const seen = { acme: await outcome(sign(acme)), beta: await outcome(sign(beta)) };
    expectGuarantee(
      context,
      {
        section: 'posture',
        target: 'tenant writer key (emulator, AUTH=true)',
        attack: "another tenant's IAM user signs with it, its own policy allowing kms:Sign",
        reader: 'KMS Sign',
        expected: 'acme ok, beta AccessDeniedException',
      },
      `acme ${seen.acme}, beta ${seen.beta}`,
    );
    expect(seen).toEqual({ acme: 'ok', beta: 'AccessDeniedException' });
  }, 300_000);
});
