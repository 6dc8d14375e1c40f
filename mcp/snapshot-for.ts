import { InvalidInputError } from '../shared/errors';
import type { EnvSnapshot } from '../shared/schemas/env-snapshot';
import type { ResealMcpDeps } from './reseal-mcp-deps';
import type { SnapshotUse } from './snapshot-use';

/**
 * The snapshot a write or recall uses: the caller's `env` when given, else one taken now by the
 * configured providers.
 *
 * @throws {InvalidInputError} at `env` when none is given and no providers are configured
 */
export async function snapshotFor(env: EnvSnapshot | undefined, deps: ResealMcpDeps): Promise<SnapshotUse> {
  if (env !== undefined) return { source: 'caller', env, notes: [] };
  if (!deps.snapshots) {
    throw new InvalidInputError('tool arguments', [
      {
        path: 'env',
        message:
          'no env given and no snapshot providers configured: pass env, or configure them in reseal.config.json (RESEAL_CONFIG)',
      },
    ]);
  }
  const taken = await deps.snapshots.take();
  return { source: 'providers', env: taken.env, notes: taken.notes };
}
