import type { FreshWalk, ResealClient } from '../client/reseal-client';
import type { TruncationBasis } from '../client/truncation-check-text';
import type { TrustedHead } from '../shared/seal/trusted-head';

/**
 * What a CLI walk of a stored lineage (`verify --lineage`, `inspect --lineage`) rests on against a
 * rollback, for `truncationCheckText`: the lineage checkpoint kept before the walk (`kept`, from
 * `keptCheckpointOf`) when the walk was shown consistent with it, `--checkpoint`, and the
 * deployment checkpoint the walk's freshness was checked against (kept when the client keeps
 * checkpoints).
 */
export function walkTruncationBasis(
  client: Pick<ResealClient, 'keepsCheckpoints'>,
  walked: Pick<FreshWalk, 'log' | 'freshness'>,
  kept: { readonly size: number | null } | null,
  given: TrustedHead | undefined,
): TruncationBasis {
  const { log, freshness } = walked;
  return {
    against: [
      ...(kept?.size != null && log?.truncationChecked ? [{ kind: 'KEPT_CHECKPOINT' as const, size: kept.size }] : []),
      ...(given ? [{ kind: 'GIVEN_HEAD' as const, ...given }] : []),
    ],
    deployment:
      freshness?.checkpointSize == null
        ? null
        : {
            size: freshness.checkpointSize,
            kept: client.keepsCheckpoints,
            witnessed: freshness.witnessing === 'WITNESSED',
            windowSeconds: freshness.windowSeconds,
          },
    keepsCheckpoints: client.keepsCheckpoints,
    readsDeploymentLog: freshness !== null,
    lineageSigned: log ? log.note !== null : null,
  };
}
