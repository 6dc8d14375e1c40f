import type { TruncationBasis } from '../client/truncation-check-text';
import type { Freshness } from '../client/verified-recall';
import type { TrustedHead } from '../shared/seal/trusted-head';
import type { LogCheck } from './log-check';

/**
 * What a walk on the server (`reseal_verify`, `reseal_inspect`) rests on against a rollback, for
 * `truncationCheckText` and the tools' `rollbackChecked`: the kept lineage checkpoint and the
 * caller's `checkpoint`, and the deployment checkpoint its chain verified, which the server keeps
 * (its checkpoint store, in memory without `RESEAL_CHECKPOINTS`).
 */
export function serverWalkTruncationBasis(
  verification: { readonly freshness?: Freshness | null },
  log: LogCheck,
  caller: TrustedHead | undefined,
): TruncationBasis {
  const kept = log.latest?.trusted?.size;
  const freshness = verification.freshness ?? null;
  const size = log.treeHead?.deploymentCheckpointSize ?? freshness?.checkpointSize ?? null;
  return {
    against: [
      ...(kept === undefined ? [] : [{ kind: 'KEPT_CHECKPOINT' as const, size: kept }]),
      ...(caller ? [{ kind: 'GIVEN_HEAD' as const, ...caller }] : []),
    ],
    deployment:
      size === null
        ? null
        : {
            size,
            kept: true,
            witnessed: freshness?.witnessing === 'WITNESSED',
            windowSeconds: freshness?.windowSeconds ?? null,
          },
    keepsCheckpoints: true,
    readsDeploymentLog: freshness !== null || size !== null,
    lineageSigned: log.latest ? true : log.treeHead ? false : null,
  };
}
