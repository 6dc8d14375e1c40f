import { z } from 'zod';
import { ResidualSealedRunSchema } from './residual-sealed-run';
import { SEALER_BATCH_SIZE } from './sealer-batch-size';

/** `v` of a {@link ResidualSealedDetail}: 2, the detail of one event per sealer invocation (1 was one event per record). */
export const RESIDUAL_SEALED_VERSION = 2;

/**
 * Most runs one `ResidualSealed` detail carries: the sealer's batch size ({@link SEALER_BATCH_SIZE},
 * 10). One invocation settles at most that many messages, each announced as at most one record;
 * `residualSealedRuns` makes at most one run per record (a lineage's records under one tree head
 * share one), and the size split (`residualSealedDetails`) only moves runs into further details.
 * The split also cuts at this count, so a sealer driven with more messages (tests) still emits
 * details that parse. A consumer can thus refuse a detail no sealer wrote before walking it.
 */
export const MAX_RESIDUAL_SEALED_RUNS = SEALER_BATCH_SIZE;

/**
 * `detail` of a `ResidualSealed` event (docs/pipeline.md, "Message shapes"; strict): every run
 * one sealer invocation sealed or re-announced, one event per invocation (EventBridge bills per
 * entry), split only where one entry would pass EventBridge's 256 KiB (`residualSealedDetails`),
 * at most {@link MAX_RESIDUAL_SEALED_RUNS} runs. A write is proven once integrated: the deployment
 * chain, not this event, commits to it (docs/verifiable-log.md).
 *
 * A detail that contradicts itself is refused, so no reader has to pick one of two answers (as
 * `sealedRunHead` would, keeping the first): within one lineage, every residual (heads included,
 * each run's last residual being its head) at one seq names one `recordHash` and one
 * `residualId`, a residual id is at one seq (one record seals it), and runs under one tree size
 * name one root hash. The same record announced by two runs (a sealed run and a redelivery under
 * another tree head) is consistent and accepted.
 */
export const ResidualSealedDetailSchema = z
  .strictObject({
    v: z.literal(RESIDUAL_SEALED_VERSION),
    runs: z.array(ResidualSealedRunSchema).min(1).max(MAX_RESIDUAL_SEALED_RUNS),
  })
  .superRefine((detail, ctx) => {
    const bySeq = new Map<string, { recordHash: string; residualId: string }>();
    const seqOf = new Map<string, number>();
    const rootOf = new Map<string, string>();
    for (const [r, run] of detail.runs.entries()) {
      if (run.sealedTreeHead) {
        const key = JSON.stringify([run.lineageId, run.sealedTreeHead.treeSize]);
        const root = rootOf.get(key);
        if (root === undefined) rootOf.set(key, run.sealedTreeHead.rootHash);
        else if (root !== run.sealedTreeHead.rootHash) {
          ctx.addIssue({
            code: 'custom',
            path: ['runs', r, 'sealedTreeHead', 'rootHash'],
            message: `another run of lineage ${run.lineageId} names another root hash at tree size ${run.sealedTreeHead.treeSize}`,
          });
        }
      }
      for (const [i, residual] of run.residuals.entries()) {
        const path = ['runs', r, 'residuals', i];
        const atSeq = JSON.stringify([run.lineageId, residual.seq]);
        const seen = bySeq.get(atSeq);
        if (seen === undefined) bySeq.set(atSeq, residual);
        else if (seen.recordHash !== residual.recordHash) {
          ctx.addIssue({
            code: 'custom',
            path: [...path, 'recordHash'],
            message: `lineage ${run.lineageId} has two record hashes at seq ${residual.seq}`,
          });
        } else if (seen.residualId !== residual.residualId) {
          ctx.addIssue({
            code: 'custom',
            path: [...path, 'residualId'],
            message: `lineage ${run.lineageId} has two residual ids at seq ${residual.seq}`,
          });
        }
        const ofId = JSON.stringify([run.lineageId, residual.residualId]);
        const seq = seqOf.get(ofId);
        if (seq === undefined) seqOf.set(ofId, residual.seq);
        else if (seq !== residual.seq) {
          ctx.addIssue({
            code: 'custom',
            path: [...path, 'seq'],
            message: `residual id ${residual.residualId} is at seqs ${seq} and ${residual.seq} of lineage ${run.lineageId} (one record seals it)`,
          });
        }
      }
    }
  });
/** Type of {@link ResidualSealedDetailSchema}. */
export type ResidualSealedDetail = z.infer<typeof ResidualSealedDetailSchema>;
