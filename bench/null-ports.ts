import type { EventPublisher } from '../shared/ports/event-publisher';
import type { LineageStore } from '../shared/ports/lineage-store';

/** A port method a CPU benchmark never reaches: it throws, so a bench that does reach one says so. */
export const unusedPort = async (): Promise<never> => {
  throw new Error('a port method the benchmark does not use was called');
};

/**
 * A lineage store with no lineage in it that accepts every append and keeps nothing: the sealer's
 * CPU alone, for bench/seal.ts and bench/write-cpu.ts.
 */
export const nullLineageStore: LineageStore = {
  head: async () => null,
  lastRecordSeq: async () => null,
  logHead: async () => null,
  putRecords: async () => {},
  moveHead: async () => {},
  readNodes: unusedPort,
  readRecord: unusedPort,
  findByResidualId: async () => null,
  readChain: async () => [],
  recordConflict: unusedPort,
  recordRejection: unusedPort,
  putTriageReport: unusedPort,
  getTriageReport: unusedPort,
  listConflicts: unusedPort,
  listRejections: unusedPort,
};

/** An event publisher that drops every `ResidualSealed` event and takes no other. */
export const nullEventPublisher: EventPublisher = {
  residualSealed: async () => {},
  residualRejected: unusedPort,
  triageCompleted: unusedPort,
};
