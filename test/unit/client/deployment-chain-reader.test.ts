import { describe, expect, it } from 'vitest';
import { DeploymentChainReader } from '../../../client/deployment-chain-reader';
import { freshnessPolicy } from '../../../client/freshness-policy';
import { MemoryIndexNodeStore } from '../../../shared/index/memory-index-node-store';
import { formatVerifierKey } from '../../../shared/log/note-key';
import type { DeploymentLogReads } from '../../../shared/ports/deployment-log-reads';
import { integratedStack, unwitnessedTestPolicy, witnessedTestPolicy } from '../../helpers/integrated-stack';
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

// A table writer who strips only the head's `published` attribute (or mistypes it) must not turn an
// integrated log into "nothing integrated yet": under an unwitnessed policy the log's own signed
// checkpoint on the same head serves; a head with neither is refused (docs/deployment-log.md, "Clients").
describe('DeploymentChainReader with the head present but its published note removed', () => {
  async function integratedWithHead(edit: (head: { published: string | null; checkpoint: string }) => void) {
    const stack = integratedStack();
    await stack.send({ residualId: 'r-1' });
    await stack.integrate();
    const head = stack.deployment.head;
    if (head === null) throw new Error('the integration stored no head');
    const edited = { ...head };
    edit(edited);
    stack.deployment.head = edited;
    const lineageId = stack.request({}).lineageId;
    const reader = async (policy: Awaited<ReturnType<typeof unwitnessedTestPolicy>>) =>
      new DeploymentChainReader({
        log: stack.deployment,
        index: stack.index,
        policy: async () => policy,
        nowMs: () => stack.clock.now,
      }).read({ lineageId });
    return reader;
  }

  it('still proves the lineage under an unwitnessed policy, from the log-signed checkpoint', async () => {
    const read = await integratedWithHead((head) => {
      head.published = null;
    });
    expect((await read(await unwitnessedTestPolicy())).kind).toBe('PROVEN');
  });

  it('refuses when the head holds no checkpoint either, never UNPUBLISHED', async () => {
    const read = await integratedWithHead((head) => {
      head.published = null;
      head.checkpoint = '';
    });
    expect(await read(await unwitnessedTestPolicy())).toMatchObject({ kind: 'REFUSED', refusal: 'POLICY_NOT_MET' });
  });

  it('refuses under a witnessed policy (the log-signed checkpoint carries no cosignature)', async () => {
    const read = await integratedWithHead((head) => {
      head.published = null;
    });
    expect(await read(await witnessedTestPolicy())).toMatchObject({ kind: 'REFUSED', refusal: 'POLICY_NOT_MET' });
  });
});
