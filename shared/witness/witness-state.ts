/**
 * What a witness keeps per log (C2SP tlog-witness: "only required to keep track of the latest
 * checkpoint it observed and verified"): the origin, size and root hash of the last checkpoint
 * it cosigned (docs/witness.md, "State").
 */
export interface WitnessState {
  /** The log's origin line. */
  readonly origin: string;
  /** Size of the last cosigned checkpoint. */
  readonly size: number;
  /** Its 32-byte RFC 9162 root hash. */
  readonly rootHash: Uint8Array;
}
