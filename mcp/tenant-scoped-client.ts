import { assertLineageOfTenant } from '../shared/tenancy/tenants';
import type { McpClient } from './reseal-mcp-deps';

/**
 * `client` limited to the lineages of one tenant (docs/mcp.md, "Tenants"): every call that names a
 * lineage (a write's `lineageId`, a recall's, a walk's, an export's) first checks that the id
 * begins `<tenantId>/`, else throws `TenantMismatchError` before anything is read or sent
 * (the tools answer it `TENANT_MISMATCH`). The one place the remote server scopes a caller, so a tool
 * added later is scoped too, as long as it reaches the stack through this client.
 */
export function tenantScopedClient(client: McpClient, tenantId: string): McpClient {
  const own = (lineageId: string): void => {
    assertLineageOfTenant(lineageId, tenantId);
  };
  return {
    publishWrite: async (request) => {
      own(request.lineageId);
      return client.publishWrite(request);
    },
    waitForOutcome: async (lineageId, residualId, options) => {
      own(lineageId);
      return client.waitForOutcome(lineageId, residualId, options);
    },
    recall: async (request, options) => {
      own(request.lineageId);
      return client.recall(request, options);
    },
    recallDirect: async (request) => {
      own(request.lineageId);
      return client.recallDirect(request);
    },
    latestCheckpoint: async (lineageId) => {
      own(lineageId);
      return client.latestCheckpoint(lineageId);
    },
    provenRecord: async (lineageId, seq) => {
      own(lineageId);
      return client.provenRecord(lineageId, seq);
    },
    logKey: () => client.logKey(),
    verifyLineage: async (lineageId, options) => {
      own(lineageId);
      return client.verifyLineage(lineageId, options);
    },
    lineageFreshness: async (lineageId, verification) => {
      own(lineageId);
      return client.lineageFreshness(lineageId, verification);
    },
    exportLineage: async (lineageId, options) => {
      own(lineageId);
      return client.exportLineage(lineageId, options);
    },
    verifyExport: async (exported, options) => {
      own(exported.lineageId);
      return client.verifyExport(exported, options);
    },
    readRefusals: async (lineageId) => {
      own(lineageId);
      return client.readRefusals(lineageId);
    },
    keptCheckpoint: async (lineageId) => {
      own(lineageId);
      return client.keptCheckpoint(lineageId);
    },
    verifyStoredLineage: async (lineageId, options) => {
      own(lineageId);
      return client.verifyStoredLineage(lineageId, options);
    },
    readVerifiedLineage: async (lineageId, options) => {
      own(lineageId);
      return client.readVerifiedLineage(lineageId, options);
    },
  };
}
