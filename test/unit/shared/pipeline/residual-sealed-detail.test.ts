import { describe, expect, it } from 'vitest';
import { DetailType, EVENT_SOURCE } from '../../../../shared/pipeline/detail-type';
import { eventEntryBytes, MAX_EVENT_ENTRY_BYTES } from '../../../../shared/pipeline/event-entry-bytes';
import {
  MAX_RESIDUAL_SEALED_RUNS,
  type ResidualSealedDetail,
  ResidualSealedDetailSchema,
} from '../../../../shared/pipeline/residual-sealed-detail';
import { residualSealedDetails } from '../../../../shared/pipeline/residual-sealed-details';
import { MAX_SEALED_RUN_RESIDUALS, type ResidualSealedRun } from '../../../../shared/pipeline/residual-sealed-run';
import { residualSealedRuns, type SealedAnnouncement } from '../../../../shared/pipeline/residual-sealed-runs';
import { SEALER_BATCH_SIZE } from '../../../../shared/pipeline/sealer-batch-size';

const hash = (n: number) => n.toString(16).padStart(64, '0');

/** A run of `count` records of `lineageId` from `fromSeq`, its head the last one's. */
function run(lineageId: string, fromSeq: number, count: number): ResidualSealedRun {
  const residuals = Array.from({ length: count }, (_, i) => ({
    residualId: `r-${fromSeq + i}`,
    seq: fromSeq + i,
    recordHash: hash(fromSeq + i + 1),
    sealedAtMs: 1_800_000_000_000 + i,
  }));
  const last = residuals.at(-1) as (typeof residuals)[number];
  return {
    lineageId,
    seq: last.seq,
    recordHash: last.recordHash,
    generationEpoch: 1,
    mac: `${'A'.repeat(43)}=`,
    keyId: 'test-key-1',
    sealedTreeHead: { treeSize: last.seq + 1, rootHash: hash(999) },
    checkpoint: null,
    residuals,
  };
}

const entryBytes = (detail: ResidualSealedDetail) =>
  eventEntryBytes({ source: EVENT_SOURCE, detailType: DetailType.ResidualSealed, detail: JSON.stringify(detail) });

