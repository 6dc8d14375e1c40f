import { TenantRequiredError } from '../shared/errors';
import type { ResealStackOutputs } from './stack-outputs';

/**
 * The queue a caller's writes go to (docs/authorship.md, "Tenancy"): the stack's residual-writes
 * queue in a stack of one tenant; in a stack with tenants, the queue of the caller's tenant. A
 * caller that names no tenant of such a stack is refused here, before anything is signed or
 * sent, because the stack would refuse its write or recall where it cannot look (on AWS, IAM
 * denies the send to residual-writes and the put under `reseal`; behind IAM, the guard's unsigned
 * `TENANT_MISMATCH` and triage's log) and its wait could only time out.
 *
 * @param outputs - the stack's outputs; `tenantQueueUrls` present means the stack has tenants
 * @param tenantId - the tenant the caller acts for, or `undefined`
 * @returns the queue URL to send the caller's writes to
 * @throws {TenantRequiredError} on a stack with tenants when `tenantId` is none of them
 */
export function writeQueueUrl(
  outputs: Pick<ResealStackOutputs, 'residualWritesQueueUrl' | 'tenantQueueUrls'>,
  tenantId: string | undefined,
): string {
  const tenants = outputs.tenantQueueUrls;
  if (tenants === undefined) return outputs.residualWritesQueueUrl;
  // Own keys only: a tenant id such as `constructor` names no tenant, not Object.prototype's.
  const url = tenantId !== undefined && Object.hasOwn(tenants, tenantId) ? tenants[tenantId] : undefined;
  if (url === undefined) throw new TenantRequiredError(Object.keys(tenants).sort(), tenantId ?? null);
  return url;
}
