import { describe, expect, it, vi } from 'vitest';
import { policyDigest } from '../../../../shared/authorship/lineage-policy';
import { LogStateError } from '../../../../shared/errors';
import type { LineageIndexValue } from '../../../../shared/index/index-entry';
import { checkpointOrigin } from '../../../../shared/log/checkpoint-origin';
import { HeadAuthentication } from '../../../../shared/log/head-authentication';
import { type HeadState, macHeadState } from '../../../../shared/log/head-state-mac';
import {
  authenticateHeadState,
  claimedLogState,
  headStateOf,
  type StoredLogHead,
} from '../../../../shared/log/log-state';
import { sealRequestBody } from '../../../helpers/factories';
import { FACTORY_NOW_MS } from '../../../helpers/guard-factories';
import { InMemoryLineageStore } from '../../../helpers/in-memory-lineage-store';
import { appendSealed, TEST_LOG_KEY, TEST_LOG_NAME } from '../../../helpers/pipeline-keys';
import { buildChain, TEST_LINEAGE_ID, testAnchor } from '../../../helpers/seal-factories';
import { testSealerService } from '../../../helpers/service-factories';
import { smallHeadOf } from '../../../helpers/small-head';
import { STRANGER_WRITER, TEST_POLICY, testLineageId } from '../../../helpers/writer-factories';

const context = (overrides: { anchor?: ReturnType<typeof testAnchor> | null; indexed?: LineageIndexValue | null }) => ({
  lineageId: TEST_LINEAGE_ID,
  origin: checkpointOrigin(TEST_LOG_NAME, TEST_LINEAGE_ID),
  key: TEST_LOG_KEY,
  anchor: overrides.anchor === undefined ? testAnchor() : overrides.anchor,
  indexed: overrides.indexed ?? null,
});

/** A head of three records as the sealer stored it before (signed checkpoint), and its head state. */
function storedHead(): Promise<{ stored: StoredLogHead; head: HeadState }> {
  return storedHeadOf(3);
}

/** A head of `size` records as the sealer stored it before (signed checkpoint), and its head state. */
async function storedHeadOf(size: number): Promise<{ stored: StoredLogHead; head: HeadState }> {
  const store = new InMemoryLineageStore();
  const { records } = await buildChain(size);
  await appendSealed(store, records);
  const stored = (await store.logHead(TEST_LINEAGE_ID)) as StoredLogHead;
  return { stored, head: headStateOf(claimedLogState(stored, TEST_LINEAGE_ID)) as HeadState };
}

const indexValueOf = (head: HeadState): LineageIndexValue => ({
  treeSize: head.treeSize,
  rootHash: head.rootHash,
  headRecordHash: head.headRecordHash,
  generationEpoch: head.generationEpoch,
  writerPolicyDigest: head.writerPolicyDigest,
});

