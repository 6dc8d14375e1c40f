import type { LineageHead } from '../seal/lineage-head';
import { MAX_SEALED_RUN_RESIDUALS, type ResidualSealedRun } from './residual-sealed-run';
import type { SealedTreeHead } from './sealed-tree-head';

/**
 * One record a sealer invocation announces: sealed by a run, or found sealed already by a
 * redelivery of its write (its head: the record's own lineage head, `lineageHeadOf`).
 */
export interface SealedAnnouncement {
  readonly head: LineageHead;
  readonly residualId: string;
  /** When the record was sealed, ms since the epoch (its header's `sealedAtMs`). */
  readonly sealedAtMs: number;
  /** The tree head of the run that stored it (or the state a redelivery read), `null` when none authenticated. */
  readonly sealedTreeHead: SealedTreeHead | null;
  readonly checkpoint: string | null;
}

/**
 * The runs of a `ResidualSealed` detail that announce `announcements` (docs/pipeline.md, "Message
 * shapes"): those of one lineage under one tree head and checkpoint make one run, in seq order, a
 * record announced twice (a write delivered twice in one invocation) named once, the head the
 * newest record's; a run over {@link MAX_SEALED_RUN_RESIDUALS} residuals is cut into consecutive
 * runs, each headed by its own newest record. Runs come in the order their first announcement came.
 */
export function residualSealedRuns(announcements: readonly SealedAnnouncement[]): ResidualSealedRun[] {
  const groups = new Map<string, { first: SealedAnnouncement; bySeq: Map<number, SealedAnnouncement> }>();
  for (const announcement of announcements) {
    const { head, sealedTreeHead, checkpoint } = announcement;
    const key = JSON.stringify([head.lineageId, sealedTreeHead, checkpoint]);
    let group = groups.get(key);
    if (!group) {
      group = { first: announcement, bySeq: new Map() };
      groups.set(key, group);
    }
    if (!group.bySeq.has(head.seq)) group.bySeq.set(head.seq, announcement);
  }
  const runs: ResidualSealedRun[] = [];
  for (const { first, bySeq } of groups.values()) {
    const ordered = [...bySeq.values()].sort((a, b) => a.head.seq - b.head.seq);
    for (let from = 0; from < ordered.length; from += MAX_SEALED_RUN_RESIDUALS) {
      const chunk = ordered.slice(from, from + MAX_SEALED_RUN_RESIDUALS);
      const newest = chunk.at(-1) as SealedAnnouncement;
      runs.push({
        ...newest.head,
        sealedTreeHead: first.sealedTreeHead,
        checkpoint: first.checkpoint,
        residuals: chunk.map(({ head, residualId, sealedAtMs }) => ({
          residualId,
          seq: head.seq,
          recordHash: head.recordHash,
          sealedAtMs,
        })),
      });
    }
  }
  return runs;
}
