import { beforeAll, describe, expect } from 'vitest';
import { LineageKeys } from '../../../adapters/lineage-keys';
import type { ResidualWriteRequest } from '../../../shared/write/write-request';
import { acceptedWrite, sealGroup } from '../../helpers/emulator-lineages';
import { both, type Cell, itEachCell } from '../../helpers/tamper-matrix';
import { clientRecall, type ReadTarget, recallCli, type TrustedState } from '../../helpers/tamper-readers';
import { type Item, withJson } from '../../helpers/tamper-table';
import { attackContextOf, emulatorSetup, MANIFEST, type SealedLineage, sealLineage, tamperSealer } from './fixture';

// docs/verifiable-log.md, "Recall": the client reads the newest signed checkpoint itself, from the
// head item and not from the answer, and refuses an answer older than it. The table writer keeps
// the lineage intact (6 records) and rewrites every new triage answer into a genuine older one:
// TRIAGED, with the signed checkpoint of 4 records, record seq 3 and its honest inclusion proof.
// The readers recall the latest record, cold (no kept checkpoint) and with a kept store of size 4.

const setup = emulatorSetup();
let lineage: SealedLineage;
let other: SealedLineage;
/** The lineage as a reader with a kept checkpoint trusts it: the signed checkpoint of 4 records. */
let keptAt4: TrustedState;
/** The genuine answer of a recall of the latest record made at 4 records (seq 3), its item as stored. */
let answerAt4: Item;

const attackContext = () => attackContextOf(setup, lineage, other);

const cells: readonly Cell[] = [
  {
    attack: { target: 'triage report', attack: 'none (control), 6 records', apply: async () => {} },
    expect: { recall: both('exit 0 VERIFIED_INTACT'), 'client.recall': both('VERIFIED_INTACT') },
  },
  {
    attack: {
      target: 'triage report',
      attack:
        'rewrite each new answer into the genuine answer at 4 records (older signed checkpoint, seq 3, honest proof)',
      apply: async () => {},
    },
    target: () => ({
      onRecall: async (detail, triage) => {
        await triage();
        await setup.table.put({
          ...withJson(answerAt4, 'report', (answer) => ({ ...answer, requestId: detail.requestId })),
          sk: { S: detail.requestId },
        });
      },
    }),
    expect: { recall: both('exit 20 UNVERIFIED_TAMPER_RISK'), 'client.recall': both('UNVERIFIED_TAMPER_RISK') },
  },
];

describe('a replayed older triage answer, read with no kept checkpoint and with one of size 4', () => {
  beforeAll(async () => {
    [lineage, other] = await Promise.all([
      sealLineage(setup, 'tamper-replayed', [4]),
      sealLineage(setup, 'tamper-replayed-other', [1]),
    ]);
    keptAt4 = lineage.trusted;
    // A genuine answer at 4 records, taken from the table, then removed: every cell starts without reports.
    const base = baseOf();
    expect(await clientRecall.read(setup, base, false)).toBe('VERIFIED_INTACT');
    const reports = await setup.table.query(LineageKeys.triage(lineage.lineageId));
    expect(reports).toHaveLength(1);
    answerAt4 = reports[0] as Item;
    expect(JSON.parse(answerAt4.report?.S as string)).toMatchObject({ outcome: 'TRIAGED', seq: 3 });
    await setup.table.delete(answerAt4.pk?.S as string, answerAt4.sk?.S as string);
    // Two more records: the head item's signed checkpoint now covers 6.
    const nowMs = Date.now();
    const more = ['r-4', 'r-5'].map((r) => acceptedWrite(lineage.lineageId, r, MANIFEST, nowMs));
    expect(await sealGroup(tamperSealer(setup), more, nowMs)).toEqual(['SEALED', 'SEALED']);
    expect((await setup.store.logHead(lineage.lineageId))?.checkpoint).toContain(`\n6\n`);
  });

  itEachCell(cells, { setup, attackContext, base: baseOf, readers: [recallCli, clientRecall] });
});

function baseOf(): ReadTarget {
  return {
    lineageId: lineage.lineageId,
    trusted: keptAt4,
    recall: { latest: true },
    receiptSeq: 3,
    write: lineage.writes[3] as ResidualWriteRequest,
  };
}
