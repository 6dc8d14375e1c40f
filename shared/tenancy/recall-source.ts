import { EVENT_SOURCE } from '../pipeline/detail-type';
import { lineageOfTenant } from './tenants';

/** Prefix of a tenant's recall source: `reseal.tenant.<tenantId>` (EventBridge `source`, docs/authorship.md, "Tenancy"). */
export const TENANT_RECALL_SOURCE_PREFIX = `${EVENT_SOURCE}.tenant.`;

/**
 * The EventBridge `source` a tenant's `RecallRequested` events carry, `reseal.tenant.<tenantId>`.
 * IAM conditions `events:PutEvents` on it (`events:source`), so in a stack with tenants the
 * source, not the detail, names the tenant a recall acts for (docs/authorship.md, "Tenancy").
 */
export function recallSourceOf(tenantId: string): string {
  return `${TENANT_RECALL_SOURCE_PREFIX}${tenantId}`;
}

/**
 * Why a recall may not be triaged in a stack with tenants (docs/triage.md, "Tenants"), or `null`
 * when it may: its `source` must be the recall source of one of `tenantIds`, and `lineageId` must
 * begin `<tenant>/` (`null`: a detail without a lineage id, which only its schema refuses). The
 * reason names both, never anything read from the lineage.
 */
export function recallTenantProblem(
  source: string,
  lineageId: string | null,
  tenantIds: ReadonlySet<string>,
): string | null {
  const tenantId = source.startsWith(TENANT_RECALL_SOURCE_PREFIX)
    ? source.slice(TENANT_RECALL_SOURCE_PREFIX.length)
    : null;
  if (tenantId === null || !tenantIds.has(tenantId)) {
    return `recall put with source ${JSON.stringify(source.slice(0, 300))}, which names no tenant of this stack: a recall must be put with its tenant's source ${TENANT_RECALL_SOURCE_PREFIX}<tenant id>`;
  }
  if (lineageId !== null && !lineageOfTenant(lineageId, tenantId)) {
    return `lineage ${lineageId.slice(0, 300)} is not of tenant ${tenantId}: a recall put with source ${recallSourceOf(tenantId)} must name a lineage id beginning ${tenantId}/`;
  }
  return null;
}
