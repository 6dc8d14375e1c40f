import { beforeEach, describe, expect, it } from 'vitest';
import { SealerService } from '../../../../functions/sealer/sealer-service';
import { HeadNotMovedError } from '../../../../shared/errors';
import type { SealedRunNotice } from '../../../../shared/integrator/sealed-run-notice';
import { HeadLayout } from '../../../../shared/ports/head-layout';
import { SealedRecordSchema } from '../../../../shared/seal/sealed-record';
import { verifyChain } from '../../../../shared/seal/verify-chain';
import { sealRequestMessages } from '../../../helpers/factories';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import { forgerAnchor } from '../../../helpers/seal-factories';
import { testSealerDeps } from '../../../helpers/service-factories';

const LINEAGE = FACTORY_LINEAGE_ID;

/** A sealer over an in-memory table, its notices kept; `cold()` is another instance on the same table. */
function setup() {
  const notices: SealedRunNotice[] = [];
  const deps = {
    ...testSealerDeps(),
    notifier: {
      notify: async (sent: readonly SealedRunNotice[]) => {
        notices.push(...sent);
        return [];
      },
    },
    signLineageCheckpoints: layout === HeadLayout.COMPATIBLE,
  };
  deps.store.headLayout = layout;
  const message = sealRequestMessages();
  const service = new SealerService(deps);
  return {
    ...deps,
    notices,
    service,
    message,
    cold: () => new SealerService(deps),
    conflicts: () => deps.store.conflicts,
  };
}

/** Seals `ids` one write each, then the next write's records land and the sealer crashes before its head move. */
async function crashedAfter(s: ReturnType<typeof setup>, ids: readonly string[], crashed: readonly string[]) {
  for (const id of ids) expect((await s.service.handle(s.message(id))).kind).toBe('SEALED');
  s.store.crashAfterRecords = crashed.length;
  await expect(s.service.handleGroup(crashed.map((id) => s.message(id)))).rejects.toThrow('crashed');
}

const residualIdsOf = (chain: unknown[]) =>
  chain.map((r) => (r as { header: { residualId: string } }).header.residualId);

let layout: HeadLayout = HeadLayout.SMALL;

