import { conflictStatement, rejectionStatement, signOutcome } from '../../shared/log/outcome-statement';
import type { ConflictRecord, RejectionRecord } from '../../shared/ports/lineage-store';
import type { NoteSigner } from '../../shared/ports/note-signer';
import { TEST_LOG_NAME, testGuardSigner, testSealerSigner } from './pipeline-keys';
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

/** {@link staleRejection}, signed as the deciding function signs it (guard key for GUARD, sealer key for SEALER). */
export async function signedRejection(
  residualId: string,
  overrides: Partial<RejectionRecord> = {},
  signer?: NoteSigner,
): Promise<RejectionRecord> {
  const unsigned = staleRejection(residualId, { ...overrides, statement: null });
  const key = signer ?? (unsigned.stage === 'GUARD' ? testGuardSigner() : testSealerSigner());
  return { ...unsigned, statement: await signOutcome(rejectionStatement(TEST_LOG_NAME, unsigned), key) };
}

/** {@link staleEpochConflict}, signed by the sealer key (or `signer`). */
export async function signedConflict(
  residualId: string,
  overrides: Partial<ConflictRecord> = {},
  signer: NoteSigner = testSealerSigner(),
): Promise<ConflictRecord> {
  const unsigned = staleEpochConflict(residualId, { ...overrides, statement: null });
  return { ...unsigned, statement: await signOutcome(conflictStatement(TEST_LOG_NAME, unsigned), signer) };
}
