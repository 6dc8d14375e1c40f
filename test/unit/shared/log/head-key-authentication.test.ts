import { describe, expect, it, vi } from 'vitest';
import { LogStateError } from '../../../../shared/errors';
import { checkpointOrigin } from '../../../../shared/log/checkpoint-origin';
import { HeadAuthentication } from '../../../../shared/log/head-authentication';
import { headKeyMac } from '../../../../shared/log/head-key-mac';
import { type HeadState, macHeadState } from '../../../../shared/log/head-state-mac';
import {
  authenticateHeadState,
  claimedLogState,
  headStateOf,
  type StoredLogHead,
} from '../../../../shared/log/log-state';
import { InMemoryLineageStore } from '../../../helpers/in-memory-lineage-store';
import { MemoryNoticeKey } from '../../../helpers/memory-notice-key';
import { appendSealed, TEST_LOG_KEY, TEST_LOG_NAME } from '../../../helpers/pipeline-keys';
import { buildChain, TEST_LINEAGE_ID, testAnchor } from '../../../helpers/seal-factories';

/** A head of `size` records with no signed checkpoint and no KMS MAC, and its head state. */
async function bareHead(size = 3): Promise<{ stored: StoredLogHead; head: HeadState }> {
  const store = new InMemoryLineageStore();
  const { records } = await buildChain(size);
  await appendSealed(store, records);
  const signed = (await store.logHead(TEST_LINEAGE_ID)) as StoredLogHead;
  const stored = { ...signed, checkpoint: null, headMac: null };
  return { stored, head: headStateOf(claimedLogState(stored, TEST_LINEAGE_ID)) as HeadState };
}

/** The heads's head-key MAC under `key`'s current data key. */
async function keyMacced(stored: StoredLogHead, head: HeadState, key: MemoryNoticeKey): Promise<StoredLogHead> {
  const { plaintext, blob } = await key.dataKey();
  return { ...stored, headKeyMac: { mac: headKeyMac(head, plaintext), keyBlob: blob } };
}

function context(opener: MemoryNoticeKey | { open: (blob: string) => Promise<Uint8Array | null> } | null) {
  const anchor = testAnchor();
  return {
    anchor,
    verifyMac: vi.spyOn(anchor, 'verifyMac'),
    context: {
      lineageId: TEST_LINEAGE_ID,
      origin: checkpointOrigin(TEST_LOG_NAME, TEST_LINEAGE_ID),
      key: TEST_LOG_KEY,
      anchor,
      opener,
      indexed: null,
    },
  };
}

describe('authenticateHeadState: the head-key MAC (docs/verifiable-log.md, "Appending")', () => {
  it('a genuine head-key MAC vouches (HEAD_KEY_MAC) with no VerifyMac: one open of its blob', async () => {
    const { stored, head } = await bareHead();
    const key = new MemoryNoticeKey();
    const c = context(key);
    const { state, authenticatedBy } = await authenticateHeadState(await keyMacced(stored, head, key), c.context);
    expect(authenticatedBy).toBe(HeadAuthentication.HEAD_KEY_MAC);
    expect(state.size).toBe(3);
    expect(state.checkpoint).toBeNull();
    expect(c.verifyMac).not.toHaveBeenCalled();
    expect(key.opened).toBe(1);
  });

  it('a blob that does not open (null), a MAC that does not verify, or no opener: the next voucher decides, never an error of its own', async () => {
    const { stored, head } = await bareHead();
    const key = new MemoryNoticeKey();
    const genuine = await keyMacced(stored, head, key);
    const keyMac = genuine.headKeyMac as NonNullable<StoredLogHead['headKeyMac']>;
    const flipped = Uint8Array.from(keyMac.mac);
    flipped[5] = (flipped[5] as number) ^ 1;
    const foreign = await keyMacced(stored, head, new MemoryNoticeKey());
    const cases: [string, StoredLogHead, MemoryNoticeKey | null][] = [
      ['MAC edited', { ...genuine, headKeyMac: { ...keyMac, mac: flipped } }, key],
      ['blob of another key', foreign, key],
      ['no opener', genuine, null],
    ];
    for (const [name, edited, opener] of cases) {
      // Nothing else vouches: refused.
      await expect(authenticateHeadState(edited, context(opener).context), name).rejects.toThrow(LogStateError);
      // A KMS head-state MAC beside it vouches.
      const c = context(opener);
      const withKms = { ...edited, headMac: await macHeadState(head, c.anchor) };
      expect((await authenticateHeadState(withKms, c.context)).authenticatedBy, name).toBe(HeadAuthentication.HEAD_MAC);
    }
  });

  it('a MAC of another state (another tree size, an older head) does not vouch for the claimed one', async () => {
    const key = new MemoryNoticeKey();
    const older = await bareHead(2);
    const { stored } = await bareHead(3);
    const olderMac = (await keyMacced(older.stored, older.head, key)).headKeyMac;
    await expect(authenticateHeadState({ ...stored, headKeyMac: olderMac }, context(key).context)).rejects.toThrow(
      /head-key MAC that does not verify/,
    );
  });

  it('an opener that throws (KMS unreachable) rejects with its error: retried, never taken as refused', async () => {
    const { stored, head } = await bareHead();
    const genuine = await keyMacced(stored, head, new MemoryNoticeKey());
    const throttled = Object.assign(new Error('rate exceeded'), { name: 'ThrottlingException' });
    const opener = {
      open: async () => {
        throw throttled;
      },
    };
    await expect(authenticateHeadState(genuine, context(opener).context)).rejects.toBe(throttled);
  });

  it('a blob the opener throws on (one a table writer chose) blocks no head another voucher vouches for; alone, its error is thrown', async () => {
    const { stored, head } = await bareHead();
    const key = new MemoryNoticeKey();
    const genuine = await keyMacced(stored, head, key);
    const keyMac = genuine.headKeyMac as NonNullable<StoredLogHead['headKeyMac']>;
    const odd = Object.assign(new Error('odd blob'), { name: 'NotFoundException' });
    const opener = {
      open: async () => {
        throw odd;
      },
    };
    const forged = { ...stored, headKeyMac: { ...keyMac, keyBlob: Buffer.alloc(200, 7).toString('base64') } };
    const c = context(opener);
    const withKms = { ...forged, headMac: await macHeadState(head, c.anchor) };
    expect((await authenticateHeadState(withKms, c.context)).authenticatedBy).toBe(HeadAuthentication.HEAD_MAC);
    const indexed = {
      treeSize: head.treeSize,
      rootHash: head.rootHash,
      headRecordHash: head.headRecordHash,
      generationEpoch: head.generationEpoch,
      writerPolicyDigest: head.writerPolicyDigest,
    };
    const byIndex = await authenticateHeadState(forged, { ...context(opener).context, indexed });
    expect(byIndex.authenticatedBy).toBe(HeadAuthentication.INDEX);
    await expect(authenticateHeadState(forged, context(opener).context)).rejects.toBe(odd);
  });
});
