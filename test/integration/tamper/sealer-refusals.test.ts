import { beforeAll, describe } from 'vitest';
import { LineageKeys } from '../../../adapters/lineage-keys';
import { acceptedWrite, sealGroup } from '../../helpers/emulator-lineages';
import { both, type Cell, itEachCell } from '../../helpers/tamper-matrix';
import { clientRecall, type Reader, type ReadTarget, recallCli, verifyLineageCli } from '../../helpers/tamper-readers';
import type { Attack } from '../../helpers/tamper-table';
import { partitionOf } from '../../helpers/tamper-table';
import {
  attackContextOf,
  emulatorSetup,
  MANIFEST,
  nextAppend,
  type SealedLineage,
  sealLineage,
  tamperSealer,
} from './fixture';

// The review of the honest sealer's and triage's answers (docs/verifiable-log.md, "Signed
// outcomes": a table writer can delay an answer, a time-out, never change it). The table writer
// edits what the sealer and triage look up beside the signed log: the head item's epoch, and
// residual-id markers. The sealer must never sign a refusal on the table's word (a STALE_EPOCH
// fencing an honest write out, a RESIDUAL_ID_REUSED of a write never sealed): what disagrees with
// the authenticated log is LINEAGE_INCONSISTENT. Triage must answer a recall whatever a marker
// says (a marker whose seq is no seq is a tamper verdict, never no answer at all).

const setup = emulatorSetup();
let lineage: SealedLineage;
let other: SealedLineage;
const attackContext = () => attackContextOf(setup, lineage, other);
const pk = partitionOf;

/** A cold sealer's outcome for one write of `residualId` (`fresh`: a new write; else the sealed one, redelivered). */
function sealerWrite(name: string, residualId: string, fresh: boolean): Reader {
  return {
    name,
    takesCheckpoint: false,
    exclusive: true,
    read: async () => {
      const nowMs = Date.now();
      const sealed = lineage.writes.find((w) => w.residualId === residualId);
      const write = fresh || !sealed ? acceptedWrite(lineage.lineageId, residualId, MANIFEST, nowMs) : sealed;
      const [outcome] = await sealGroup(tamperSealer(setup), [write], nowMs);
      return outcome as string;
    },
  };
}

const S = 'sealer (next append)';
const SD = 'sealer (write r-2 again, other content)';
const SN = 'sealer (write r-new2)';
const SR = 'sealer (redeliver r-3)';
const V = verifyLineageCli.name;
const R = recallCli.name;
const CR = clientRecall.name;
const readers = [
  nextAppend(setup, () => lineage.lineageId),
  sealerWrite(SN, 'r-new2', true),
  sealerWrite(SR, 'r-3', false),
  sealerWrite(SD, 'r-2', true),
  verifyLineageCli,
  recallCli,
  clientRecall,
];

// --- attacks, as data ---
const attacks = {
  none: { target: 'head and residual markers', attack: 'none (control)', apply: async () => {} },
  editHeadEpoch: {
    target: 'head',
    attack: 'edit the head item generationEpoch attribute (7 → 99)',
    apply: (c) => c.table.update(pk(c), LineageKeys.head, (item) => ({ ...item, generationEpoch: { N: '99' } })),
  },
  plantMarkerElsewhere: {
    target: 'residual marker',
    attack: 'insert a copy of the marker of r-2 (seq 2) as r-new2, its lineageId changed to zz',
    apply: async (c) =>
      c.table.put({
        ...(await c.table.get(pk(c), LineageKeys.residualSk('r-2'))),
        sk: { S: LineageKeys.residualSk('r-new2') },
        lineageId: { S: 'zz' },
      }),
  },
  plantMarkerHere: {
    target: 'residual marker',
    attack: 'insert a copy of the marker of r-2 (seq 2) as r-new2, naming this lineage',
    apply: async (c) =>
      c.table.put({
        ...(await c.table.get(pk(c), LineageKeys.residualSk('r-2'))),
        sk: { S: LineageKeys.residualSk('r-new2') },
      }),
  },
  markerSeqAbove2to53: {
    target: 'residual marker',
    attack: 'edit the marker of r-3 to seq 2^53 + 1 (not a safe integer)',
    apply: (c) =>
      c.table.update(pk(c), LineageKeys.residualSk('r-3'), (item) => ({ ...item, seq: { N: '9007199254740993' } })),
  },
  deleteMarker: {
    target: 'residual marker',
    attack: 'delete the marker of r-2',
    apply: (c) => c.table.delete(pk(c), LineageKeys.residualSk('r-2')),
  },
  deleteMarkerThenReseal: {
    target: 'residual marker',
    attack: 'delete the marker of r-2, then the honest sealer takes a new write of r-2',
    apply: async (c) => {
      await c.table.delete(pk(c), LineageKeys.residualSk('r-2'));
      const nowMs = Date.now();
      await sealGroup(tamperSealer(setup), [acceptedWrite(c.lineageId, 'r-2', MANIFEST, nowMs)], nowMs);
    },
  },
} satisfies Record<string, Attack>;

