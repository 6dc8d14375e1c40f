import { FileCheckpointStore } from '../client/file-checkpoint-store';
import { MemoryCheckpointStore } from '../client/memory-checkpoint-store';
import { loadResealConfig } from '../client/reseal-config';
import { snapshotProviders } from '../client/snapshot-providers';
import type { McpServerConfig } from './config';
import { lazyMcpClient } from './lazy-client';
import { loadPolicy } from './load-policy';
import { loadWriterKey } from './load-writer-key';
import type { ResealMcpDeps } from './reseal-mcp-deps';
import { resolveMcpClient } from './resolve-mcp-client';
import { stackPlace } from './stack-place';
import { tenantScopedClient } from './tenant-scoped-client';

/**
 * Everything the tools need, from a {@link McpServerConfig}, without reaching the stack: a client
 * that resolves the stack on its first call and again after each call that finds a part missing
 * ({@link lazyMcpClient}, {@link resolveMcpClient}), so the server starts and lists its tools
 * with no stack reachable and each tool call answers `UNAVAILABLE` naming what is missing until
 * it is there. The client keeps the last verified signed checkpoint of each lineage (in
 * `checkpointsFile`, else in memory for the server's lifetime). The snapshot providers, a
 * writer key file ({@link loadWriterKey}) and the freshness policy ({@link loadPolicy}) are loaded
 * now (a KMS writer key at the first call).
 *
 * @throws {InvalidInputError} when the snapshot config, the writer key file or the policy is malformed
 */
export async function connectMcpDeps(
  config: McpServerConfig,
  options: { nowMs?: () => number } = {},
): Promise<ResealMcpDeps> {
  const writer = await loadWriterKey(config);
  const policy = await loadPolicy(config);
  const checkpointStore = config.checkpointsFile
    ? new FileCheckpointStore(config.checkpointsFile)
    : new MemoryCheckpointStore();
  const lazy = lazyMcpClient(
    () =>
      resolveMcpClient(config, {
        checkpointStore,
        writer,
        policy,
        ...(options.nowMs ? { nowMs: options.nowMs } : {}),
      }),
    stackPlace(config),
  );
  // Every tool naming a lineage of another tenant is TENANT_MISMATCH, nothing read or sent (docs/mcp.md, "Tenants").
  const client = config.tenantId ? tenantScopedClient(lazy, config.tenantId) : lazy;
  const loaded = config.configFile ? await loadResealConfig(config.configFile) : null;
  return {
    client,
    snapshots: loaded ? snapshotProviders(loaded.config.snapshot, { dir: loaded.dir }) : null,
    ...(options.nowMs ? { nowMs: options.nowMs } : {}),
  };
}
