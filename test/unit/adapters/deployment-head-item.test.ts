import { describe, expect, it } from 'vitest';
import { deploymentHeadItem, deploymentHeadOf } from '../../../adapters/dynamodb-deployment-log-store';
import type { StoredDeploymentHead } from '../../../shared/ports/deployment-log-store';

const head: StoredDeploymentHead = {
  size: 6,
  checkpoint: 'reseal/test-stack\n6\nAAAA\n\n— reseal/test-stack AAAA\n',
  frontier: ['ab'.repeat(32)],
  indexRoot: 'cd'.repeat(32),
  published: null,
  reAnchor: 'statement B',
};

describe('the deployment head item\'s re-anchor chain (docs/deployment-log.md, "Storage", "A chain of re-anchors")', () => {
  it('is written as a JSON list and read back; left out when empty', () => {
    const item = deploymentHeadItem({ ...head, reAnchorChain: ['statement A'] }, 0);
    expect(item.reAnchorChain).toEqual({ S: '["statement A"]' });
    expect(deploymentHeadOf(item).reAnchorChain).toEqual(['statement A']);
    const without = deploymentHeadItem({ ...head, reAnchorChain: [] }, 0);
    expect(without.reAnchorChain).toBeUndefined();
    expect(deploymentHeadOf(without).reAnchorChain).toBeUndefined();
  });

  it('a chain that is not a JSON list reads as none (its entries are checked by their reader)', () => {
    for (const S of ['{"a":1}', 'not json', '"statement A"']) {
      const item = { ...deploymentHeadItem(head, 0), reAnchorChain: { S } };
      expect(deploymentHeadOf(item).reAnchorChain).toBeUndefined();
    }
    const item = { ...deploymentHeadItem(head, 0), reAnchorChain: { N: '1' } };
    expect(deploymentHeadOf(item).reAnchorChain).toBeUndefined();
  });
});

describe('the deployment head item\'s frontier (docs/deployment-log.md, "Storage")', () => {
  it("a frontier that is not a JSON list of strings reads as none, never as the table writer's value", () => {
    expect(deploymentHeadOf(deploymentHeadItem(head, 0)).frontier).toEqual(head.frontier);
    for (const S of ['null', '{"length":1,"every":1}', '"ab"', '[1,2]', '["ab",null]', 'not json']) {
      const item = { ...deploymentHeadItem(head, 0), frontier: { S } };
      expect(deploymentHeadOf(item).frontier).toEqual([]);
    }
  });
});
