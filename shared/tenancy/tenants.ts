import { z } from 'zod';
import { TenantMismatchError } from '../errors';
import { parseInput } from '../schemas/parse';
import { PrincipalArn } from './principal-arn';

/**
 * A tenant id (docs/authorship.md, "Tenancy"): 1–32 characters of `a–z 0–9 -`, starting with a
 * letter or digit. It begins every lineage id of the tenant (`<tenant>/…`), names its queue and
 * writer key, and is a CloudFormation-safe suffix once its dashes are dropped.
 */
export const TenantId = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9-]{0,31}$/,
    'tenant id must be 1–32 characters of [a-z0-9-], starting with a letter or digit',
  );

/** One tenant of a stack: who may send its writes (and call the remote MCP server as it), and who may sign with its writer key. */
export const TenantSchema = z.strictObject({
  id: TenantId,
  /** May `sqs:SendMessage` to the tenant's queue; callers of the remote MCP server map to the tenant by these. */
  senderPrincipals: z.array(PrincipalArn).min(1).max(32),
  /** May `kms:Sign` with the tenant's writer key. @default senderPrincipals */
  signerPrincipals: z.array(PrincipalArn).min(1).max(32).optional(),
  /**
   * May read the tenant's partitions of the lineage table, and the shared ones a client reads
   * (the table's resource policy, under `dynamodb:LeadingKeys`; docs/authorship.md, "Tenancy", reads).
   * @default none: the stack grants no table read
   */
  readerPrincipals: z.array(PrincipalArn).min(1).max(32).optional(),
});
/** Type of {@link TenantSchema}. */
export type Tenant = z.infer<typeof TenantSchema>;

/**
 * The tenants of a stack: 1–50, each id once, each sender and reader in one tenant only (a role
 * also by account and name: a caller's assumed-role ARN does not carry the role's path).
 */
export const TenantsSchema = z
  .array(TenantSchema)
  .min(1)
  .max(50)
  .superRefine((tenants, ctx) => {
    const ids = new Set<string>();
    const owners = new Map<string, { tenant: string; as: string }>();
    for (const [i, tenant] of tenants.entries()) {
      if (ids.has(tenant.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `tenant ${tenant.id} twice` });
      ids.add(tenant.id);
      for (const list of ['senderPrincipals', 'readerPrincipals'] as const) {
        for (const [j, arn] of (tenant[list] ?? []).entries()) {
          const key = principalKey(arn);
          const owner = owners.get(key);
          if (owner !== undefined && owner.tenant !== tenant.id) {
            ctx.addIssue({
              code: 'custom',
              path: [i, list, j],
              message: `${arn} is a ${owner.as} of tenant ${owner.tenant} too: a caller or reader must map to one tenant`,
            });
          }
          owners.set(key, { tenant: tenant.id, as: list === 'senderPrincipals' ? 'sender' : 'reader' });
        }
      }
    }
  });

/**
 * The tenants of a configuration (the `tenants` prop or context, a function's `TENANTS`), checked once.
 * @throws {InvalidInputError} naming the first field that is wrong
 */
export function parseTenants(value: unknown): Tenant[] {
  return parseInput(TenantsSchema, value, 'tenants');
}

/** The prefix every lineage id of `tenantId` starts with: `<tenantId>/`. */
export function tenantLineagePrefix(tenantId: string): string {
  return `${tenantId}/`;
}

/** Whether `lineageId` belongs to `tenantId` (starts with `<tenantId>/`). */
export function lineageOfTenant(lineageId: string, tenantId: string): boolean {
  return lineageId.startsWith(tenantLineagePrefix(tenantId));
}

/**
 * Refuses a lineage outside the caller's tenant, before anything is read or sent
 * (docs/authorship.md, "Tenancy", "Refused at the caller"). No tenant (`undefined`): one tenant, nothing to refuse.
 * @throws {TenantMismatchError} when `lineageId` does not begin `<tenantId>/`
 */
export function assertLineageOfTenant(lineageId: string, tenantId: string | undefined): void {
  if (tenantId !== undefined && !lineageOfTenant(lineageId, tenantId))
    throw new TenantMismatchError(lineageId, tenantId);
}

/**
 * What identifies a principal across its ARN forms: `<partition>:<account>:role:<name>` for a role
 * (the path dropped), `<partition>:<account>:user:<path/name>` for a user; `null` for anything else.
 */
function principalKey(arn: string): string {
  const role = /^arn:(aws[a-z-]*):iam::(\d{12}):role\/(?:.*\/)?([^/]+)$/.exec(arn);
  if (role) return `${role[1]}:${role[2]}:role:${role[3]}`;
  const user = /^arn:(aws[a-z-]*):iam::(\d{12}):user\/(.+)$/.exec(arn);
  if (user) return `${user[1]}:${user[2]}:user:${user[3]}`;
  return `other:${arn}`;
}

/**
 * The key of a caller API Gateway names (`requestContext.authorizer.iam.userArn`): an STS
 * assumed-role session (`arn:aws:sts::<account>:assumed-role/<role>/<session>`) is its role; an
 * IAM user is itself. `null` for any other caller (the account root, a federated user).
 */
function callerKey(userArn: string): string | null {
  const session = /^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role\/([^/]+)\/[^/]+$/.exec(userArn);
  if (session) return `${session[1]}:${session[2]}:role:${session[3]}`;
  if (/^arn:aws[a-z-]*:iam::\d{12}:user\//.test(userArn)) return principalKey(userArn);
  return null;
}

/**
 * The tenant a remote MCP caller acts for (docs/mcp.md, "Tenants"): the one whose
 * `senderPrincipals` names the caller's IAM user, or the role of its assumed-role session;
 * `null` when none does (the caller is refused).
 */
export function tenantOfCaller<T extends Tenant>(tenants: readonly T[], userArn: string): T | null {
  const key = callerKey(userArn);
  if (key === null) return null;
  return tenants.find((tenant) => tenant.senderPrincipals.some((arn) => principalKey(arn) === key)) ?? null;
}
