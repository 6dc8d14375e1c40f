import { z } from 'zod';
import { parseInput } from '../../shared/schemas/parse';
import { TenantId } from '../../shared/tenancy/tenants';
import { jsonEnv } from '../common/json-env';

/** `TENANT_IDS`: a JSON array of the stack's tenant ids (set by the stack). */
const TenantIdsSchema = z.array(TenantId).min(1);

/**
 * The triage function's tenants from its `TENANT_IDS` variable (docs/triage.md, "Tenants"):
 * `undefined` when unset or empty (a stack of one tenant), else the set of tenant ids.
 * @throws {InvalidInputError} when the variable is not such a JSON array (the function does not start)
 */
export function tenantIdsFrom(value: string | undefined): ReadonlySet<string> | undefined {
  const json = jsonEnv(value);
  if (json === undefined) return undefined;
  return new Set(parseInput(TenantIdsSchema, json, 'TENANT_IDS'));
}
