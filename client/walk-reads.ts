import type { LineageStore } from '../shared/ports/lineage-store';

/** The table reads one walk shares ({@link walkReads}). */
type WalkReadable = Pick<LineageStore, 'logHead' | 'head' | 'readRecord'>;

/**
 * One whole-lineage walk's view of the table (`reseal verify --lineage`; docs/verifiable-log.md,
 * "Verifying a whole lineage"): the head item is read once per lineage and that one read is
 * threaded through the plan, the walk's stored-head claim, the signed log's latest checkpoint, the
 * log state the sealer authenticates and the head's freshness (`head` is the same item's
 * `LineageHead`); a record read by seq (`readRecord`: the last leaf proven, the head's record) is
 * read once too. The walk
 * is then tied to one snapshot of the head, as it is to one pass over the records; everything
 * read is still verified where it is used. Other reads pass through.
 */
export function walkReads<S extends WalkReadable>(store: S): S {
  const heads = new Map<string, ReturnType<LineageStore['logHead']>>();
  const records = new Map<string, Promise<unknown>>();
  const at = (lineageId: string, seq: number) => `${lineageId}\u0000${seq}`;
  const logHead = (lineageId: string) => {
    let read = heads.get(lineageId);
    if (!read) {
      read = store.logHead(lineageId);
      heads.set(lineageId, read);
      // A failed read is not remembered: the next use reads again.
      read.catch(() => heads.delete(lineageId));
    }
    return read;
  };
  const own: WalkReadable = {
    logHead,
    head: async (lineageId) => (await logHead(lineageId))?.head ?? null,
    readRecord: (lineageId, seq) => {
      let read = records.get(at(lineageId, seq));
      if (!read) {
        read = store.readRecord(lineageId, seq);
        records.set(at(lineageId, seq), read);
        read.catch(() => records.delete(at(lineageId, seq)));
      }
      return read;
    },
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      if (Object.hasOwn(own, property)) return own[property as keyof WalkReadable];
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
