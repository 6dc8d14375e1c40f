import { describe, expect, it } from 'vitest';
import { LogStateError } from '../../../../shared/errors';
import type { LineageIndexValue } from '../../../../shared/index/index-entry';
import { type HeadState, macHeadState } from '../../../../shared/log/head-state-mac';
import { checkpointOrigin } from '../../../../shared/log/log-names';
import {
  authenticateHeadState,
  claimedLogState,
  HeadAuthentication,
  headStateOf,
  type StoredLogHead,
} from '../../../../shared/log/log-state';
import { InMemoryLineageStore } from '../../../helpers/in-memory-lineage-store';
import { appendSealed, TEST_LOG_KEY, TEST_LOG_NAME } from '../../../helpers/pipeline-keys';
import { buildChain, TEST_LINEAGE_ID, testAnchor } from '../../../helpers/seal-factories';

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
});
