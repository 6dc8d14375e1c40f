import { describe, expect, it } from 'vitest';
import { DeploymentChainReader } from '../../../client/deployment-chain-reader';
import { freshnessPolicy } from '../../../client/freshness-policy';
import { MemoryIndexNodeStore } from '../../../shared/index/memory-index-node-store';
import { formatVerifierKey } from '../../../shared/log/note-key';
import type { DeploymentLogReads } from '../../../shared/ports/deployment-log-reads';
import { testNoteVerifierKey } from '../../helpers/log-factories';
import { testPolicyText } from '../../helpers/witness-factories';

// A table writer who deletes the deployment head item hides every proof of freshness. Under a
// witnessed policy that must fail closed, never read as "nothing integrated yet"
// (docs/deployment-log.md, "Clients").
const deletedHead: DeploymentLogReads = {
  readHead: async () => null,
  readNodes: async (refs) => refs.map(() => null),
  readLeafIndexRoot: async () => null,
};

const readerWith = (policyText: string) =>
  new DeploymentChainReader({
    log: deletedHead,
    index: new MemoryIndexNodeStore(),
    policy: async () => freshnessPolicy(policyText),
    nowMs: () => 1_767_225_600_000,
  });

describe('DeploymentChainReader with no published deployment checkpoint', () => {
  it('refuses under a witnessed policy (POLICY_NOT_MET), so a deleted head cannot pass for "awaiting integration"', async () => {
    const chain = await readerWith(await testPolicyText()).read({ lineageId: 'lin-1' });
    expect(chain).toMatchObject({ kind: 'REFUSED', refusal: 'POLICY_NOT_MET' });
  });

  it('answers UNPUBLISHED under an unwitnessed policy (the log alone proves no freshness)', async () => {
    const log = formatVerifierKey(await testNoteVerifierKey());
    const chain = await readerWith(`log ${log}\nquorum none\n`).read({ lineageId: 'lin-1' });
    expect(chain.kind).toBe('UNPUBLISHED');
  });
});