describe('authenticateHeadState (docs/verifiable-log.md, "Appending")', () => {
  it("a head the sealer MAC'd authenticates by its head-state MAC, with no signed checkpoint", async () => {
    const { stored, head } = await storedHead();
    const macOnly = { ...stored, checkpoint: null, headMac: await macHeadState(head, testAnchor()) };
    const { state, authenticatedBy } = await authenticateHeadState(macOnly, context({}));
    expect(authenticatedBy).toBe(HeadAuthentication.HEAD_MAC);
    expect(state.size).toBe(3);
    expect(state.checkpoint).toBeNull();
  });

  it("a head accepted by its MAC keeps the head item's checkpoint only when it verifies for that state", async () => {
    const { stored, head } = await storedHead();
    const headMac = await macHeadState(head, testAnchor());
    const both = await authenticateHeadState({ ...stored, headMac }, context({}));
    expect(both.authenticatedBy).toBe(HeadAuthentication.HEAD_MAC);
    expect(both.state.checkpoint).toBe(stored.checkpoint);
    // A table writer's text beside a valid MAC: garbled, or a real checkpoint of another size.
    const older = (await storedHeadOf(2)).stored.checkpoint;
    for (const checkpoint of ['not a note\n', older]) {
      const forged = await authenticateHeadState({ ...stored, headMac, checkpoint }, context({}));
      expect(forged.authenticatedBy).toBe(HeadAuthentication.HEAD_MAC);
      expect(forged.state.checkpoint).toBeNull();
    }
  });

  it('an older head authenticates by its signed lineage checkpoint', async () => {
    const { stored } = await storedHead();
    expect((await authenticateHeadState(stored, context({ anchor: null }))).authenticatedBy).toBe(
      HeadAuthentication.SIGNED_CHECKPOINT,
    );
  });

  it('a head without a MAC or checkpoint authenticates only as exactly the indexed head', async () => {
    const { stored, head } = await storedHead();
    const bare = { ...stored, checkpoint: null, headMac: null };
    const indexed = indexValueOf(head);
    expect((await authenticateHeadState(bare, context({ indexed }))).authenticatedBy).toBe(HeadAuthentication.INDEX);
    for (const other of [
      { ...indexed, treeSize: 2 },
      { ...indexed, rootHash: '00'.repeat(32) },
      { ...indexed, generationEpoch: indexed.generationEpoch + 1 },
    ]) {
      await expect(authenticateHeadState(bare, context({ indexed: other }))).rejects.toThrow(LogStateError);
    }
    await expect(authenticateHeadState(bare, context({}))).rejects.toThrow(/not the head the deployment index holds/);
  });

  it('a MAC of another state (an edited frontier, another key) or one no anchor can check is refused unless indexed', async () => {
    const { stored, head } = await storedHead();
    const mac = await macHeadState(head, testAnchor());
    // The frontier edited: the claimed root changes, so the MAC no longer covers the head.
    const edited = {
      ...stored,
      checkpoint: null,
      headMac: mac,
      frontier: (stored.frontier ?? []).map(() => 'ab'.repeat(32)),
    };
    await expect(authenticateHeadState(edited, context({}))).rejects.toThrow(/does not verify/);
    const otherKey = {
      ...stored,
      checkpoint: null,
      headMac: await macHeadState(head, testAnchor({ key: new Uint8Array(32).fill(9) })),
    };
    await expect(authenticateHeadState(otherKey, context({}))).rejects.toThrow(LogStateError);
    const unchecked = { ...stored, checkpoint: null, headMac: mac };
    await expect(authenticateHeadState(unchecked, context({ anchor: null }))).rejects.toThrow(LogStateError);
  });

  it('a head exactly as a notice of the batch names it authenticates by the notice, before and without any VerifyMac', async () => {
    const { stored, head } = await storedHead();
    const anchor = testAnchor();
    const withMac = { ...stored, headMac: await macHeadState(head, anchor) };
    const verifyMac = vi.spyOn(anchor, 'verifyMac');
    const noticed = [{ ...indexValueOf(head), treeSize: 2 }, indexValueOf(head)];
    const { state, authenticatedBy } = await authenticateHeadState(withMac, { ...context({ anchor }), noticed });
    expect(authenticatedBy).toBe(HeadAuthentication.NOTICE);
    expect(state.size).toBe(3);
    // The notice vouches for the state, not for the checkpoint text beside it.
    expect(state.checkpoint).toBeNull();
    expect(verifyMac).not.toHaveBeenCalled();
    // No anchor at all: the notice alone vouches.
    const bare = { ...stored, checkpoint: null, headMac: null };
    expect((await authenticateHeadState(bare, { ...context({ anchor: null }), noticed })).authenticatedBy).toBe(
      HeadAuthentication.NOTICE,
    );
  });

  it('a notice naming another head (any field) leaves the head to its MAC; an edited frontier is never taken for the named head', async () => {
    const { stored, head } = await storedHead();
    const named = indexValueOf(head);
    const bare = { ...stored, checkpoint: null, headMac: null };
    for (const other of [
      { ...named, treeSize: 2 },
      { ...named, rootHash: '00'.repeat(32) },
      { ...named, headRecordHash: '00'.repeat(32) },
      { ...named, generationEpoch: named.generationEpoch + 1 },
      { ...named, writerPolicyDigest: '00'.repeat(32) },
    ]) {
      await expect(authenticateHeadState(bare, { ...context({}), noticed: [other] })).rejects.toThrow(LogStateError);
    }
    const anchor = testAnchor();
    const withMac = { ...bare, headMac: await macHeadState(head, anchor) };
    const verifyMac = vi.spyOn(anchor, 'verifyMac');
    const byMac = await authenticateHeadState(withMac, {
      ...context({ anchor }),
      noticed: [{ ...named, treeSize: 2 }],
    });
    expect(byMac.authenticatedBy).toBe(HeadAuthentication.HEAD_MAC);
    expect(verifyMac).toHaveBeenCalledTimes(1);
    // The frontier edited: its root is no longer the notice's, whatever the head fields still say.
    const edited = { ...bare, frontier: (stored.frontier ?? []).map(() => 'ab'.repeat(32)) };
    await expect(authenticateHeadState(edited, { ...context({}), noticed: [named] })).rejects.toThrow(LogStateError);
  });
});

