import type { IntactRecord, IntegrityFailure } from './record-integrity';

/** Narrows a `checkRecordIntegrity` result (shared/seal/record-integrity.ts; docs/sealing.md, "Verification"). */
export function isIntact(result: IntactRecord | IntegrityFailure): result is IntactRecord {
  return 'record' in result;
}
