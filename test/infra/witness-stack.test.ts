import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { RESEAL_RUNTIME } from '../../infra/constructs/reseal-function';
import { ResealStack } from '../../infra/reseal-stack';
import { WITNESS_TABLE_ACTIONS, WitnessStack, witnessNameOf } from '../../infra/witness-stack';
import { formatVerifierKey } from '../../shared/log/note-key';
import { expectGuarantee } from '../helpers/guarantees';
import { environmentReadBy } from '../helpers/handler-environment';
import { testNoteVerifierKey } from '../helpers/log-factories';

// Bundling is skipped (`aws:cdk:bundling-stacks: []`): the template is what is tested here.
const synthContext = { 'aws:cdk:bundling-stacks': [] };

type Resource = { Type: string; Properties?: Record<string, unknown> };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Principal?: unknown };

/** A resource's properties (empty when it has none). */
const propsOf = (resource: Resource | undefined): Record<string, unknown> => resource?.Properties ?? {};
const actionsOf = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const refersTo = (value: unknown, logicalId: string) => JSON.stringify(value ?? null).includes(`"${logicalId}"`);

describe('ResealWitnessStack template', () => {
  let resources: Record<string, Resource>;
  let template: Template;
  const idOf = (type: string, pattern = /./) => {
    const found = Object.keys(resources).filter((id) => resources[id]?.Type === type && pattern.test(id));
    if (found.length !== 1) throw new Error(`expected one ${type} ${pattern}, found ${found.join(', ')}`);
    return found[0] as string;
  };
  /** Every identity-policy statement in the template, with the roles it is attached to. */
  const statements = () =>
    Object.values(resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .flatMap((r) =>
        ((propsOf(r).PolicyDocument as { Statement: Statement[] }).Statement ?? []).map((s) => ({
          roles: JSON.stringify(r.Properties?.Roles),
          statement: s,
        })),
      );

  beforeAll(async () => {
    const logKeys = formatVerifierKey(await testNoteVerifierKey());
    const stack = new WitnessStack(new App({ context: synthContext }), 'ResealWitnessStack', { logKeys });
    template = Template.fromStack(stack);
    resources = template.toJSON().Resources as Record<string, Resource>;
  });

  it('the state table is keyed by origin, with point-in-time recovery', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'origin', KeyType: 'HASH' }],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('the witness function gets every variable its handler reads, and a public function URL', async () => {
    const witness = idOf('AWS::Lambda::Function', /^Witness/);
    const env = (propsOf(resources[witness]).Environment as { Variables: Record<string, unknown> }).Variables;
    for (const name of environmentReadBy('functions/witness/handler.ts')) expect(env).toHaveProperty(name);
    expect(env.WITNESS_NAME).toBe(witnessNameOf('ResealWitnessStack'));
    expect(env.LOG_KEYS).toBe(formatVerifierKey(await testNoteVerifierKey()));
    expect(resources[witness]?.Properties?.Runtime).toBe(RESEAL_RUNTIME.name);
    template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE', TargetFunctionArn: Match.anyValue() });
  });

  it('only the witness role touches the table, with GetItem and PutItem only', (context) => {
    const table = idOf('AWS::DynamoDB::Table');
    const witnessRole = idOf('AWS::IAM::Role', /^WitnessRole/);
    const onTable = statements().filter(({ statement }) => refersTo(statement.Resource, table));
    const observed = onTable.map(
      ({ roles, statement }) =>
        `${actionsOf(statement).join('+')} by ${roles.includes(witnessRole) ? 'witness' : roles}`,
    );
    expectGuarantee(
      context,
      {
        section: 'posture',
        target: 'witness table',
        attack: 'who may read or write it',
        reader: 'synthesized template',
        expected: `${WITNESS_TABLE_ACTIONS.join('+')} by witness`,
      },
      observed.join(', ') || 'none',
    );
    expect(
      statements().some(
        ({ statement }) => statement.Resource === '*' && actionsOf(statement).some((a) => a.startsWith('dynamodb:')),
      ),
    ).toBe(false);
  });

  it('only the witness role may sign with its key: not by IAM grant, not through the key policy', (context) => {
    const key = idOf('AWS::KMS::Key');
    const witnessRole = idOf('AWS::IAM::Role', /^WitnessRole/);
    const signers = statements()
      .filter(
        ({ statement }) =>
          refersTo(statement.Resource, key) && actionsOf(statement).some((a) => a === 'kms:Sign' || a === 'kms:*'),
      )
      .map(({ roles }) => (roles.includes(witnessRole) ? 'witness' : roles));
    const keyPolicy = (propsOf(resources[key]).KeyPolicy as { Statement: Statement[] }).Statement;
    const policySigners = keyPolicy
      .filter((s) => actionsOf(s).some((a) => a === 'kms:Sign' || a === 'kms:*' || a === 'kms:Sign*'))
      .map((s) => (refersTo(s.Principal, witnessRole) ? 'witness' : JSON.stringify(s.Principal)));
    expectGuarantee(
      context,
      {
        section: 'posture',
        target: 'witness key',
        attack: 'who holds kms:Sign (IAM and key policy)',
        reader: 'synthesized template',
        expected: 'witness, witness',
      },
      [...signers, ...policySigners].join(', '),
    );
  });

  it('outputs the submission URL, the cosigner vkey and name, the key and the table', () => {
    const outputs = Object.keys(template.toJSON().Outputs ?? {});
    for (const name of ['WitnessUrl', 'WitnessVkey', 'WitnessName', 'WitnessKeyArn', 'WitnessTableName']) {
      expect(outputs).toContain(name);
    }
  });

  it('refuses to synthesize without valid log keys', () => {
    expect(() => new WitnessStack(new App({ context: synthContext }), 'W', { logKeys: 'not-a-vkey' })).toThrow(
      /log keys/,
    );
  });
});

describe('ResealStack: nothing in it reaches the witness', () => {
  it('no ResealStack role holds a DynamoDB or KMS action on every resource', () => {
    const stack = new ResealStack(new App({ context: synthContext }), 'ResealStack');
    const policies = Object.values(Template.fromStack(stack).toJSON().Resources as Record<string, Resource>).filter(
      (r) => r.Type === 'AWS::IAM::Policy',
    );
    const wide = policies
      .flatMap((r) => (propsOf(r).PolicyDocument as { Statement: Statement[] }).Statement)
      .filter((s) => s.Resource === '*' && actionsOf(s).some((a) => /^(dynamodb|kms):/.test(a)));
    expect(wide).toEqual([]);
  });
});
