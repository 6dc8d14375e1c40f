import { describe, expect, it, type TestContext, vi } from 'vitest';
import { MAC_BATCH_WAIT_MS } from '../../../../functions/sealer/mac-batcher';
import type { SealerDeps } from '../../../../functions/sealer/sealer-service';
import { StaleHeadError } from '../../../../shared/errors';
import { headStateBatchMessage } from '../../../../shared/log/head-state-batch';
import {
  type HeadState,
  type HeadStateMac,
  headStateDigest,
  macHeadState,
  verifyHeadStateMac,
} from '../../../../shared/log/head-state-mac';
import { claimedLogState, headStateOf, type StoredLogHead } from '../../../../shared/log/log-state';
import { headerBytes } from '../../../../shared/seal/record-header';
import { RememberedMacAnchor } from '../../../../shared/seal/remembered-mac-anchor';
import type { SealedRecord } from '../../../../shared/seal/sealed-record';
import { recordMacMessage } from '../../../../shared/seal/verify-record-mac';
import { lambdaContext, sealRequestBody, sqsEvent, sqsRecord } from '../../../helpers/factories';
import { expectGuarantee } from '../../../helpers/guarantees';
import { headKeyVouches } from '../../../helpers/head-key-check';
import type { MemoryNoticeKey } from '../../../helpers/memory-notice-key';
import { testAnchor } from '../../../helpers/seal-factories';
import { testSealerHandler } from '../../../helpers/service-factories';
import { testLineageId } from '../../../helpers/writer-factories';

const LINEAGES = Array.from({ length: 7 }, (_, i) => testLineageId(`lineage-batch-${i}`));
const [A, B, C] = LINEAGES as [string, string, string];

/**
 * The sealer handler as functions/sealer/handler.ts builds it (one service, its KMS anchor
 * remembered, for every warm invocation, a notice key in memory unless `noticeKey` says otherwise),
 * with the KMS calls of head-state messages counted (32 bytes; a record header never is).
 */
function warmSealer(deps: { readonly noticeKey?: SealerDeps['noticeKey'] } = {}) {
  const kms = testAnchor();
  const generateMac = vi.spyOn(kms, 'generateMac');
  const verifyMac = vi.spyOn(kms, 'verifyMac');
  const { store, handler, noticeKey, logger } = testSealerHandler({
    anchor: new RememberedMacAnchor(kms),
    sleep: async () => {},
    ...deps,
  });
  /** One invocation: residual id `residualId` to each of `lineages` (one FIFO group each). */
  const invoke = async (lineages: readonly string[], residualId: string) =>
    send(lineages.map((lineageId) => sqsRecord(sealRequestBody({ residualId, lineageId }), lineageId)));
  const send = (records: ReturnType<typeof sqsRecord>[]) => handler(sqsEvent(records), lambdaContext());
  // A record batch's message is 32 bytes too: the stored records' batch messages are told apart.
  const recordBatchMessages = () =>
    new Set(
      [...store.records.values()].flatMap((chain) =>
        [...chain.values()].flatMap((text) => {
          const record = JSON.parse(text) as SealedRecord;
          const message = recordMacMessage(record, headerBytes(record.header));
          return message === null || record.macBatch === undefined ? [] : [Buffer.from(message).toString('hex')];
        }),
      ),
    );
  const isHeadMessage = (message: Uint8Array) =>
    message.byteLength === 32 && !recordBatchMessages().has(Buffer.from(message).toString('hex'));
  const headMacs = () => generateMac.mock.calls.filter(([message]) => isHeadMessage(message)).length;
  const recordMacs = () => generateMac.mock.calls.length - headMacs();
  const headChecks = () => verifyMac.mock.calls.filter(([message]) => isHeadMessage(message)).length;
  const head = (lineageId: string) => {
    const stored = store.headSnapshot(lineageId) as StoredLogHead;
    return { stored, state: headStateOf(claimedLogState(stored, lineageId)) as HeadState };
  };
  /** Whether `lineageId`'s head is vouched for by its head-key MAC under this sealer's notice key. */
  const opener = deps.noticeKey === undefined ? noticeKey : deps.noticeKey;
  const vouched = async (lineageId: string) =>
    opener !== null && (await headKeyVouches(head(lineageId).stored, lineageId, opener));
  return {
    store,
    kms,
    noticeKey,
    logger,
    invoke,
    send,
    headMacs,
    recordMacs,
    headChecks,
    head,
    vouched,
    generateMac,
    verifyMac,
  };
}

/**
 * The heads of `lineages` stored under one batch head-state MAC (a batch of one: left in its single
 * form), as the sealer stored the heads of one invocation before it MAC'd them under its notice
 * data key: heads every reader still authenticates.
 */
