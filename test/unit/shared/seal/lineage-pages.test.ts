import { describe, expect, it } from 'vitest';
import { lineagePages } from '../../../../shared/seal/lineage-pages';

/** A store of `count` records (`{ seq }`), recording each `readChain` range. */
function store(count: number) {
  const reads: [number, number][] = [];
  return {
    reads,
    readChain: async (_lineageId: string, from: number, to: number) => {
      reads.push([from, to]);
      return Array.from({ length: Math.max(0, Math.min(to, count - 1) - from + 1) }, (_, i) => ({ seq: from + i }));
    },
  };
}

async function collect(pages: AsyncIterable<{ from: number; to: number; records: unknown[] }>) {
  const out: [number, number, number][] = [];
  for await (const page of pages) out.push([page.from, page.to, page.records.length]);
  return out;
}

describe('lineagePages: the one paging loop over a lineage', () => {
  it('reads seq 0 to lastSeq, pageSize seqs a page, the last page ending at lastSeq', async () => {
    const s = store(7);
    expect(await collect(lineagePages(s, 'lin', 6, 3))).toEqual([
      [0, 2, 3],
      [3, 5, 3],
      [6, 6, 1],
    ]);
    expect(s.reads).toEqual([
      [0, 2],
      [3, 5],
      [6, 6],
    ]);
  });

  it('yields one empty page, with no read, when there is nothing to read', async () => {
    const s = store(0);
    expect(await collect(lineagePages(s, 'lin', -1, 3))).toEqual([[0, -1, 0]]);
    expect(s.reads).toEqual([]);
  });

  it('reads no further page once the caller stops', async () => {
    const s = store(100);
    for await (const page of lineagePages(s, 'lin', 99, 10)) if (page.from >= 20) break;
    expect(s.reads).toEqual([
      [0, 9],
      [10, 19],
      [20, 29],
    ]);
  });
});
