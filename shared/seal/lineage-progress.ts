/** Progress of a long read or verification, after each page. */
export interface LineageProgress {
  /** Records read (and, for verification, verified) so far. */
  readonly done: number;
  /** Records expected in all: up to the last stored record, the head's seq or the checkpoint's, whichever is latest. */
  readonly total: number;
}