describe('ResidualSealed detail (docs/pipeline.md, "Message shapes")', () => {
  it('round-trips through JSON: several lineages, their heads and residuals', () => {
    const detail: ResidualSealedDetail = { v: 2, runs: [run('lin-a', 0, 3), run('lin-b', 7, 1)] };
    expect(ResidualSealedDetailSchema.parse(JSON.parse(JSON.stringify(detail)))).toEqual(detail);
  });

  it.each([
    ['an unknown top-level field', (d: Record<string, unknown>) => Object.assign(d, { formatVersion: 1 })],
    ['the per-record detail of one event per write (v absent)', (d: Record<string, unknown>) => delete d.v],
    ['v 1', (d: Record<string, unknown>) => Object.assign(d, { v: 1 })],
    ['no runs', (d: Record<string, unknown>) => Object.assign(d, { runs: [] })],
    ['an unknown run field', (d: { runs: Record<string, unknown>[] }) => Object.assign(d.runs[0] ?? {}, { extra: 1 })],
    ['a run without a head field', (d: { runs: Record<string, unknown>[] }) => delete d.runs[0]?.mac],
    [
      'a run without residuals',
      (d: { runs: Record<string, unknown>[] }) => Object.assign(d.runs[0] ?? {}, { residuals: [] }),
    ],
    [
      'an unknown residual field',
      (d: { runs: { residuals: Record<string, unknown>[] }[] }) =>
        Object.assign(d.runs[0]?.residuals[0] ?? {}, { lineageId: 'lin-a' }),
    ],
    [
      'residual seqs out of order',
      (d: { runs: { residuals: Record<string, unknown>[] }[] }) => d.runs[0]?.residuals.reverse(),
    ],
    [
      "a last residual that is not the head's record",
      (d: { runs: Record<string, unknown>[] }) => Object.assign(d.runs[0] ?? {}, { recordHash: hash(12345) }),
    ],
    [
      `more than ${MAX_SEALED_RUN_RESIDUALS} residuals in a run`,
      (d: { runs: unknown[] }) => Object.assign(d, { runs: [run('lin-a', 0, MAX_SEALED_RUN_RESIDUALS + 1)] }),
    ],
    [
      "a tree head that does not hold the head's record (treeSize below seq + 1)",
      (d: { runs: { seq: number; sealedTreeHead: { treeSize: number } }[] }) => {
        const first = d.runs[0];
        if (first) first.sealedTreeHead.treeSize = first.seq;
      },
    ],
    [
      'one residual id at two seqs of a run',
      (d: { runs: { residuals: { residualId: string }[] }[] }) => {
        const residuals = d.runs[0]?.residuals ?? [];
        if (residuals[0] && residuals[1]) residuals[1].residualId = residuals[0].residualId;
      },
    ],
  ])('refuses %s', (_, edit) => {
    const detail = structuredClone({ v: 2, runs: [run('lin-a', 0, 3)] });
    (edit as (d: unknown) => void)(detail);
    expect(ResidualSealedDetailSchema.safeParse(detail).success).toBe(false);
  });

  /** `run(lineageId, fromSeq, count)` with the record at `seq` given another hash (and so the head, when it is the last). */
  const forked = (lineageId: string, fromSeq: number, count: number, seq: number): ResidualSealedRun => {
    const r = structuredClone(run(lineageId, fromSeq, count));
    const residual = r.residuals.find((x) => x.seq === seq);
    if (residual) residual.recordHash = hash(77_777);
    if (r.seq === seq) r.recordHash = hash(77_777);
    return r;
  };

  it.each([
    [
      'two runs of one lineage heading seq 2 with two record hashes',
      [run('lin-a', 0, 3), forked('lin-a', 2, 1, 2)],
      'two record hashes at seq 2',
    ],
    [
      'two runs of one lineage naming seq 1 with two record hashes',
      [run('lin-a', 0, 3), forked('lin-a', 1, 1, 1)],
      'two record hashes at seq 1',
    ],
    [
      'two residual ids at one seq of a lineage',
      [
        run('lin-a', 0, 3),
        { ...run('lin-a', 2, 1), residuals: [{ ...run('lin-a', 2, 1).residuals[0], residualId: 'r-other' }] },
      ],
      'two residual ids at seq 2',
    ],
    [
      'one residual id at two seqs of a lineage, in two runs',
      [
        run('lin-a', 0, 1),
        { ...run('lin-a', 3, 1), residuals: [{ ...run('lin-a', 3, 1).residuals[0], residualId: 'r-0' }] },
      ],
      'residual id r-0 is at seqs 0 and 3',
    ],
    [
      'two root hashes of one lineage at one tree size',
      [run('lin-a', 0, 3), { ...run('lin-a', 0, 3), sealedTreeHead: { treeSize: 3, rootHash: hash(1) } }],
      'another root hash at tree size 3',
    ],
    [
      `more than ${MAX_RESIDUAL_SEALED_RUNS} runs (the sealer's batch size)`,
      Array.from({ length: MAX_RESIDUAL_SEALED_RUNS + 1 }, (_, i) => run(`lin-${i}`, 0, 1)),
      'Too big',
    ],
  ])('refuses a detail that contradicts itself or no sealer wrote: %s', (_, runs, message) => {
    const parsed = ResidualSealedDetailSchema.safeParse({ v: 2, runs });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.message).join('\n')).toContain(message);
  });

  it('accepts one record announced by two runs under two tree heads, and a tree head past the head (a redelivery)', () => {
    const sealed = run('lin-a', 0, 3);
    const redelivered = { ...run('lin-a', 1, 1), sealedTreeHead: { treeSize: 3, rootHash: hash(999) } };
    const older = { ...run('lin-a', 0, 1), sealedTreeHead: { treeSize: 2, rootHash: hash(5) } };
    const detail = { v: 2, runs: [sealed, redelivered, older, run('lin-b', 1, 2)] };
    expect(ResidualSealedDetailSchema.parse(detail)).toEqual(detail);
    expect(MAX_RESIDUAL_SEALED_RUNS).toBe(SEALER_BATCH_SIZE);
  });
});

