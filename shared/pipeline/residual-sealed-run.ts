import { z } from 'zod';
import { HEX_DIGEST_PATTERN } from '../canonical/digest';
import { EpochMillis } from '../schemas/epoch-millis';
import { Identifier } from '../schemas/identifier';
import { NonNegativeInt } from '../schemas/non-negative-int';
import { LineageHeadSchema } from '../seal/lineage-head';
import { SealedTreeHeadSchema } from './sealed-tree-head';
import { SignedNoteText } from './signed-note-text';

/**
 * Most residuals one run of a `ResidualSealed` detail names: a sealer run appends at most 40
 * records (`MAX_RUN_RECORDS`, functions/sealer/seal-run.ts). With 200-character ids and a 16 KiB
 * checkpoint, a run stays far below EventBridge's 256 KiB entry, so one run always fits one event.
 */
export const MAX_SEALED_RUN_RESIDUALS = 40;

/** One residual a run announces: its id and the record that seals it. */
export const SealedResidualSchema = z.strictObject({
  residualId: Identifier,
  seq: NonNegativeInt,
  recordHash: z.string().regex(HEX_DIGEST_PATTERN, 'expected 64 lowercase hex characters (SHA-256)'),
  sealedAtMs: EpochMillis,
});
/** Type of {@link SealedResidualSchema}. */
export type SealedResidual = z.infer<typeof SealedResidualSchema>;

/**
 * One run of a `ResidualSealed` detail (docs/pipeline.md, "Message shapes"; strict): the records
 * one lineage's run sealed (or a redelivery re-announces) under one tree head. The head fields
 * ({@link LineageHeadSchema}: `lineageId, seq, recordHash, generationEpoch, mac, keyId`) are
 * the run's newest record, a head a client may check the lineage against (as trustworthy as the
 * bus's publishers, docs/sealing.md, "Checkpoints and trusted starts"); `residuals` lists
 * every residual announced, seq strictly ascending, the last one the head's record.
 * `sealedTreeHead` is the lineage tree the run stored, sealed and awaiting integration (`null`
 * only when a redelivery found no authenticated head), which holds the head's record: its
 * `treeSize` is at least `seq + 1`, exactly that for a run that sealed the tree's newest record,
 * more for a redelivery answered from an older one or the earlier part of a run cut at
 * {@link MAX_SEALED_RUN_RESIDUALS}; `checkpoint`, the run's signed lineage
 * checkpoint where the sealer signs one, else `null`.
 */
export const ResidualSealedRunSchema = LineageHeadSchema.extend({
  sealedTreeHead: SealedTreeHeadSchema.nullable(),
  checkpoint: SignedNoteText.nullable(),
  residuals: z.array(SealedResidualSchema).min(1).max(MAX_SEALED_RUN_RESIDUALS),
}).superRefine((run, ctx) => {
  for (const [i, residual] of run.residuals.entries()) {
    const before = run.residuals[i - 1];
    if (before && residual.seq <= before.seq) {
      ctx.addIssue({ code: 'custom', path: ['residuals', i, 'seq'], message: 'seqs must be strictly ascending' });
    }
  }
  if (run.sealedTreeHead && run.sealedTreeHead.treeSize <= run.seq) {
    ctx.addIssue({
      code: 'custom',
      path: ['sealedTreeHead', 'treeSize'],
      message: `the tree head must hold the head's record: treeSize ${run.sealedTreeHead.treeSize} is below seq ${run.seq} + 1`,
    });
  }
  const last = run.residuals.at(-1);
  if (last && (last.seq !== run.seq || last.recordHash !== run.recordHash)) {
    ctx.addIssue({
      code: 'custom',
      path: ['residuals', run.residuals.length - 1],
      message: "the last residual must be the head's record (its seq and recordHash)",
    });
  }
});
/** Type of {@link ResidualSealedRunSchema}. */
export type ResidualSealedRun = z.infer<typeof ResidualSealedRunSchema>;
