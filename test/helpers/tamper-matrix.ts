/**
 * One cell of a tampering matrix (docs/guarantees.md "Tampering by the table writer"): an attack on the deployed table, the expected
 * outcome per reader written down as data before anything runs, the readers run on the attacked
 * table, and the lineage's partitions restored exactly afterwards. Every reader's outcome is a
 * row of docs/guarantees.md.
 */
import { it, type TestContext } from 'vitest';
import { expectGuarantees } from './guarantees';
import type { Reader, ReaderSetup, ReadTarget } from './tamper-readers';
import { type Attack, type AttackContext, partitionsOf, type TableWriter } from './tamper-table';

/** Expected outcomes of one reader: `[without a trusted checkpoint, with one]`, or one for a reader that takes none. */
export type Expected = readonly [withoutCheckpoint: string, withCheckpoint: string] | string;

/** An attack and what each reader must report on it (a reader not listed does not read the item). */
export interface Cell {
  readonly attack: Attack;
  /**
   * What the readers look at, when not the base target: the recall target, the receipt's seq, the
   * awaited write, the state a reader with a checkpoint trusts (called when the cell runs).
   */
  readonly target?: () => Partial<Pick<ReadTarget, 'recall' | 'receiptSeq' | 'write' | 'onRecall' | 'trusted'>>;
  readonly expect: Readonly<Record<string, Expected>>;
}

/** One read of a cell: a reader, whether it has the trusted checkpoint (undefined: it takes none), what it must report. */
interface Run {
  readonly reader: Reader;
  readonly checkpoint: boolean | undefined;
  readonly expected: string;
}

/** How long a reader may take before its outcome is "no answer" (a reader the attack makes hang). */
const READ_BOUND_MS = 20_000;

function withinBound(read: Promise<string>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${READ_BOUND_MS / 1000} s`), READ_BOUND_MS);
  });
  return Promise.race([read, bound]).finally(() => clearTimeout(timer));
}

/** Both modes expect the same outcome. */
export const both = (outcome: string): Expected => [outcome, outcome];

/**
 * Runs `cell`: applies the attack (to `attackContext.lineageId`, or from or into the other lineage), reads with every reader it names (in
 * parallel, with and without the trusted checkpoint), restores the partitions, then records and
 * asserts one row per reader and mode.
 */
export async function runCell(
  context: TestContext,
  setup: ReaderSetup,
  table: TableWriter,
  attackContext: AttackContext,
  base: ReadTarget,
  readers: readonly Reader[],
  cell: Cell,
): Promise<void> {
  const target: ReadTarget = { ...base, ...cell.target?.() };
  const byName = new Map(readers.map((reader) => [reader.name, reader]));
  const unknown = Object.keys(cell.expect).filter((name) => !byName.has(name));
  if (unknown.length > 0) throw new Error(`cell ${cell.attack.attack}: unknown readers ${unknown.join(', ')}`);
  const runs = Object.entries(cell.expect).flatMap(([name, expected]): Run[] => {
    const reader = byName.get(name) as Reader;
    if (typeof expected === 'string' || reader.takesCheckpoint === false) {
      return [{ reader, checkpoint: undefined, expected: typeof expected === 'string' ? expected : expected[0] }];
    }
    return [
      { reader, checkpoint: false, expected: expected[0] },
      { reader, checkpoint: true, expected: expected[1] },
    ];
  });
  // Both lineages: a transplant may write into the other one.
  const snapshot = await table.snapshot([
    ...partitionsOf(attackContext.lineageId),
    ...partitionsOf(attackContext.otherLineageId),
  ]);
  let observed: string[];
  try {
    await cell.attack.apply(attackContext);
    const read = (run: Run) => withinBound(run.reader.read(setup, target, run.checkpoint === true));
    const byRun = new Map<Run, string>();
    const parallel = runs.filter((run) => !run.reader.exclusive);
    const outcomes = await Promise.all(parallel.map(read));
    parallel.forEach((run, i) => {
      byRun.set(run, outcomes[i] as string);
    });
    for (const run of runs.filter((r) => r.reader.exclusive)) byRun.set(run, await read(run));
    observed = runs.map((run) => byRun.get(run) as string);
  } finally {
    await table.restore(snapshot);
    await cell.attack.undo?.(attackContext);
  }
  expectGuarantees(
    context,
    runs.map((run, i) => ({
      guarantee: {
        section: 'tampering',
        target: cell.attack.target,
        attack: cell.attack.attack,
        reader: run.reader.name,
        ...(run.checkpoint === undefined ? {} : { checkpoint: run.checkpoint }),
        expected: run.expected,
      },
      observed: observed[i] as string,
    })),
  );
}

/** What {@link itEachCell} runs every cell with; the functions are called when a cell runs (after `beforeAll`). */
export interface CellRun {
  readonly setup: ReaderSetup & { readonly table: TableWriter };
  readonly attackContext: () => AttackContext;
  /** The target the readers look at, before the cell's own `target`. */
  readonly base: () => ReadTarget;
  readonly readers: readonly Reader[];
}

/** One test per cell, named `<target>: <attack>`, each {@link runCell} on `setup.table`. */
export function itEachCell(cells: readonly Cell[], run: CellRun): void {
  for (const cell of cells) {
    it(`${cell.attack.target}: ${cell.attack.attack}`, (context) =>
      runCell(context, run.setup, run.setup.table, run.attackContext(), run.base(), run.readers, cell));
  }
}