// The small head (MAC only: the deployed sealer's) and the compatible one (with a signed checkpoint).
describe.each([HeadLayout.SMALL, HeadLayout.COMPATIBLE])(
  'the roll-forward (docs/sealing.md, "The roll-forward"), %s heads',
  (headLayout) => {
    beforeEach(() => {
      layout = headLayout;
    });

    it('a crash between the record puts and the head move: the next run moves the head to the records first (their notice, their markers), then seals after them', async () => {
      const s = setup();
      await crashedAfter(s, ['r-0'], ['r-1', 'r-2']);
      expect((await s.store.head(LINEAGE))?.seq).toBe(0);
      expect(s.store.records.get(LINEAGE)?.size).toBe(3);
      const noticesBefore = s.notices.length;
      const outcome = await s.cold().handle(s.message('r-3'));
      expect(outcome).toMatchObject({ kind: 'SEALED', head: { seq: 3 } });
      // The head move of the roll-forward, then the append's.
      expect(
        s.notices.slice(noticesBefore).map((n) => [n.head.treeSize, n.residuals.map((r) => r.residualId)]),
      ).toEqual([
        [3, ['r-1', 'r-2']],
        [4, ['r-3']],
      ]);
      expect(await s.store.findByResidualId(LINEAGE, 'r-2')).toEqual({ lineageId: LINEAGE, seq: 2 });
      // The head item as the layout writes it: the small head carries no tip header.
      expect(s.store.logHeads.get(LINEAGE)?.header === null).toBe(layout === HeadLayout.SMALL);
      const chain = await s.store.readChain(LINEAGE, 0, 10);
      expect(residualIdsOf(chain)).toEqual(['r-0', 'r-1', 'r-2', 'r-3']);
      expect((await verifyChain(chain, { lineageId: LINEAGE, anchor: s.anchor })).verdict).toBe('VERIFIED_INTACT');
      expect(s.conflicts()).toEqual([]);
    });

    it('the records past the head are read after the head item, once a strong read, and rolled forward from that read (the tentative copies that showed them decide nothing)', async () => {
      const s = setup();
      await crashedAfter(s, ['r-0'], ['r-1', 'r-2']);
      const reads: string[] = [];
      const logHead = s.store.logHead.bind(s.store);
      const readChain = s.store.readChain.bind(s.store);
      const copy = (options?: { eventual?: boolean }) => (options?.eventual ? ' (copy)' : '');
      s.store.logHead = async (lineageId, options) => {
        const head = await logHead(lineageId);
        reads.push(`head ${head?.head.seq}${copy(options)}`);
        return head;
      };
      s.store.readChain = async (lineageId, fromSeq, toSeq, options) => {
        reads.push(`chain from ${fromSeq}${copy(options)}`);
        return readChain(lineageId, fromSeq, toSeq);
      };
      expect(await s.cold().handle(s.message('r-3'))).toMatchObject({ kind: 'SEALED', head: { seq: 3 } });
      expect(reads).toEqual(['head 0 (copy)', 'chain from 1 (copy)', 'head 0', 'chain from 1']);
      expect(residualIdsOf(await s.store.readChain(LINEAGE, 0, 10))).toEqual(['r-0', 'r-1', 'r-2', 'r-3']);
    });

    it('a failed read of the records past the head beside the index floor fails nothing: they are read again after the authentication, and rolled forward', async () => {
      const s = setup();
      await crashedAfter(s, ['r-0'], ['r-1']);
      const readChain = s.store.readChain.bind(s.store);
      let failures = 1;
      s.store.readChain = async (lineageId, fromSeq, toSeq) => {
        if (failures-- > 0) throw new Error('throttled');
        return readChain(lineageId, fromSeq, toSeq);
      };
      expect(await s.cold().handle(s.message('r-2'))).toMatchObject({ kind: 'SEALED', head: { seq: 2 } });
      expect(residualIdsOf(await s.store.readChain(LINEAGE, 0, 10))).toEqual(['r-0', 'r-1', 'r-2']);
      expect(s.conflicts()).toEqual([]);
    });

    it('a crash of the first append (records, no head item): rolled forward from genesis when no index holds the lineage', async () => {
      const s = setup();
      await crashedAfter(s, [], ['r-0']);
      expect(await s.store.head(LINEAGE)).toBeNull();
      expect(await s.cold().handle(s.message('r-0'))).toMatchObject({ kind: 'DUPLICATE', head: { seq: 0 } });
      expect((await s.store.head(LINEAGE))?.seq).toBe(0);
      expect(s.store.records.get(LINEAGE)?.size).toBe(1);
    });

    it('the head move of a roll-forward lost to another sealer (which rolled forward first): re-read, then sealed on its head', async () => {
      const s = setup();
      await crashedAfter(s, ['r-0'], ['r-1']);
      const rival = s.cold();
      let raced = false;
      s.store.beforeMoveHead = async () => {
        if (raced) return;
        raced = true;
        s.store.beforeMoveHead = null;
        expect(await rival.handle(s.message('r-rival'))).toMatchObject({ kind: 'SEALED', head: { seq: 2 } });
      };
      expect(await s.cold().handle(s.message('r-3'))).toMatchObject({ kind: 'SEALED', head: { seq: 3 }, attempts: 2 });
      const chain = await s.store.readChain(LINEAGE, 0, 10);
      expect(residualIdsOf(chain)).toEqual(['r-0', 'r-1', 'r-rival', 'r-3']);
      expect((await verifyChain(chain, { lineageId: LINEAGE, anchor: s.anchor })).verdict).toBe('VERIFIED_INTACT');
    });

    it("a record past the head whose MAC does not verify (not the sealer's) is never rolled forward: LINEAGE_INCONSISTENT, head unmoved, nothing sealed", async () => {
      const s = setup();
      await crashedAfter(s, ['r-0', 'r-1'], ['r-2']);
      // Intact (its hashes recompute: the MAC is outside the header), but its MAC is another key's.
      const stored = SealedRecordSchema.parse(await s.store.readRecord(LINEAGE, 2));
      const forged = await forgerAnchor().generateMac(Buffer.from(stored.recordHash, 'hex'));
      s.store.records
        .get(LINEAGE)
        ?.set(2, JSON.stringify({ ...stored, anchor: { ...stored.anchor, mac: forged.mac } }));
      const outcome = await s.cold().handle(s.message('r-honest'));
      expect(outcome).toEqual({ kind: 'CONFLICT', reason: 'LINEAGE_INCONSISTENT' });
      expect(s.conflicts()[0]?.detail).toContain('the MAC of the record stored at seq 2 does not verify');
      expect((await s.store.head(LINEAGE))?.seq).toBe(1);
      expect(await s.store.findByResidualId(LINEAGE, 'r-honest')).toBeNull();
      expect(await s.store.findByResidualId(LINEAGE, 'r-2')).toBeNull();
    });

    it('41 records past the head (more than one run, which no crash leaves): LINEAGE_INCONSISTENT, nothing moved', async () => {
      const s = setup();
      await s.service.handle(s.message('r-0'));
      const ids = Array.from({ length: 41 }, (_, i) => `r-${i + 1}`);
      // Two crashed runs (40, then 1 record): the first is never rolled forward before the second lands.
      s.store.crashAfterRecords = 40;
      await expect(s.service.handleGroup(ids.slice(0, 40).map((id) => s.message(id)))).rejects.toThrow('crashed');
      const head = s.store.headSnapshot(LINEAGE);
      await s.cold().handle(s.message('r-41'));
      if (!head) throw new Error('no head');
      s.store.restoreHead(LINEAGE, head);
      expect(s.store.records.get(LINEAGE)?.size).toBe(42);
      const headMovesBefore = s.store.headMoves;
      const outcome = await s.cold().handle(s.message('r-next'));
      expect(outcome).toEqual({ kind: 'CONFLICT', reason: 'LINEAGE_INCONSISTENT' });
      expect(s.conflicts().at(-1)?.detail).toContain('more than 40 records are stored past the head item');
      expect(s.store.headMoves).toBe(headMovesBefore);
      expect((await s.store.head(LINEAGE))?.seq).toBe(0);
    }, 120_000);

    it('a gap among the records past the head (one deleted): LINEAGE_INCONSISTENT, nothing rolled forward', async () => {
      const s = setup();
      await crashedAfter(s, ['r-0'], ['r-1', 'r-2', 'r-3']);
      s.store.deleteRecord(LINEAGE, 2);
      const outcome = await s.cold().handle(s.message('r-next'));
      expect(outcome).toEqual({ kind: 'CONFLICT', reason: 'LINEAGE_INCONSISTENT' });
      expect(s.conflicts()[0]?.detail).toContain('where seq 2 belongs is seq 3');
      expect((await s.store.head(LINEAGE))?.seq).toBe(0);
    });

    it('a record past the head whose stored tree nodes are edited: not rolled forward (a proof would fail there); its write is retried, never refused', async () => {
      const s = setup();
      await crashedAfter(s, ['r-0'], ['r-1']);
      s.store.setNodes(LINEAGE, 1, ['0'.repeat(64), '1'.repeat(64)]);
      await expect(s.cold().handle(s.message('r-1'))).rejects.toBeInstanceOf(HeadNotMovedError);
      expect(s.conflicts()).toEqual([]);
      expect(await s.cold().handle(s.message('r-other'))).toEqual({ kind: 'CONFLICT', reason: 'LINEAGE_INCONSISTENT' });
      expect(s.conflicts()[0]?.detail).toContain('tree nodes stored with the record at seq 1');
    });

    // docs/sealing.md, "The write": the table writer can hide a landed record from any read the
    // sealer makes, so a redelivered write is never refused; it is retried until a run rolls it forward.
    const hidden: readonly [string, (s: ReturnType<typeof setup>) => () => void][] = [
      [
        'a head item claiming a far seq (its MAC fails; the records past it are not read)',
        (s) => {
          const genuine = s.store.headSnapshot(LINEAGE);
          const head = s.store.heads.get(LINEAGE);
          if (!head || !genuine) throw new Error('no head');
          s.store.setHead({ ...head, seq: 500 });
          return () => s.store.restoreHead(LINEAGE, genuine);
        },
      ],
    ];
    it.each(hidden)(
      'a redelivered write whose record landed is never refused when the table writer hides it: %s',
      async (_what, hide) => {
        const s = setup();
        await crashedAfter(s, ['r-0'], ['r-1']);
        const restore = hide(s);
        const error = await s
          .cold()
          .handle(s.message('r-1', 2))
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(HeadNotMovedError);
        expect(s.conflicts()).toEqual([]);
        expect(s.publisher.rejected).toEqual([]);
        restore();
        expect(await s.cold().handle(s.message('r-1', 3))).toMatchObject({ kind: 'DUPLICATE' });
        expect(await s.cold().handle(s.message('r-2'))).toMatchObject({ kind: 'SEALED', head: { seq: 2 } });
        expect(residualIdsOf(await s.store.readChain(LINEAGE, 0, 10))).toEqual(['r-0', 'r-1', 'r-2']);
      },
    );

    it('a redelivered write behind a broken record is never refused: the MAC-verified record after it stands', async () => {
      const s = setup();
      await crashedAfter(s, ['r-0'], ['r-1', 'r-2']);
      const saved = s.store.records.get(LINEAGE)?.get(1);
      if (!saved) throw new Error('no record');
      s.store.tamperRecord(LINEAGE, 1, (r) => {
        r.recordHash = '0'.repeat(64);
      });
      const error = await s
        .cold()
        .handle(s.message('r-2', 2))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HeadNotMovedError);
      expect(s.conflicts()).toEqual([]);
      s.store.records.get(LINEAGE)?.set(1, saved);
      expect(await s.cold().handle(s.message('r-3'))).toMatchObject({ kind: 'SEALED', head: { seq: 3 } });
      expect(residualIdsOf(await s.store.readChain(LINEAGE, 0, 10))).toEqual(['r-0', 'r-1', 'r-2', 'r-3']);
    });

    it('docs/sealing.md "The write": a head move that fails on every try ends the run retryably; no LOST_RACE is signed for a write whose record landed', async () => {
      const s = setup();
      await s.service.handle(s.message('r-0'));
      s.store.beforeMoveHead = () => {
        const head = s.store.heads.get(LINEAGE);
        if (head) s.store.setHead({ ...head, recordHash: 'f'.repeat(64) });
      };
      const restore = s.store.headSnapshot(LINEAGE);
      const logHead = s.store.logHead.bind(s.store);
      s.store.logHead = async (lineageId) => {
        if (restore) s.store.restoreHead(lineageId, restore);
        return logHead(lineageId);
      };
      const error = await s.service.handle(s.message('r-1')).catch((e) => e);
      expect(error).toBeInstanceOf(HeadNotMovedError);
      expect(error.residualIds).toEqual(['r-1']);
      expect(s.conflicts()).toEqual([]);
      expect(s.publisher.rejected).toEqual([]);
      expect(s.publisher.sealedResiduals.map((e) => e.residualId)).toEqual(['r-0']);
    });
  },
);
