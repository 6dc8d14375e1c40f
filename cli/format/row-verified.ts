import type { TimelineRow } from '../../client/timeline-rows';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';

/** Whether a timeline row's record verified: only then are its stored strings shown outside `untrusted`. */
export const rowVerified = (r: TimelineRow): boolean => r.verification === VerificationVerdict.VERIFIED_INTACT;
