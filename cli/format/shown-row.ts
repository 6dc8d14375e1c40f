import type { TimelineRow } from '../../client/timeline-rows';
import { rowVerified } from './row-verified';

/**
 * A row as shown outside `untrusted`: a record that does not verify keeps its seq, epoch and
 * verdict, its stored strings and times read as unknown (docs/cli.md, "Untrusted data").
 */
export const shownRow = (r: TimelineRow): TimelineRow =>
  rowVerified(r)
    ? r
    : {
        ...r,
        authority: null,
        sessionId: null,
        residualId: null,
        sealedAtMs: null,
        supersedes: null,
        guardVerdictDigest: null,
        writtenBy: null,
        claimedWriterKeyId: null,
      };
