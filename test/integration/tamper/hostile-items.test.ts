import { beforeAll, describe, expect } from 'vitest';
import { LineageKeys } from '../../../adapters/lineage-keys';
import type { ResidualWriteRequest } from '../../../shared/write/write-request';
import { acceptedWrite, sealGroup } from '../../helpers/emulator-lineages';
import { both, type Cell, itEachCell } from '../../helpers/tamper-matrix';
import { mcpInspect } from '../../helpers/tamper-mcp-readers';
import {
  clientVerifyExport,
  clientVerifyLineage,
  exportThenVerifyCli,
  inspectLineageCli,
  inspectRefusalsCli,
  inspectTextCli,
  type ReadTarget,
  verifyLineageCli,
  verifyLineageKeptCli,
} from '../../helpers/tamper-readers';
import type { Attack, AttackContext, Item } from '../../helpers/tamper-table';
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

// A reviewer's attack as the table writer: items whose attributes are of the wrong kind or out of
// range (a head seq of 1e100 or stored as text, a frontier that is no list, a refusal whose lists
// are junk, a refusal message carrying terminal escapes). Every reader answers with a verdict
// (docs/cli.md: exit 20, tamper detected or unverifiable), within bounds, never a crash (exit 1)
// nor forged text shown raw. Before the fix the walks read towards seq 1e100 and never answered,
// the log check crashed on the frontier (`frontierHex.every is not a function`), and inspect
// crashed on the junk lists.

const setup = emulatorSetup();
let lineage: SealedLineage;
let other: SealedLineage;
/** A write the sealer refused (`RESIDUAL_ID_REUSED`), its rejection signed. */
let reused: ResidualWriteRequest;

const attackContext = () => attackContextOf(setup, lineage, other);
const pk = partitionOf;
const editHead = (c: AttackContext, edit: (item: Item) => Item) => c.table.update(pk(c), LineageKeys.head, edit);
/** The genuine signed rejection of `reused`. */
const genuineRejection = async (c: AttackContext): Promise<Item> => {
  const items = await c.table.query(LineageKeys.rejection(c.lineageId));
  expect(items).toHaveLength(1);
  return items[0] as Item;
};
/** A copy of the genuine rejection, later by `laterMs`, with `edit` applied (its statement no longer checks). */
const plantCopy = async (c: AttackContext, laterMs: number, edit: Record<string, Item[string]>) => {
  const genuine = await genuineRejection(c);
  const atMs = Number(genuine.atMs?.N) + laterMs;
  await c.table.put({
    ...genuine,
    ...edit,
    sk: { S: `${genuine.sk?.S}#copy-${laterMs}` },
    atMs: { N: String(atMs) },
  });
};
/** A forged message: a newline, ANSI "cursor up, erase line", and a fake signed listing row. */
const FORGED_MESSAGE =
  'x\n\u001b[1A\u001b[2K  2026-01-01T00:00:00.000Z  SEALER  RESIDUAL_ID_REUSED  residual r-1  message m  (signature verified)';

const attacks = {
  headSeqHuge: {
    target: 'head',
    attack: 'head seq {"N":"1e100"} (not a safe integer)',
    apply: (c) => editHead(c, (item) => ({ ...item, seq: { N: '1e100' } })),
  },
  headSeqFar: {
    target: 'head',
    attack: 'head seq {"N":"9007199254740991"} (the largest safe integer, far past the records)',
    apply: (c) => editHead(c, (item) => ({ ...item, seq: { N: String(Number.MAX_SAFE_INTEGER) } })),
  },
  headSeqText: {
    target: 'head',
    attack: 'head seq stored as text {"S":"3"}',
    apply: (c) => editHead(c, (item) => ({ ...item, seq: { S: '3' } })),
  },
  frontierNotList: {
    target: 'head',
    attack: 'head frontier {"S":"\\"x\\""} (JSON, but no list)',
    apply: (c) => editHead(c, (item) => ({ ...item, frontier: { S: '"x"' } })),
  },
  rejectionVariablesNumber: {
    target: 'rejection',
    attack: 'a copy of the signed rejection with rejectedVariables {"S":"5"}',
    apply: (c) => plantCopy(c, 1, { rejectedVariables: { S: '5' } }),
  },
  rejectionVariablesNull: {
    target: 'rejection',
    attack: 'a copy of the signed rejection with rejectedVariables {"S":"[null]"}',
    apply: (c) => plantCopy(c, 1, { rejectedVariables: { S: '[null]' } }),
  },
  rejectionEscapes: {
    target: 'rejection',
    attack: 'a copy of the signed rejection whose issue message holds a newline, ANSI escapes and a fake signed row',
    apply: (c) => plantCopy(c, 1, { issues: { S: JSON.stringify([{ path: '', message: FORGED_MESSAGE }]) } }),
  },
} satisfies Record<string, Attack>;

