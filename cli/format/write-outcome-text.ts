import { isProvenSeal } from '../../client/proven-seal';
import { staleStateHints } from '../../client/stale-state-hints';
import type { WriteOutcome } from '../../client/write-outcomes';
import { FreshnessState } from '../../shared/integrator/record-freshness';
import { isoTime } from '../../shared/iso-time';
import { checkpointText } from './checkpoint-text';
import { conflictHeadFound } from './conflict-head-found';
import { fieldLines } from './field-lines';
import { freshnessLine } from './freshness';
import { rejectionDetailLines } from './rejection-detail-lines';

/** What the writer can do about a conflict, by reason. */
const CONFLICT_HINTS: Readonly<Record<string, string>> = {
  STALE_EPOCH: 'fenced out: a newer generation owns this lineage; do not retry with this epoch',
  LOST_RACE: 'the head kept moving: publish the write again (same residual id)',
  LINEAGE_INCONSISTENT:
    "the lineage's stored head disagrees with its records: run reseal verify --lineage; retrying cannot help",
};

/**
 * Where the record is proven: a signed lineage checkpoint, or a head the sealer MAC'd, whose MAC
 * no client can check (the table's word until the deployment log proves it).
 */
function proofText(outcome: Extract<WriteOutcome, { kind: 'SEALED' }>): string {
  const { leafIndex, treeSize } = outcome.proof;
  if (outcome.checkpoint !== null) return `leaf ${leafIndex} of the signed checkpoint of ${treeSize} records`;
  const where = `leaf ${leafIndex} of the head item's tree of ${treeSize} records (no signed checkpoint: the sealer's MAC, which this client cannot check)`;
  return outcome.freshness?.state === FreshnessState.PROVEN ? `${where}; PROVEN through the deployment log` : where;
}

/**
 * The `--checkpoint` to keep, only for a head the client could check (a signed checkpoint, or a
 * seal `PROVEN` through the deployment log): a head that is only the table's word must not become
 * the trusted head of later `verify` and `recall` runs (docs/cli.md, `publish --wait`).
 */
function checkpointAdvice(outcome: Extract<WriteOutcome, { kind: 'SEALED' }>): string {
  if (isProvenSeal(outcome))
    return `--checkpoint ${checkpointText(outcome.head)}  (keep it: detects a cut tail or a rewrite)`;
  return "none to keep: this head is the table's word (no signed checkpoint, not PROVEN through the deployment log)";
}

/** The outcome of `reseal publish --wait` as readable text. */
export function writeOutcomeText(outcome: WriteOutcome): string {
  switch (outcome.kind) {
    case 'SEALED': {
      const { head } = outcome;
      const fresh = freshnessLine(outcome.freshness);
      return fieldLines([
        ['outcome', 'SEALED'],
        ['seq', String(head.seq)],
        ['epoch', String(head.generationEpoch)],
        ['record hash', head.recordHash],
        ['proof', proofText(outcome)],
        ['checkpoint', checkpointAdvice(outcome)],
        ...(fresh ? ([['freshness', fresh]] as const) : []),
      ]);
    }
    case 'REJECTED': {
      const r = outcome.rejection;
      let text = fieldLines([
        ['outcome', `REJECTED by the ${r.stage === 'GUARD' ? 'guard' : 'sealer'} (signature verified)`],
        ['reason', r.reason],
        ['rejected variables', String(r.rejectedVariables.length)],
        ['request violations', String(r.requestViolations.length)],
        ['at', isoTime(r.atMs)],
      ]);
      text += rejectionDetailLines(r, '  ');
      for (const hint of staleStateHints({ isSafe: false, ...r })) text += `${hint}\n`;
      return text;
    }
    case 'CONFLICT': {
      const c = outcome.conflict;
      const found = conflictHeadFound(c);
      const hint = CONFLICT_HINTS[c.reason] ?? 'not appended: see reseal verify --lineage before writing again';
      return `${fieldLines([
        ['outcome', 'CONFLICT: not appended (signed by the sealer)'],
        ['reason', c.reason],
        ['detail', c.detail],
        ...(found ? ([['head found', found]] as const) : []),
        ['at', isoTime(c.atMs)],
      ])}${hint}\n`;
    }
  }
}
