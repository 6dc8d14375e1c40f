import { z } from 'zod';
import { UntrustedRecordOutput } from '../../client/shapes/untrusted-record-output';
import { UntrustedConflictOutput } from './untrusted-conflict-output';
import { UNTRUSTED_NOTE } from './untrusted-note';

import { UntrustedRejectionOutput } from './untrusted-rejection-output';

/**
 * The `untrusted` field of `reseal_inspect`: the stored items it cannot vouch for, each string
 * escaped. Nothing here appears anywhere else in the answer.
 */
export const InspectUntrustedOutput = z.object({
  note: z.literal(UNTRUSTED_NOTE),
  /** Records that do not verify (`verification` is their verdict), oldest first. */
  records: z.array(UntrustedRecordOutput),
  /** Rejections no function of the stack signed as they stand (forged, edited, moved), oldest first. */
  rejections: z.array(UntrustedRejectionOutput),
  /** Conflicts the sealer did not sign as they stand, oldest first. */
  conflicts: z.array(UntrustedConflictOutput),
});