const V = verifyLineageCli.name;
const VK = verifyLineageKeptCli.name;
const I = inspectLineageCli.name;
const E = exportThenVerifyCli.name;
const CV = clientVerifyLineage.name;
const XV = clientVerifyExport.name;
const IR = inspectRefusalsCli.name;
const IT = inspectTextCli.name;
const MI = mcpInspect.name;
const S = 'sealer (next append)';

/** The junk copy listed after the genuine rejection, unsigned, beside the intact timeline. */
const listedUnsigned = {
  [IR]: 'exit 0 rejections [RESIDUAL_ID_REUSED signed, RESIDUAL_ID_REUSED unsigned] conflicts []',
  [MI]: both('VERIFIED_INTACT rejections [RESIDUAL_ID_REUSED signed, RESIDUAL_ID_REUSED unsigned] conflicts []'),
  [IT]: 'exit 0 VERIFIED_INTACT; 1 row(s) marked signed, 1 marked NOT signed; no raw control characters',
};

const cells: readonly Cell[] = [
  {
    // docs/cli.md: a head seq that is not a sequence number is malformed, LINEAGE_BROKEN; the
    // export refuses it rather than write a file its verifier calls bad input.
    attack: attacks.headSeqHuge,
    expect: {
      [V]: both('exit 20 LINEAGE_BROKEN'),
      [VK]: both('exit 20 LINEAGE_BROKEN'),
      [I]: both('exit 20 LINEAGE_BROKEN'),
      [E]: both('export exit 20 LINEAGE_BROKEN'),
      [CV]: both('LINEAGE_BROKEN'),
      [XV]: both('LogVerificationError LINEAGE_BROKEN'),
    },
  },
  {
    // A head past the last record, however far: TRUNCATION_DETECTED, reading only what is stored.
    attack: attacks.headSeqFar,
    expect: {
      [V]: both('exit 20 TRUNCATION_DETECTED'),
      [VK]: both('exit 20 TRUNCATION_DETECTED'),
      [I]: both('exit 20 TRUNCATION_DETECTED'),
      [E]: both('exit 20 TRUNCATION_DETECTED'),
      [CV]: both('TRUNCATION_DETECTED'),
      [XV]: both('TRUNCATION_DETECTED'),
    },
  },
  {
    attack: attacks.headSeqText,
    expect: {
      [V]: both('exit 20 LINEAGE_BROKEN'),
      [I]: both('exit 20 LINEAGE_BROKEN'),
      [E]: both('export exit 20 LINEAGE_BROKEN'),
      [XV]: both('LogVerificationError LINEAGE_BROKEN'),
    },
  },
  {
    // The verdict the sealer gives an edited frontier: the head's log state does not authenticate.
    attack: attacks.frontierNotList,
    expect: {
      [V]: both('exit 20 LINEAGE_BROKEN'),
      [VK]: both('exit 20 LINEAGE_BROKEN'),
      [I]: both('exit 20 LINEAGE_BROKEN'),
      [CV]: both('LINEAGE_BROKEN'),
      // An export carries no frontier: its records are intact.
      [XV]: both('VERIFIED_INTACT'),
      [S]: 'CONFLICT LINEAGE_INCONSISTENT',
    },
  },
  { attack: attacks.rejectionVariablesNumber, expect: listedUnsigned },
  { attack: attacks.rejectionVariablesNull, expect: listedUnsigned },
  { attack: attacks.rejectionEscapes, expect: listedUnsigned },
];

const readers = [
  verifyLineageCli,
  verifyLineageKeptCli,
  inspectLineageCli,
  exportThenVerifyCli,
  clientVerifyLineage,
  clientVerifyExport,
  inspectRefusalsCli,
  inspectTextCli,
  mcpInspect,
  nextAppend(setup, () => lineage.lineageId),
];

describe('hostile items: out-of-range and ill-typed attributes get a verdict, never a hang, a crash or raw text', () => {
  beforeAll(async () => {
    [lineage, other] = await Promise.all([
      sealLineage(setup, 'tamper-hostile', [2, 3]),
      sealLineage(setup, 'tamper-hostile-other', [1]),
    ]);
    const nowMs = Date.now();
    reused = acceptedWrite(lineage.lineageId, 'r-1', MANIFEST, nowMs, { payload: { conclusion: 'another' } });
    expect(await sealGroup(tamperSealer(setup), [reused], nowMs)).toEqual(['REJECTED RESIDUAL_ID_REUSED']);
  });

  itEachCell(cells, {
    setup,
    attackContext,
    base: (): ReadTarget => ({
      lineageId: lineage.lineageId,
      trusted: lineage.trusted,
      recall: { latest: true },
      receiptSeq: 4,
      write: reused,
    }),
    readers,
  });
});