async function batchMacHeads(s: ReturnType<typeof warmSealer>, lineages: readonly string[]): Promise<void> {
  const heads = [...new Set(lineages.map((lineageId) => headStateDigest(s.head(lineageId).state)))].sort();
  if (heads.length < 2) return;
  const mac: HeadStateMac = { ...(await s.kms.generateMac(headStateBatchMessage(heads))), heads };
  for (const lineageId of lineages) s.store.setLogHead(lineageId, (log) => ({ ...log, headMac: mac }));
}

describe('no KMS MAC for a head: the sealer MACs heads under its notice data key (docs/verifiable-log.md, "Appending"; docs/pipeline.md, "Concurrency")', () => {
  it('an invocation of 7 lineages makes one GenerateMac (its records) and none for their 7 head states; each head is vouched for by its head-key MAC', async () => {
    const s = warmSealer();
    expect((await s.invoke(LINEAGES, 'r-0')).batchItemFailures).toEqual([]);
    expect(s.headMacs()).toBe(0);
    expect(s.recordMacs()).toBe(1);
    expect(s.generateMac).toHaveBeenCalledTimes(1);
    for (const lineageId of LINEAGES) {
      expect(s.head(lineageId).stored.headMac).toBeNull();
      expect(await s.vouched(lineageId)).toBe(true);
    }
    expect((s.noticeKey as MemoryNoticeKey).generated).toBe(1);
  });

  it("the warm sealer's next invocation authenticates its heads by their head-key MACs: no VerifyMac, and again no head-state GenerateMac", async () => {
    const s = warmSealer();
    await s.invoke(LINEAGES, 'r-0');
    expect((await s.invoke(LINEAGES, 'r-1')).batchItemFailures).toEqual([]);
    expect(s.headChecks()).toBe(0);
    expect(s.headMacs()).toBe(0);
    expect(s.generateMac).toHaveBeenCalledTimes(2);
    expect(s.store.conflicts).toEqual([]);
    for (const lineageId of LINEAGES) expect(s.head(lineageId).state.treeSize).toBe(2);
  });

  it('never deadlocks: a group refused outright, one whose head does not authenticate and one whose append throws leave the record batch to the others', async () => {
    const s = warmSealer();
    await s.invoke([A, B, C], 'r-0');
    s.store.setLogHead(B, (log) => ({ ...log, frontier: ['ab'.repeat(32)] }));
    s.store.beforeAppend = (batch) => {
      if (batch.lineageId === C) throw new Error('DynamoDB unavailable');
    };
    const D = LINEAGES[3] as string;
    const records = [
      sqsRecord('not json', D), // refused at once: MALFORMED_JSON, no run
      ...[A, B, C].map((lineageId) => sqsRecord(sealRequestBody({ residualId: 'r-1', lineageId }), lineageId)),
    ];
    const response = await s.send(records);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([records[3]?.messageId]);
    expect(s.store.conflicts.map((c) => [c.lineageId, c.reason])).toEqual([[B, 'LINEAGE_INCONSISTENT']]);
    expect(s.head(A).state.treeSize).toBe(2);
    expect(await s.vouched(A)).toBe(true);
  });

  it('a retry after a lost race MACs its own new head; no MAC made for the failed append is stored', async () => {
    const s = warmSealer();
    let raced = false;
    s.store.beforeMoveHead = (move) => {
      if (move.lineageId === A && !raced) {
        raced = true;
        throw new StaleHeadError(A, null, null);
      }
    };
    expect((await s.invoke([A, B], 'r-0')).batchItemFailures).toEqual([]);
    expect(await s.vouched(A)).toBe(true);
    expect(await s.vouched(B)).toBe(true);
    expect(s.headMacs()).toBe(0);
  });

  it('no data key (GenerateDataKey refused): each head gets a KMS head-state MAC of its own, logged once, nothing refused; the next data key MACs heads again', async () => {
    let refused = true;
    const minted = { plaintext: new Uint8Array(32).fill(3), blob: Buffer.from('data key').toString('base64') };
    const noticeKey = {
      dataKey: async () => {
        if (refused) throw Object.assign(new Error('denied'), { name: 'AccessDeniedException' });
        return minted;
      },
      open: async (blob: string) => (blob === minted.blob ? minted.plaintext : null),
    };
    const s = warmSealer({ noticeKey });
    const warn = vi.spyOn(s.logger, 'warn');
    expect((await s.invoke([A, B, C], 'r-0')).batchItemFailures).toEqual([]);
    expect((await s.invoke([A, B, C], 'r-1')).batchItemFailures).toEqual([]);
    expect(s.store.conflicts).toEqual([]);
    expect(s.headMacs()).toBe(6);
    for (const lineageId of [A, B, C]) {
      const { state, stored } = s.head(lineageId);
      expect(stored.headKeyMac).toBeNull();
      expect(await verifyHeadStateMac(state, stored.headMac, s.kms)).toBe(true);
    }
    const noDataKey = warn.mock.calls.filter(([message]) => String(message).includes('no notice data key'));
    expect(noDataKey).toHaveLength(1);
    refused = false;
    expect((await s.invoke([A, B, C], 'r-2')).batchItemFailures).toEqual([]);
    expect(s.headMacs()).toBe(6);
    for (const lineageId of [A, B, C]) expect(await s.vouched(lineageId)).toBe(true);
  });
});

