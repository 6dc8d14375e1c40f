/** Why an append could not happen. */
export const ConflictReason = {
  /** Lost the race for the head more times than the retry budget allows. */
  LOST_RACE: 'LOST_RACE',
  /** The write's generation epoch is older than the head's (fencing). */
  STALE_EPOCH: 'STALE_EPOCH',
  /**
   * The head held its expected value but a record already exists at the next seq: the stored head
   * is behind the records (rewound or deleted). Not a race; retrying cannot help.
   */
  LINEAGE_INCONSISTENT: 'LINEAGE_INCONSISTENT',
} as const;

/** One of {@link ConflictReason}. */
export type ConflictReason = (typeof ConflictReason)[keyof typeof ConflictReason];
