import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineageKeys } from '../../adapters/lineage-keys';
import { VISIBILITY_TO_TIMEOUT_RATIO } from '../../infra/constructs/event-source-visibility-timeout';
import { DEFAULT_GUARD_BATCHING_WINDOW_SECONDS, ResealStack } from '../../infra/reseal-stack';
import { InvalidInputError } from '../../shared/errors';
import type { Tenant } from '../../shared/tenancy/tenants';
import { synthWithNag } from '../helpers/cdk-nag-synth';
import { expectGuarantee, expectGuarantees } from '../helpers/guarantees';

// docs/infrastructure.md, "Tenants"; docs/authorship.md, "Tenancy": the `tenants` option, as synthesized.
const synthContext = { 'aws:cdk:bundling-stacks': [] };
const ACME_AGENT = 'arn:aws:iam::111111111111:role/agents/acme-agent';
const ACME_SIGNER = 'arn:aws:iam::111111111111:role/acme-signer';
const BETA_AGENT = 'arn:aws:iam::222222222222:user/beta-agent';
const ACME_READER = 'arn:aws:iam::111111111111:role/acme-auditor';
const TENANTS: Tenant[] = [
  { id: 'acme', senderPrincipals: [ACME_AGENT], signerPrincipals: [ACME_SIGNER], readerPrincipals: [ACME_READER] },
  { id: 'beta', senderPrincipals: [BETA_AGENT] },
];

type Resource = { Type: string; Properties?: Record<string, unknown> };
/** A resource's properties (empty when it has none). */
const props = (resource: Resource | undefined): Record<string, unknown> => resource?.Properties ?? {};
type Statement = {
  Sid?: string;
  Effect: string;
  Principal?: unknown;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
};
const actionsOf = (st: Statement) => (Array.isArray(st.Action) ? st.Action : [st.Action]);
const principalArns = (st: Statement): unknown[] => {
  const aws = (st.Principal as { AWS?: unknown } | undefined)?.AWS;
  return Array.isArray(aws) ? aws : [aws];
};

