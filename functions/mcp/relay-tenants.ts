import { z } from 'zod';
import { parseInput } from '../../shared/schemas/parse';
import { parseTenants, type Tenant, TenantSchema } from '../../shared/tenancy/tenants';
import { jsonEnv } from '../common/json-env';

/** A tenant as the remote MCP function serves it: who its callers are, and the queue its writes go to. */
export interface RelayTenant extends Tenant {
  /** The tenant's `residual-writes` queue: the guard binds the tenant from it. */
  readonly queueUrl: string;
}

/** `TENANTS`: the stack's tenants with their queue URLs (set by the stack, infra/constructs/tenant-queues.ts). */
const RelayTenantsSchema = z.array(TenantSchema.extend({ queueUrl: z.url() }));

/**
 * The remote MCP function's tenants from its `TENANTS` variable (docs/mcp.md, "Tenants"):
 * `undefined` when unset or empty (one tenant: every caller reads every lineage), else each
 * tenant with its senders (the callers that act for it) and its queue.
 * @throws {InvalidInputError} when the variable is not such a JSON array (the function does not start)
 */
export function relayTenantsFrom(value: string | undefined): readonly RelayTenant[] | undefined {
  const json = jsonEnv(value);
  if (json === undefined) return undefined;
  const relay = parseInput(RelayTenantsSchema, json, 'TENANTS');
  // The rules of a stack's tenants (ids unique, each sender in one tenant), on the same entries.
  parseTenants(relay.map(({ queueUrl: _queueUrl, ...tenant }) => tenant));
  return relay;
}
