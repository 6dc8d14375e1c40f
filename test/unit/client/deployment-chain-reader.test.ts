import { describe, expect, it } from 'vitest';
import { DeploymentChainReader } from '../../../client/deployment-chain-reader';
import { freshnessPolicy } from '../../../client/freshness-policy';
import { MemoryIndexNodeStore } from '../../../shared/index/memory-index-node-store';
import { formatVerifierKey } from '../../../shared/log/note-key';
import { signCheckpoint } from '../../../shared/log/sign-checkpoint';
import type { DeploymentLogReads } from '../../../shared/ports/deployment-log-reads';
import {
  cosignedByTestWitness,
  integratedStack,
  unwitnessedTestPolicy,
  witnessedTestPolicy,
} from '../../helpers/integrated-stack';
import { testNoteVerifierKey } from '../../helpers/log-factories';
import { forgerLogSigner, TEST_LOG_NAME, testLogSigner } from '../../helpers/pipeline-keys';
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

// A table writer who sets only the head's `published` to an older note of the log must not roll
// the answer back: under `quorum none` both notes are the log's, so the larger that verifies is
// read, once the smaller is shown its prefix; two histories are refused (docs/deployment-log.md,
// "Clients", item 2).
describe('DeploymentChainReader with the head published note set to an older note of the log', () => {
  async function stackWithOlderPublished(older: (notes: string[]) => Promise<string>) {
    const stack = integratedStack();
    const notes: string[] = [];
    for (const residualId of ['r-1', 'r-2', 'r-3']) {
      await stack.send({ residualId });
      await stack.integrate();
      notes.push(stack.deployment.head?.checkpoint ?? '');
    }
    const head = stack.deployment.head;
    if (head === null) throw new Error('the integration stored no head');
    stack.deployment.head = { ...head, published: await older(notes) };
    const lineageId = stack.request({}).lineageId;
    return async (policy: Awaited<ReturnType<typeof unwitnessedTestPolicy>>) =>
      new DeploymentChainReader({
        log: stack.deployment,
        index: stack.index,
        policy: async () => policy,
        nowMs: () => stack.clock.now,
      }).read({ lineageId });
  }

  it('reads the larger log-signed note (the checkpoint), so the index still holds the newest lineage head', async () => {
    const read = await stackWithOlderPublished(async (notes) => notes[0] ?? '');
    const chain = await read(await unwitnessedTestPolicy());
    expect(chain).toMatchObject({ kind: 'PROVEN', checkpoint: { size: 3 }, lineage: { treeSize: 3 } });
  });

  it('refuses (FORK) when the older note is not a prefix of the checkpoint', async () => {
    const read = await stackWithOlderPublished(async () =>
      signCheckpoint({ origin: TEST_LOG_NAME, size: 2, rootHash: new Uint8Array(32).fill(7) }, testLogSigner()),
    );
    expect(await read(await unwitnessedTestPolicy())).toMatchObject({ kind: 'REFUSED', refusal: 'FORK' });
  });

  it('refuses a published note no policy log key verifies: tamper evidence, never silently skipped for the checkpoint', async () => {
    const read = await stackWithOlderPublished(async () =>
      signCheckpoint({ origin: TEST_LOG_NAME, size: 9, rootHash: new Uint8Array(32).fill(7) }, forgerLogSigner()),
    );
    const chain = await read(await unwitnessedTestPolicy());
    expect(chain).toMatchObject({ kind: 'REFUSED', refusal: 'POLICY_NOT_MET' });
    expect(chain.kind === 'REFUSED' && chain.reason).toMatch(/published note does not verify/);
  });
});

// An unreadable or forged note on the head item is an edited item (docs/deployment-log.md,
// "Clients", item 2): refused under either policy, never answered from the other note.
describe('DeploymentChainReader with a garbled head checkpoint beside an older published note', () => {
  async function garbled(
    policyOf: () => Awaited<ReturnType<typeof witnessedTestPolicy>> | ReturnType<typeof witnessedTestPolicy>,
  ) {
    const stack = integratedStack();
    const notes: string[] = [];
    for (const residualId of ['r-1', 'r-2']) {
      await stack.send({ residualId });
      await stack.integrate();
      notes.push(stack.deployment.head?.checkpoint ?? '');
    }
    const head = stack.deployment.head;
    if (head === null) throw new Error('the integration stored no head');
    const published = await cosignedByTestWitness(notes[0] ?? '', Math.floor(stack.clock.now / 1000));
    const policy = await policyOf();
    const read = () =>
      new DeploymentChainReader({
        log: stack.deployment,
        index: stack.index,
        policy: async () => policy,
        nowMs: () => stack.clock.now,
      }).read({ lineageId: stack.request({}).lineageId });
    stack.deployment.head = { ...head, published };
    const control = await read();
    stack.deployment.head = { ...head, published, checkpoint: `${head.checkpoint.slice(0, 40)}garbled\n` };
    return { control, chain: await read() };
  }

  it('witnessed policy: REFUSED (exit 20), not the older cosigned note', async () => {
    const { control, chain } = await garbled(witnessedTestPolicy);
    expect(control).toMatchObject({ kind: 'PROVEN', checkpoint: { size: 1 } });
    expect(chain).toMatchObject({ kind: 'REFUSED', refusal: 'POLICY_NOT_MET' });
    expect(chain.kind === 'REFUSED' && chain.reason).toMatch(/checkpoint note does not verify/);
  });

  it('unwitnessed policy: REFUSED too', async () => {
    const { control, chain } = await garbled(unwitnessedTestPolicy);
    expect(control).toMatchObject({ kind: 'PROVEN', checkpoint: { size: 2 } });
    expect(chain).toMatchObject({ kind: 'REFUSED', refusal: 'POLICY_NOT_MET' });
  });
});