/** The JSON a `Fn::Join` builds, with each `Ref` as `ref:<id>` and each `Fn::GetAtt` as `<attribute>:<id>`. */
function joinedJson(value: unknown): unknown {
  const [, parts] = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  const text = parts
    .map((part) => {
      if (typeof part === 'string') return part;
      const ref = (part as { Ref?: string }).Ref;
      if (ref) return `ref:${ref}`;
      const [id, attribute] = (part as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'];
      return `${attribute}:${id}`;
    })
    .join('');
  return JSON.parse(text);
}

describe('ResealStack with tenants', () => {
  let resources: Record<string, Resource>;
  const byType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
  const tenantQueueId = (tenant: string) => {
    const id = Object.keys(resources).find(
      (key) => resources[key]?.Type === 'AWS::SQS::Queue' && key.startsWith(`TenantsTenant${tenant}Queue`),
    );
    if (!id) throw new Error(`no queue of tenant ${tenant}`);
    return id;
  };
  const queuePolicyOf = (queueId: string): Statement[] =>
    byType('AWS::SQS::QueuePolicy')
      .filter(([, r]) => JSON.stringify(r.Properties?.Queues) === JSON.stringify([{ Ref: queueId }]))
      .flatMap(([, r]) => (props(r).PolicyDocument as { Statement: Statement[] }).Statement);
  const functionOf = (service: string) => {
    const found = byType('AWS::Lambda::Function').find(
      ([, r]) =>
        (props(r).Environment as { Variables: Record<string, unknown> }).Variables.POWERTOOLS_SERVICE_NAME === service,
    );
    if (!found) throw new Error(`no function ${service}`);
    return found;
  };
  const envOf = (service: string) =>
    (props(functionOf(service)[1]).Environment as { Variables: Record<string, unknown> }).Variables;
  const roleOf = (service: string) =>
    (props(functionOf(service)[1]).Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const statementsOfRole = (roleId: string): Statement[] =>
    byType('AWS::IAM::Policy')
      .filter(([, r]) => ((r.Properties?.Roles ?? []) as { Ref: string }[]).some((ref) => ref.Ref === roleId))
      .flatMap(([, r]) => (props(r).PolicyDocument as { Statement: Statement[] }).Statement);
  const defaultQueueId = () => {
    const id = Object.keys(resources).find((key) => /^ResidualWritesQueue[0-9A-F]{8}$/.test(key));
    if (!id) throw new Error('no residual-writes queue');
    return id;
  };

  beforeAll(() => {
    const stack = new ResealStack(new App({ context: synthContext }), 'ResealStack', { tenants: TENANTS });
    resources = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
  });

  it("each tenant's queue policy allows sqs:SendMessage to its senders and denies every other principal but the remote MCP role", (context) => {
    const mcpRole = roleOf('reseal-mcp');
    for (const tenant of TENANTS) {
      const statements = queuePolicyOf(tenantQueueId(tenant.id));
      const allow = statements.find((st) => st.Sid === 'TheTenantMaySendWrites');
      expect(allow).toMatchObject({ Effect: 'Allow', Action: 'sqs:SendMessage' });
      expect(principalArns(allow as Statement)).toEqual(tenant.senderPrincipals);
      const deny = statements.find((st) => st.Sid === 'OnlyTheTenantMaySendWrites');
      expect(deny).toMatchObject({ Effect: 'Deny', Principal: { AWS: '*' }, Action: 'sqs:SendMessage' });
      const except = (deny as Statement).Condition?.ArnNotEquals?.['aws:PrincipalArn'];
      expect(except).toEqual([...tenant.senderPrincipals, { 'Fn::GetAtt': [mcpRole, 'Arn'] }]);
    }
    // The other tenant's principal is named by no exception of acme's deny: IAM refuses its send.
    const acmeDeny = queuePolicyOf(tenantQueueId('acme')).find((st) => st.Sid === 'OnlyTheTenantMaySendWrites');
    const exceptions = JSON.stringify(acmeDeny?.Condition);
    expectGuarantee(
      context,
      {
        section: 'posture',
        target: 'tenant queue',
        attack: "another tenant's principal sends a write",
        reader: 'synthesized template',
        expected: 'denied by the queue policy',
      },
      exceptions.includes(BETA_AGENT) ? 'allowed' : 'denied by the queue policy',
    );
  });

  it('docs/triage.md "Tenants": the bus policy lets each tenant\'s senders put RecallRequested only under its own source, denies that source to every other principal but the remote MCP role, and denies a recall under "reseal"', (context) => {
    const mcpRole = roleOf('reseal-mcp');
    const [[busId, bus] = ['', undefined]] = byType('AWS::Events::EventBus');
    const statements = (props(bus).Policy as { Statement: Statement[] }).Statement;
    const busArn = statements[0]?.Resource;
    // The policy names the bus by its name (the stack's): no reference to the bus's own attributes.
    expect(JSON.stringify(busArn)).toContain(':event-bus/ResealStack-events');
    expect(JSON.stringify(statements)).not.toContain(busId);
    for (const tenant of TENANTS) {
      const source = `reseal.tenant.${tenant.id}`;
      const allow = statements.find((st) => st.Sid === `TheTenantMayRecall-${tenant.id}`);
      expect(allow).toMatchObject({
        Effect: 'Allow',
        Action: 'events:PutEvents',
        Condition: { StringEquals: { 'events:source': source, 'events:detail-type': 'RecallRequested' } },
      });
      expect(principalArns(allow as Statement)).toEqual(tenant.senderPrincipals);
      const deny = statements.find((st) => st.Sid === `OnlyTheTenantRecallsAsItself-${tenant.id}`);
      expect(deny).toMatchObject({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'events:PutEvents',
        Condition: { StringEquals: { 'events:source': source } },
      });
      expect(deny?.Condition?.ArnNotEquals?.['aws:PrincipalArn']).toEqual([
        ...tenant.senderPrincipals,
        { 'Fn::GetAtt': [mcpRole, 'Arn'] },
      ]);
    }
    expect(statements.find((st) => st.Sid === 'RecallsNameTheirTenant')).toMatchObject({
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 'events:PutEvents',
      Condition: { StringEquals: { 'events:source': 'reseal', 'events:detail-type': 'RecallRequested' } },
    });
    // The functions' detail-types keep their publishers with tenants too (test/infra/reseal-stack.test.ts).
    expect(statements.map((st) => st.Sid).filter((sid) => sid?.startsWith('OnlyItsPublishersPut-'))).toEqual([
      'OnlyItsPublishersPut-ResidualSealed',
      'OnlyItsPublishersPut-ResidualRejected',
      'OnlyItsPublishersPut-TriageCompleted',
    ]);
    // beta's principal is named by no exception of acme's deny: IAM refuses its recall as acme.
    const acmeDeny = statements.find((st) => st.Sid === 'OnlyTheTenantRecallsAsItself-acme');
    expectGuarantee(
      context,
      {
        section: 'posture',
        target: 'event bus (tenants)',
        attack: "another tenant's principal puts a RecallRequested under a tenant's source",
        reader: 'synthesized template',
        expected: 'denied by the bus policy',
      },
      JSON.stringify(acmeDeny?.Condition).includes(BETA_AGENT) ? 'allowed' : 'denied by the bus policy',
    );
  });

  it('the triage rule routes each tenant\'s source (and "reseal", which triage refuses) and triage knows the tenant ids (TENANT_IDS)', () => {
    const [[, rule] = ['', undefined]] = byType('AWS::Events::Rule');
    expect(props(rule).EventPattern).toEqual({
      source: ['reseal', 'reseal.tenant.acme', 'reseal.tenant.beta'],
      'detail-type': ['RecallRequested'],
    });
    expect(JSON.parse(String(envOf('reseal-triage').TENANT_IDS))).toEqual(['acme', 'beta']);
  });

  it('docs/authorship.md "Tenancy" (reads): the table policy lets a tenant\'s readers read its partitions and the shared ones (dynamodb:LeadingKeys), and denies every principal of a tenant any other read or action', (context) => {
    const [[, table] = ['', undefined]] = byType('AWS::DynamoDB::Table');
    const statements = (props(table).ResourcePolicy as { PolicyDocument: { Statement: Statement[] } }).PolicyDocument
      .Statement;
    const sid = (name: string) => statements.find((st) => st.Sid === name) as Statement & { NotAction?: string[] };
    const reads = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'];
    const acmeKeys = [
      'LINEAGE#acme/*',
      'REJECTION#acme/*',
      'TRIAGE#acme/*',
      'MANIFEST#acme/*',
      'DEPLOYMENT#*',
      'INDEX#*',
    ];
    expect(sid('TheTenantReads-acme')).toMatchObject({
      Effect: 'Allow',
      Principal: { AWS: ACME_READER },
      Action: reads,
      Resource: '*',
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': acmeKeys } },
    });
    // beta names no reader: the stack grants it no read.
    expect(sid('TheTenantReads-beta')).toBeUndefined();
    expect(sid('TenantReadsOnlyItsPartitions-acme')).toMatchObject({
      Effect: 'Deny',
      Action: reads,
      Condition: { 'ForAnyValue:StringNotLike': { 'dynamodb:LeadingKeys': acmeKeys } },
    });
    expect(principalArns(sid('TenantReadsOnlyItsPartitions-acme')).sort()).toEqual(
      [ACME_AGENT, ACME_SIGNER, ACME_READER].sort(),
    );
    expect(sid('TenantOnlyReads-acme')).toMatchObject({ Effect: 'Deny', NotAction: reads, Resource: '*' });
    expect(sid('TenantReadsOnlyItsPartitions-beta')?.Condition).toEqual({
      'ForAnyValue:StringNotLike': {
        'dynamodb:LeadingKeys': acmeKeys.map((k) => k.replace('#acme/', '#beta/')),
      },
    });
    expect(principalArns(sid('TenantOnlyReads-beta'))).toEqual([BETA_AGENT]);
    // No pattern of acme's reaches a partition of beta's own: its lineage, nor its manifests,
    // keyed by lineage (adapters/lineage-keys.ts), so a digest alone reads nothing of beta's.
    const reaches = (key: string) =>
      acmeKeys.some((pattern) =>
        new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(key),
      );
    const betaManifest = LineageKeys.manifest('beta/agent-1.0123456789abcdef0123456789abcdef', 'ab'.repeat(32));
    expect(reaches(LineageKeys.manifest('acme/agent-1.0123456789abcdef0123456789abcdef', 'ab'.repeat(32)))).toBe(true);
    expectGuarantees(context, [
      {
        guarantee: {
          section: 'posture',
          target: 'lineage table (tenants)',
          attack: "a tenant's principal reads another tenant's lineage partition",
          reader: 'synthesized template',
          expected: 'denied by the table policy',
        },
        observed: reaches('LINEAGE#beta/agent-1') ? 'allowed' : 'denied by the table policy',
      },
      {
        guarantee: {
          section: 'posture',
          target: 'lineage table (tenants)',
          attack: "a tenant's principal reads another tenant's manifest by its digest",
          reader: 'synthesized template',
          expected: 'denied by the table policy',
        },
        observed:
          reaches(betaManifest) || reaches(LineageKeys.sharedManifest('ab'.repeat(32)))
            ? 'allowed'
            : 'denied by the table policy',
      },
    ]);
  });

  it('the guard consumes every tenant queue and maps each queue ARN to its tenant (TENANT_QUEUES)', () => {
    const guard = functionOf('reseal-guard')[0];
    const mappings = byType('AWS::Lambda::EventSourceMapping').filter(
      ([, r]) => JSON.stringify(r.Properties?.FunctionName) === JSON.stringify({ Ref: guard }),
    );
    const sources = mappings.map(([, r]) => JSON.stringify(r.Properties?.EventSourceArn));
    for (const tenant of TENANTS) {
      expect(sources).toContain(JSON.stringify({ 'Fn::GetAtt': [tenantQueueId(tenant.id), 'Arn'] }));
    }
    for (const [, r] of mappings) {
      expect(r.Properties?.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      // Each tenant queue gathers writes as the stack's own does (docs/infrastructure.md, "The guard's batching window").
      expect(r.Properties?.MaximumBatchingWindowInSeconds ?? 0).toBe(DEFAULT_GUARD_BATCHING_WINDOW_SECONDS);
    }
    // Each tenant queue's visibility timeout: six times the guard's timeout plus the window (AWS's advice).
    const guardTimeout = props(functionOf('reseal-guard')[1]).Timeout as number;
    for (const tenant of TENANTS) {
      expect(resources[tenantQueueId(tenant.id)]?.Properties?.VisibilityTimeout).toBe(
        VISIBILITY_TO_TIMEOUT_RATIO * guardTimeout + DEFAULT_GUARD_BATCHING_WINDOW_SECONDS,
      );
    }
    expect(joinedJson(envOf('reseal-guard').TENANT_QUEUES)).toEqual(
      TENANTS.map((tenant) => ({ queueArn: `Arn:${tenantQueueId(tenant.id)}`, tenantId: tenant.id })),
    );
  });

  it("the stack's own residual-writes queue denies every send, and the remote MCP role may send only to the tenant queues", (context) => {
    const deny = queuePolicyOf(defaultQueueId()).find((st) => st.Sid === 'NoWritesOutsideATenant');
    expect(deny).toMatchObject({ Effect: 'Deny', Principal: { AWS: '*' }, Action: 'sqs:SendMessage' });
    expect(deny?.Condition).toBeUndefined();
    const mcpSends = statementsOfRole(roleOf('reseal-mcp'))
      .filter((st) => actionsOf(st).includes('sqs:SendMessage'))
      .map((st) => JSON.stringify(st.Resource));
    expect(mcpSends.some((r) => r.includes(`"${defaultQueueId()}"`))).toBe(false);
    for (const tenant of TENANTS) expect(mcpSends.some((r) => r.includes(`"${tenantQueueId(tenant.id)}"`))).toBe(true);
    expectGuarantee(
      context,
      {
        section: 'posture',
        target: 'residual-writes (with tenants)',
        attack: 'any principal sends a write outside a tenant queue',
        reader: 'synthesized template',
        expected: 'denied by the queue policy',
      },
      deny?.Effect === 'Deny' && deny.Condition === undefined ? 'denied by the queue policy' : 'allowed',
    );
  });

  it('the remote MCP function knows each tenant with its senders and its queue URL (TENANTS)', () => {
    // Each tenant's callers are its senders; acme's signer is not a caller.
    expect(joinedJson(envOf('reseal-mcp').TENANTS)).toEqual(
      TENANTS.map((tenant) => ({
        id: tenant.id,
        senderPrincipals: tenant.senderPrincipals,
        queueUrl: `ref:${tenantQueueId(tenant.id)}`,
      })),
    );
  });

  it("each tenant's writer key is Ed25519 and its key policy lets only the tenant's signers sign; no role of the stack may", (context) => {
    const keys = byType('AWS::KMS::Key').filter(([id]) => id.startsWith('TenantsTenant'));
    expect(keys.length).toBe(TENANTS.length);
    const signersOf = new Map<string, unknown[]>();
    for (const [id, key] of keys) {
      expect(key.Properties).toMatchObject({ KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY' });
      const statements = (props(key).KeyPolicy as { Statement: Statement[] }).Statement;
      const signing = statements.filter((st) => actionsOf(st).some((a) => a === 'kms:Sign' || a === 'kms:*'));
      expect(signing.map((st) => st.Sid)).toEqual(['OnlyTheTenantSigns']);
      signersOf.set(id, principalArns(signing[0] as Statement));
      const admin = statements.find((st) => st.Sid === 'AccountAdministersButDoesNotSign') as Statement;
      expect(actionsOf(admin)).not.toContain('kms:Sign');
    }
    expect(signersOf.get(keys.find(([id]) => id.startsWith('TenantsTenantacme'))?.[0] ?? '')).toEqual([ACME_SIGNER]);
    expect(signersOf.get(keys.find(([id]) => id.startsWith('TenantsTenantbeta'))?.[0] ?? '')).toEqual([BETA_AGENT]);
    // No function role of the stack holds an identity grant on a writer key.
    const writerKeyIds = keys.map(([id]) => id);
    const grants = byType('AWS::IAM::Policy')
      .flatMap(([, r]) => (props(r).PolicyDocument as { Statement: Statement[] }).Statement)
      .filter((st) => writerKeyIds.some((id) => JSON.stringify(st.Resource).includes(`"${id}"`)));
    expectGuarantee(
      context,
      {
        section: 'posture',
        target: 'tenant writer key',
        attack: 'a principal other than the tenant signers signs with it',
        reader: 'synthesized template',
        expected: 'no grant',
      },
      grants.length === 0 ? 'no grant' : `${grants.length} grants`,
    );
    expect(grants).toEqual([]);
  });

  it('refuses a tenant list it cannot enforce: a principal in two tenants, an id that is not a tenant id, an account principal', () => {
    const synth = (tenants: unknown) => () =>
      new ResealStack(new App({ context: synthContext }), 'ResealStack', { tenants: tenants as Tenant[] });
    expect(synth([...TENANTS, { id: 'gamma', senderPrincipals: [ACME_AGENT] }])).toThrow(/sender of tenant acme too/);
    // The same role by name, on another path: an assumed-role caller could not be told apart.
    expect(
      synth([...TENANTS, { id: 'gamma', senderPrincipals: ['arn:aws:iam::111111111111:role/acme-agent'] }]),
    ).toThrow(InvalidInputError);
    expect(synth([{ id: 'Acme', senderPrincipals: [ACME_AGENT] }])).toThrow(/tenant id/);
    expect(synth([{ id: 'acme', senderPrincipals: ['arn:aws:iam::111111111111:root'] }])).toThrow(/role or user ARN/);
    expect(synth([...TENANTS, TENANTS[1]])).toThrow(/tenant beta twice/);
  });
});

describe('cdk-nag AwsSolutions checks with tenants', () => {
  let outdir: string;
  beforeAll(() => {
    outdir = mkdtempSync(join(tmpdir(), 'reseal-nag-tenants-'));
  });
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('report no unacknowledged finding', () => {
    const { failure, violations } = synthWithNag(synthContext, outdir, (app) => {
      new ResealStack(app, 'ResealStack', { tenants: TENANTS });
    });
    expect(violations).toEqual([]);
    expect(failure).toBeUndefined();
  });
});
