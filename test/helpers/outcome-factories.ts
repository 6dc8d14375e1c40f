import type { ConflictRecord, RejectionRecord } from '../../shared/ports/lineage-store';
import { TEST_LINEAGE_ID, TEST_NOW_MS } from './seal-factories';

/** A guard rejection (`STALE_STATE`) of `residualId` on the test lineage, `atMs` after TEST_NOW_MS. */
export function staleRejection(residualId: string, overrides: Partial<RejectionRecord> = {}): RejectionRecord {
  return {
    stage: 'GUARD',
    reason: 'STALE_STATE',
    lineageId: TEST_LINEAGE_ID,
    residualId,
    messageId: `m-${residualId}`,
    verdictDigest: 'd'.repeat(64),
    bodyDigest: 'b'.repeat(64),
    bodyPreview: `{"residualId":"${residualId}"}`,
    issues: [],
    rejectedVariables: [
      { name: 'targetResourceId', reason: 'UNVERIFIED_INHERITED', detail: 'inherited from session-a, never re-probed' },
    ],
    requestViolations: [],
    atMs: TEST_NOW_MS,
    requestDigest: null,
    statement: null,
    ...overrides,
  };
}

/** A fencing conflict (`STALE_EPOCH`) of `residualId` on the test lineage. */
export function staleEpochConflict(residualId: string, overrides: Partial<ConflictRecord> = {}): ConflictRecord {
  return {
    lineageId: TEST_LINEAGE_ID,
    residualId,
    reason: 'STALE_EPOCH',
    detail: 'write epoch 2 is older than the head epoch 3',
    attemptedHeader: { monotonicSequenceNumber: 4, generationEpoch: 2 },
    expectedHead: null,
    observedHead: null,
    atMs: TEST_NOW_MS,
    messageId: `m-${residualId}`,
    requestDigest: null,
    statement: null,
    ...overrides,
  };
}
