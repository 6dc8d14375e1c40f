import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import type { ResealClient } from '../../../client/reseal-client';
import type { ResealMcpDeps } from '../../../mcp/reseal-mcp-deps';
import type { WriterSigner } from '../../../shared/ports/writer-signer';
import type { EnvSnapshot } from '../../../shared/schemas/env-snapshot';
import type { ResidualWriteRequest } from '../../../shared/write/write-request';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { inProcessStack } from '../../helpers/in-process-stack';
import { TEST_NOW_MS } from '../../helpers/seal-factories';

/** Hooks of {@link pipeline}. */
export interface PipelineHooks {
  /**
   * Called when a write is published, before the guard sees it (the client's body, parsed): e.g.
   * to plant a forged refusal of that very write in the table.
   */
  readonly onPublish?: (request: ResidualWriteRequest) => Promise<void>;
  /** The server's writer key (default the test writer key, `TEST_POLICY` at inception; `null` for none). */
  readonly writer?: WriterSigner | null;
}

/**
 * The whole pipeline in process on one in-memory table, with the pinned test keys: the real
 * guard, sealer and triage functions behind fake SQS and EventBridge clients, and a real
 * {@link ResealClient} that keeps its checkpoints in memory. A published write reaches the guard
 * (and the sealer) only at the client's first wait (`sleep`), so the client's first look at the
 * table happens before the outcome exists, as against a real queue. The clock stands still
 * except for the client's sleeps.
 */
export function pipeline(hooks: PipelineHooks = {}) {
  const store = new InMemoryLineageStore();
  const clock = { now: TEST_NOW_MS };
  const nowMs = () => clock.now;
  const checkpointStore = new MemoryCheckpointStore();
  const { client, waits } = inProcessStack({
    store,
    clock,
    checkpointStore,
    ...(hooks.onPublish ? { onPublish: hooks.onPublish } : {}),
    ...(hooks.writer !== undefined ? { writer: hooks.writer } : {}),
  });
  const deps = (snapshot: EnvSnapshot): ResealMcpDeps => ({
    client,
    snapshots: { take: async () => ({ env: snapshot, notes: [] }) },
    nowMs,
    sessionStartMs: TEST_NOW_MS - 60_000,
  });
  return { store, client, checkpointStore, clock, deps, waits };
}