/** A format-2 lineage of two records the sealer sealed under the test policy: its head item (with header, policy and head-state MAC). */
async function writerBoundHead(): Promise<StoredLogHead> {
  const { store, service } = testSealerService();
  const lineageId = testLineageId('small-head');
  for (const residualId of ['r-1', 'r-2']) {
    const outcome = await service.handle({
      messageId: residualId,
      body: sealRequestBody({ lineageId, residualId, policy: TEST_POLICY }),
      sentAtMs: FACTORY_NOW_MS,
    });
    expect(outcome.kind).toBe('SEALED');
  }
  return (await store.logHead(lineageId)) as StoredLogHead;
}

describe('claimedLogState of a small head (docs/sealing.md, "The append\'s layout", "What each reader changes")', () => {
  it('a head without its tip header takes seq, record hash and epoch from its attributes: the same state as the head it replaces', async () => {
    const { stored } = await storedHeadOf(5);
    const small = await smallHeadOf(stored);
    expect(small.header).toBeNull();
    expect(small.head.mac).toBe('');
    const legacy = claimedLogState(stored, TEST_LINEAGE_ID);
    const read = claimedLogState(small, TEST_LINEAGE_ID);
    // The small head stores no seal time: the tip's `sealedAtMs` is the header's alone.
    const { sealedAtMs: _, ...legacyTip } = legacy.tip ?? {};
    expect(read).toEqual({ ...legacy, tip: legacyTip, checkpoint: null });
    expect(read.tip?.policyDigest).toBeNull();
    expect(read.legacyTip).toBe(true);
    const { state, authenticatedBy } = await authenticateHeadState(small, context({}));
    expect(authenticatedBy).toBe(HeadAuthentication.HEAD_MAC);
    expect(headStateOf(state)).toEqual(headStateOf(legacy));
  });

  it('a format-2 small head takes the writer policy digest from its stored policy', async () => {
    const stored = await writerBoundHead();
    const lineageId = stored.head.lineageId;
    const small = await smallHeadOf(stored);
    const legacy = claimedLogState(stored, lineageId);
    const read = claimedLogState(small, lineageId);
    expect(read.tip?.policyDigest).toBe(policyDigest(TEST_POLICY));
    const { sealedAtMs: _, ...legacyTip } = legacy.tip ?? {};
    expect(read).toEqual({ ...legacy, tip: legacyTip, checkpoint: null });
    expect(read.legacyTip).toBe(false);
    const authenticated = await authenticateHeadState(small, { ...context({}), lineageId });
    expect(authenticated.authenticatedBy).toBe(HeadAuthentication.HEAD_MAC);
  });

  it("a small head's attributes are only the table's word: an edit of any the MAC covers is refused unless indexed", async () => {
    const stored = await writerBoundHead();
    const lineageId = stored.head.lineageId;
    const small = await smallHeadOf(stored);
    const claimed = claimedLogState(small, lineageId);
    const otherPolicy = {
      ...TEST_POLICY,
      writers: [{ keyId: STRANGER_WRITER.keyId, publicKey: STRANGER_WRITER.publicKey }],
    };
    for (const edited of [
      { ...small, head: { ...small.head, generationEpoch: small.head.generationEpoch + 1 } },
      { ...small, head: { ...small.head, recordHash: 'ab'.repeat(32) } },
      { ...small, policy: otherPolicy },
      { ...small, policy: null },
    ]) {
      expect(claimedLogState(edited, lineageId).size).toBe(claimed.size); // well-formed, so only the MAC tells
      await expect(authenticateHeadState(edited, { ...context({}), lineageId })).rejects.toThrow(/does not verify/);
    }
  });

  it('a small head that is not a well-formed state is refused: a planted signed checkpoint, a malformed hash, epoch or policy', async () => {
    const { stored } = await storedHeadOf(3);
    const small = await smallHeadOf(stored);
    for (const [edited, reason] of [
      [{ ...small, checkpoint: stored.checkpoint }, /signed checkpoint but no record header/],
      [{ ...small, head: { ...small.head, recordHash: '' } }, /record hash/],
      [{ ...small, head: { ...small.head, generationEpoch: -1 } }, /generation epoch/],
      [{ ...small, policy: { writers: 'x' } }, /policy is malformed/],
    ] as const) {
      expect(() => claimedLogState(edited, TEST_LINEAGE_ID)).toThrow(reason);
    }
  });
});