const intact = both('exit 0 VERIFIED_INTACT');
const cells: readonly Cell[] = [
  {
    attack: attacks.none,
    expect: {
      [S]: 'SEALED',
      [SN]: 'SEALED',
      [SR]: 'DUPLICATE',
      [SD]: 'REJECTED RESIDUAL_ID_REUSED',
      [V]: intact,
      [R]: intact,
      [CR]: both('VERIFIED_INTACT'),
    },
  },
  {
    // The epoch the sealer fences against is the signed head record's (its header, which the
    // checkpoint covers): a head item claiming another is not the signed state, so the sealer
    // extends nothing (LINEAGE_INCONSISTENT, not a STALE_EPOCH), and the audit, which checks the
    // head item as the sealer will authenticate it, says why writes are refused.
    attack: attacks.editHeadEpoch,
    expect: { [S]: 'CONFLICT LINEAGE_INCONSISTENT', [V]: both('exit 20 LINEAGE_BROKEN') },
  },
  {
    // A marker stored under this lineage that names another: not a seal of r-new2 in this one.
    attack: attacks.plantMarkerElsewhere,
    expect: { [SN]: 'CONFLICT LINEAGE_INCONSISTENT', [V]: intact },
  },
  {
    // The record at seq 2 is proven, but it seals r-2: r-new2 was never sealed, so never "reused".
    attack: attacks.plantMarkerHere,
    expect: { [SN]: 'CONFLICT LINEAGE_INCONSISTENT', [V]: intact },
  },
  {
    // No record can sit at a seq that is not a safe integer: triage answers that the marker is
    // broken, unproven; the client then searches past the marker as past a deleted one, and the
    // index proves r-3 sealed at its seq: the hidden-seal finding (docs/verifiable-log.md,
    // "Recall"). The sealer refuses to take the marker for a seal of r-3.
    attack: attacks.markerSeqAbove2to53,
    expect: {
      [SR]: 'CONFLICT LINEAGE_INCONSISTENT',
      [R]: both('exit 20 UNVERIFIED_TAMPER_RISK'),
      [CR]: both('UNVERIFIED_TAMPER_RISK'),
      [V]: intact,
    },
  },
  {
    // The documented limit (docs/verifiable-log.md, "The limits"): the sealer learns that a
    // residual id is sealed from its marker; the signed log has no index by residual id, so a
    // deleted marker cannot be told from an id never written, and the honest sealer seals the
    // id again. The next row shows that every audit then reports it.
    attack: attacks.deleteMarker,
    expect: { [SD]: 'SEALED', [V]: intact },
  },
  {
    // The second record of r-2 is in the signed log, and every walk of the chain reports it.
    attack: attacks.deleteMarkerThenReseal,
    expect: { [V]: both('exit 20 SEQUENCE_REPLAYED') },
  },
];

describe("tampering with what the sealer and triage look up beside the signed log (the sealer's refusals)", () => {
  beforeAll(async () => {
    [lineage, other] = await Promise.all([
      sealLineage(setup, 'tamper-sr', [4]),
      sealLineage(setup, 'tamper-sr-other', [2]),
    ]);
  });

  itEachCell(cells, {
    setup,
    attackContext,
    base: (): ReadTarget => ({
      lineageId: lineage.lineageId,
      trusted: lineage.trusted,
      recall: { residualId: 'r-3' },
      receiptSeq: 3,
      write: lineage.writes[3] as ReadTarget['write'],
    }),
    readers,
  });
});
