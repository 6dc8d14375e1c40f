import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import { lineageOfTenant, parseTenants, tenantOfCaller } from '../../../../shared/tenancy/tenants';

// docs/authorship.md, "Tenancy"; docs/mcp.md, "Tenants".
const TENANTS = parseTenants([
  { id: 'acme', senderPrincipals: ['arn:aws:iam::111111111111:role/agents/acme-agent'] },
  { id: 'beta', senderPrincipals: ['arn:aws:iam::111111111111:user/team/beta-agent'] },
  { id: 'gov', senderPrincipals: ['arn:aws-us-gov:iam::111111111111:role/gov-agent'] },
]);

describe('tenants', () => {
  it("a caller is the tenant's when a sender names its IAM user, or the role of its assumed-role session (path dropped)", () => {
    const of = (arn: string) => tenantOfCaller(TENANTS, arn)?.id ?? null;
    expect(of('arn:aws:sts::111111111111:assumed-role/acme-agent/session-1')).toBe('acme');
    expect(of('arn:aws:iam::111111111111:user/team/beta-agent')).toBe('beta');
    expect(of('arn:aws-us-gov:sts::111111111111:assumed-role/gov-agent/s')).toBe('gov');
    // Not the same principal: another account, another partition, another name, another path of a user.
    expect(of('arn:aws:sts::222222222222:assumed-role/acme-agent/session-1')).toBeNull();
    expect(of('arn:aws:sts::111111111111:assumed-role/gov-agent/s')).toBeNull();
    expect(of('arn:aws:sts::111111111111:assumed-role/acme-agent-2/s')).toBeNull();
    expect(of('arn:aws:iam::111111111111:user/beta-agent')).toBeNull();
    // A role is never called as such (callers are its sessions); the root and federated users are no one's.
    expect(of('arn:aws:iam::111111111111:role/agents/acme-agent')).toBeNull();
    expect(of('arn:aws:iam::111111111111:root')).toBeNull();
    expect(of('arn:aws:sts::111111111111:federated-user/acme-agent')).toBeNull();
  });

  it('a lineage is a tenant’s when its id begins <tenant>/, nothing less', () => {
    expect(lineageOfTenant('acme/agent-7.0123456789abcdef0123456789abcdef', 'acme')).toBe(true);
    expect(lineageOfTenant('acme-evil/agent-7.0123', 'acme')).toBe(false);
    expect(lineageOfTenant('acme.0123', 'acme')).toBe(false);
    expect(lineageOfTenant('beta/acme/x', 'acme')).toBe(false);
  });

  it('refuses tenants it could not tell apart or enforce, naming the field', () => {
    const issue = (value: unknown) => {
      try {
        parseTenants(value);
      } catch (error) {
        if (error instanceof InvalidInputError) return error.issues[0];
        throw error;
      }
      return null;
    };
    expect(issue([])).toMatchObject({ path: '' });
    expect(issue([{ id: 'a_b', senderPrincipals: ['arn:aws:iam::111111111111:user/x'] }])).toMatchObject({
      path: '0.id',
    });
    expect(issue([{ id: 'a', senderPrincipals: [] }])).toMatchObject({ path: '0.senderPrincipals' });
    expect(issue([{ id: 'a', senderPrincipals: ['*'] }])).toMatchObject({ path: '0.senderPrincipals.0' });
    expect(issue([{ id: 'a', senderPrincipals: ['arn:aws:iam::111111111111:user/x'], extra: 1 }])).not.toBeNull();
    expect(
      issue([
        { id: 'a', senderPrincipals: ['arn:aws:iam::111111111111:role/p/x'] },
        { id: 'b', senderPrincipals: ['arn:aws:iam::111111111111:role/x'] },
      ]),
    ).toMatchObject({ path: '1.senderPrincipals.0', message: expect.stringContaining('sender of tenant a too') });
    // A reader maps to one tenant too: its table policy denies it every other tenant's partitions.
    expect(
      issue([
        { id: 'a', senderPrincipals: ['arn:aws:iam::111111111111:user/x'] },
        {
          id: 'b',
          senderPrincipals: ['arn:aws:iam::111111111111:user/y'],
          readerPrincipals: ['arn:aws:iam::111111111111:user/x'],
        },
      ]),
    ).toMatchObject({ path: '1.readerPrincipals.0', message: expect.stringContaining('sender of tenant a too') });
  });
});