describe('the record batch has a deadline (MAC_BATCH_WAIT_MS after the first ask)', () => {
  it('a group whose head read hangs no longer holds the others: their heads move within the deadline; it gets a MAC of its own', async () => {
    const s = warmSealer();
    await s.invoke([A, B, C], 'r-0');
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const logHead = s.store.logHead.bind(s.store);
    s.store.logHead = async (lineageId: string) => {
      if (lineageId === C) await gate;
      return logHead(lineageId);
    };
    const started = Date.now();
    const done = s.invoke([A, B, C], 'r-1');
    const moved = () => s.store.heads.get(A)?.seq === 1 && s.store.heads.get(B)?.seq === 1;
    while (!moved() && Date.now() - started < MAC_BATCH_WAIT_MS + 2_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const movedAfterMs = Date.now() - started;
    const cBefore = s.store.heads.get(C)?.seq;
    release();
    expect((await done).batchItemFailures).toEqual([]);
    expect(moved()).toBe(true);
    expect(movedAfterMs).toBeLessThan(MAC_BATCH_WAIT_MS + 1_000);
    expect(cBefore).toBe(0);
    // The records of A and B in one batch, C's in one of its own.
    expect(s.recordMacs()).toBe(3);
    for (const lineageId of [A, B, C]) {
      expect(s.head(lineageId).state.treeSize).toBe(2);
      expect(await s.vouched(lineageId)).toBe(true);
    }
  });
});

describe('tampering with a batch head-state MAC (heads stored before head-key MACs), through the warm sealer (next run)', () => {
  /**
   * Seals r-0 to A, B and C in one invocation (no notice key: KMS MACs, stored as one batch MAC),
   * applies `edit` to A's head, sends r-1 to A and records the row.
   */
  const expectRefused = async (
    context: TestContext,
    attack: string,
    edit: (s: ReturnType<typeof warmSealer>, mac: HeadStateMac) => Promise<unknown>,
  ) => {
    const s = warmSealer({ noticeKey: null });
    await s.invoke([A, B, C], 'r-0');
    await batchMacHeads(s, [A, B, C]);
    const mac = s.head(A).stored.headMac as HeadStateMac;
    expect(mac.heads).toHaveLength(3);
    const headMac = await edit(s, mac);
    s.store.setLogHead(A, (log) => ({ ...log, headMac }));
    await s.invoke([A], 'r-1');
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'head',
        attack,
        reader: 'warm sealer (next run)',
        expected: 'LINEAGE_INCONSISTENT',
      },
      s.store.conflicts.at(-1)?.reason ?? 'no conflict',
    );
    expect(s.store.conflicts.at(-1)).toMatchObject({ lineageId: A, residualId: 'r-1' });
    expect(s.head(A).state.treeSize).toBe(1);
  };
  const own = (s: ReturnType<typeof warmSealer>) => headStateDigest(s.head(A).state);
  const other = 'ee'.repeat(32);

  it('a digest of the batch MAC’s heads swapped for another', async (context) => {
    await expectRefused(context, 'batch headMac: a digest of heads swapped', async (s, mac) => ({
      ...mac,
      heads: [...(mac.heads ?? []).filter((h) => h !== own(s)).slice(1), own(s), other].sort(),
    }));
  });

  it('a digest added to the batch MAC’s heads', async (context) => {
    await expectRefused(context, 'batch headMac: a digest added to heads', async (_, mac) => ({
      ...mac,
      heads: [...(mac.heads ?? []), other].sort(),
    }));
  });

  it('another lineage’s digest removed from the batch MAC’s heads', async (context) => {
    await expectRefused(context, 'batch headMac: a digest removed from heads', async (s, mac) => ({
      ...mac,
      heads: (mac.heads ?? [])
        .filter((h) => h !== own(s))
        .slice(1)
        .concat(own(s))
        .sort(),
    }));
  });

  it('a batch MAC of another invocation, naming other lineages’ heads, moved to the head item', async (context) => {
    await expectRefused(context, "another invocation's batch headMac moved onto the head", async (s) => {
      await s.invoke([B, C], 'r-1');
      await batchMacHeads(s, [B, C]);
      return s.head(B).stored.headMac;
    });
  });

  it('a heads list naming the state, beside the single-form MAC of that state', async (context) => {
    await expectRefused(context, 'heads naming the state beside its single-form MAC', async (s, mac) => ({
      ...(await macHeadState(s.head(A).state, s.kms)),
      heads: mac.heads,
    }));
  });
});
