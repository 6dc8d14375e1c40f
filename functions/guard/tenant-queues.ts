import { z } from 'zod';
import { parseInput } from '../../shared/schemas/parse';
import { TenantId } from '../../shared/tenancy/tenants';
import { jsonEnv } from '../common/json-env';

/** `TENANT_QUEUES`: a JSON array of `{ queueArn, tenantId }`, one per tenant queue (set by the stack). */
const TenantQueuesSchema = z
  .array(
    z.strictObject({
      queueArn: z.string().regex(/^arn:aws[a-z-]*:sqs:/, 'expected an SQS queue ARN'),
      tenantId: TenantId,
    }),
  )
  .min(1);

/**
 * The guard's tenant queues from its `TENANT_QUEUES` variable (docs/authorship.md, "Tenancy"):
 * `undefined` when the variable is unset or empty (a stack of one tenant), else queue ARN → tenant id.
 * @throws {InvalidInputError} when the variable is not such a JSON array (the function does not start)
 */
export function tenantQueuesFrom(value: string | undefined): ReadonlyMap<string, string> | undefined {
  const json = jsonEnv(value);
  if (json === undefined) return undefined;
  return new Map(parseInput(TenantQueuesSchema, json, 'TENANT_QUEUES').map((q) => [q.queueArn, q.tenantId]));
}
