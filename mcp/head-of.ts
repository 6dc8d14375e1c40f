import type { HeadOutput } from '../client/shapes/head-output';

/** A `{ seq, recordHash }` head as a tool answers it, without the fields of a wider head. */
export const headOf = (head: { seq: number; recordHash: string }): HeadOutput => ({
  seq: head.seq,
  recordHash: head.recordHash,
});
