import type { WalkPlan } from './walk-plan';
import { WalkedTree } from './walked-tree';

/** A walk's plan and the record hashes it read ({@link WalkedTree}), for {@link checkWalkAgainstLog}. */
export interface WalkedRecords {
  readonly plan: WalkPlan;
  readonly tree: WalkedTree;
}

/** A {@link WalkedTree} remembering the prefixes `plan` checks: the indexed tree head and the kept checkpoint. */
export function walkedTreeFor(plan: WalkPlan): WalkedTree {
  if (plan.by !== 'index') return new WalkedTree();
  const storedSize = plan.storedHead === null ? null : plan.storedHead.seq + 1;
  return new WalkedTree([
    ...(plan.treeHead.kind === 'VOUCHED' ? [plan.treeHead.head.size] : []),
    ...(plan.kept.kind === 'KEPT' ? [plan.kept.checkpoint.size] : []),
    ...(storedSize !== null && Number.isSafeInteger(storedSize) ? [storedSize] : []),
  ]);
}