describe("residualSealedDetails: one event unless EventBridge's 256 KiB entry would be passed", () => {
  it('puts every run of a sparse invocation (ten lineages) in one detail', () => {
    const runs = Array.from({ length: 10 }, (_, i) => run(`lin-${i}`, i, 1));
    expect(residualSealedDetails(runs)).toEqual([{ v: 2, runs }]);
    expect(residualSealedDetails([])).toEqual([]);
  });

  it('splits where the entry would pass the bound, in order, each detail as full as fits and within it', () => {
    const runs = Array.from({ length: 100 }, (_, i) => run(`lineage-${i}`, 0, MAX_SEALED_RUN_RESIDUALS));
    const one = entryBytes({ v: 2, runs: runs.slice(0, 1) });
    // Any number of runs a detail: the size alone splits here.
    const details = residualSealedDetails(runs, MAX_EVENT_ENTRY_BYTES, runs.length);
    expect(one * runs.length).toBeGreaterThan(262_144);
    expect(details.length).toBeGreaterThan(1);
    expect(details.flatMap((d) => d.runs)).toEqual(runs);
    for (const [i, detail] of details.entries()) {
      expect(entryBytes(detail)).toBeLessThanOrEqual(262_144);
      const next = details[i + 1]?.runs[0];
      if (next) expect(entryBytes({ v: 2, runs: [...detail.runs, next] })).toBeGreaterThan(262_144);
    }
  });

  it(`cuts at ${MAX_RESIDUAL_SEALED_RUNS} runs a detail, as the schema bounds them, though they fit one entry`, () => {
    const runs = Array.from({ length: 2 * MAX_RESIDUAL_SEALED_RUNS + 1 }, (_, i) => run(`lin-${i}`, 0, 1));
    const details = residualSealedDetails(runs);
    expect(details.map((d) => d.runs.length)).toEqual([MAX_RESIDUAL_SEALED_RUNS, MAX_RESIDUAL_SEALED_RUNS, 1]);
    expect(details.flatMap((d) => d.runs)).toEqual(runs);
    for (const detail of details) expect(ResidualSealedDetailSchema.safeParse(detail).success).toBe(true);
  });

  it("counts the entry exactly: a bound of one detail's size keeps it whole, one byte less splits it", () => {
    const runs = [run('lin-a', 0, 2), run('lin-b', 0, 1), run('lin-c', 4, 3)];
    const size = entryBytes({ v: 2, runs });
    expect(residualSealedDetails(runs, size)).toHaveLength(1);
    expect(residualSealedDetails(runs, size - 1).map((d) => d.runs.length)).toEqual([2, 1]);
    // A run over the bound on its own is a detail of its own, never cut.
    expect(residualSealedDetails(runs, 10).map((d) => d.runs.length)).toEqual([1, 1, 1]);
  });
});

describe('residualSealedRuns: the announcements of one invocation as runs', () => {
  const announcement = (
    lineageId: string,
    seq: number,
    treeSize: number,
    residualId = `r-${seq}`,
  ): SealedAnnouncement => ({
    head: { lineageId, seq, recordHash: hash(seq + 1), generationEpoch: 1, mac: `${'A'.repeat(43)}=`, keyId: 'k' },
    residualId,
    sealedAtMs: 1_800_000_000_000 + seq,
    sealedTreeHead: { treeSize, rootHash: hash(treeSize) },
    checkpoint: null,
  });

  it('one run per lineage and tree head, seq ascending, a record announced twice named once, headed by the newest', () => {
    const runs = residualSealedRuns([
      announcement('lin-a', 2, 3),
      announcement('lin-b', 0, 1),
      announcement('lin-a', 1, 3),
      announcement('lin-a', 0, 1), // a redelivery answered on the older tree head
      announcement('lin-a', 2, 3), // the same write twice in the group
    ]);
    expect(runs.map((r) => [r.lineageId, r.seq, r.residuals.map((x) => x.seq)])).toEqual([
      ['lin-a', 2, [1, 2]],
      ['lin-b', 0, [0]],
      ['lin-a', 0, [0]],
    ]);
    for (const r of runs) expect(ResidualSealedDetailSchema.parse({ v: 2, runs: [r] }).runs[0]).toEqual(r);
  });

  it(`cuts a run of more than ${MAX_SEALED_RUN_RESIDUALS} residuals, each part headed by its own newest record`, () => {
    const many = Array.from({ length: MAX_SEALED_RUN_RESIDUALS + 5 }, (_, seq) => announcement('lin-a', seq, 50));
    const runs = residualSealedRuns(many);
    expect(runs.map((r) => [r.seq, r.residuals.length])).toEqual([
      [MAX_SEALED_RUN_RESIDUALS - 1, MAX_SEALED_RUN_RESIDUALS],
      [MAX_SEALED_RUN_RESIDUALS + 4, 5],
    ]);
    expect(ResidualSealedDetailSchema.safeParse({ v: 2, runs }).success).toBe(true);
  });
});
