/** The line a walk prints for records sealed past the indexed tree head. */
export function awaitingLine(fromSeq: number): string {
  return `seq ${fromSeq} on: sealed, awaiting integration (past the tree head the index holds; not tampering: verify again after the next integration)`;
}
