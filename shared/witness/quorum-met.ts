import type { QuorumRule } from './tlog-policy';

/** Whether `rule` holds when exactly the witnesses in `present` have witnessed. */
export function quorumMet(rule: QuorumRule, present: ReadonlySet<string>): boolean {
  switch (rule.kind) {
    case 'NONE':
      return true;
    case 'WITNESS':
      return present.has(rule.name);
    case 'GROUP':
      return rule.members.filter((member) => quorumMet(member, present)).length >= rule.threshold;
  }
}
