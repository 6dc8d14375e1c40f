import type { ReadDeploymentChain, RecordFreshness } from './record-freshness';

/**
 * `decided` with the chain's re-anchor notice, when the chain verified one (docs/deployment-log.md,
 * "Re-anchor"): shown with every state, so a re-anchored history is never a silent `PROVEN`.
 */
export function withReAnchor<T extends RecordFreshness | null>(chain: ReadDeploymentChain, decided: T): T {
  const notice = chain.kind === 'PROVEN' || chain.kind === 'ABSENT' ? (chain.reAnchor ?? null) : null;
  return decided && notice ? { ...decided, reAnchor: notice } : decided;
}
