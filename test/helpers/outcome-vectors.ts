import { formatVerifierKey } from '../../shared/log/note-key';
import {
  conflictStatement,
  type OutcomeKeyRole,
  rejectionStatement,
  signOutcome,
} from '../../shared/log/outcome-statement';
import type { RejectionStage } from '../../shared/pipeline/messages';
import type { NoteSigner } from '../../shared/ports/note-signer';
import { staleEpochConflict, staleRejection } from './outcome-factories';
import {
  TEST_GUARD_KEY,
  TEST_LOG_KEY,
  TEST_LOG_NAME,
  TEST_SEALER_KEY,
  testGuardSigner,
  testLogSigner,
  testSealerSigner,
} from './pipeline-keys';

/** One case of test/vectors/outcome.json: a signed outcome note read as the outcome of `stage`. */
export interface OutcomeVectorCase {
  readonly name: string;
  /** The stage the stored item claims, which picks the keys tried (docs/verifiable-log.md, "Signed outcomes"). */
  readonly stage: RejectionStage;
  readonly note: string;
  /** The key whose signature makes it an outcome, or `null`: no outcome. */
  readonly acceptedBy: OutcomeKeyRole | null;
}

/**
 * The signed-outcome vectors (test/vectors/outcome.json): which key's signature makes a refusal
 * of each stage (docs/verifiable-log.md, "Signed outcomes"): the guard key for `GUARD`, the sealer
 * key for `SEALER`, the log key for a `SEALER` refusal stored before the sealer key; every other
 * pairing is no outcome. Built from the test keys (Ed25519 signatures are deterministic).
 */
export async function outcomeVectors() {
  const signers: Record<OutcomeKeyRole, NoteSigner> = {
    guard: testGuardSigner(),
    sealer: testSealerSigner(),
    log: testLogSigner(),
  };
  const rejectionOf = (stage: RejectionStage, residualId: string) =>
    rejectionStatement(
      TEST_LOG_NAME,
      staleRejection(residualId, stage === 'GUARD' ? {} : { stage, reason: 'RESIDUAL_ID_REUSED' }),
    );
  const conflict = conflictStatement(TEST_LOG_NAME, staleEpochConflict('residual-c'));
  const cases: OutcomeVectorCase[] = [];
  const add = async (
    name: string,
    stage: RejectionStage,
    statement: Parameters<typeof signOutcome>[0],
    by: OutcomeKeyRole,
    acceptedBy: OutcomeKeyRole | null,
  ) => cases.push({ name, stage, note: await signOutcome(statement, signers[by]), acceptedBy });
  await add('guard refusal, guard key', 'GUARD', rejectionOf('GUARD', 'residual-g'), 'guard', 'guard');
  await add('sealer rejection, sealer key', 'SEALER', rejectionOf('SEALER', 'residual-s'), 'sealer', 'sealer');
  await add('sealer conflict, sealer key', 'SEALER', conflict, 'sealer', 'sealer');
  await add(
    'sealer rejection stored before the sealer key, log key',
    'SEALER',
    rejectionOf('SEALER', 'residual-s'),
    'log',
    'log',
  );
  await add('sealer conflict stored before the sealer key, log key', 'SEALER', conflict, 'log', 'log');
  await add('stage SEALER signed by the guard key', 'SEALER', rejectionOf('SEALER', 'residual-s'), 'guard', null);
  await add('stage GUARD signed by the sealer key', 'GUARD', rejectionOf('GUARD', 'residual-g'), 'sealer', null);
  await add('stage GUARD signed by the log key', 'GUARD', rejectionOf('GUARD', 'residual-g'), 'log', null);
  await add(
    'a sealer-key statement of stage GUARD in an item claiming SEALER',
    'SEALER',
    rejectionOf('GUARD', 'residual-g'),
    'sealer',
    null,
  );
  await add(
    'a log-key statement of stage GUARD in an item claiming SEALER',
    'SEALER',
    rejectionOf('GUARD', 'residual-g'),
    'log',
    null,
  );
  return {
    description:
      'Signed outcomes (docs/verifiable-log.md, "Signed outcomes"): a note read as the refusal of `stage` is an outcome only when signed by a key of that stage (GUARD: the guard key; SEALER: the sealer key, else the log key for refusals stored before the sealer key) and its statement names that stage; `acceptedBy` names the key, null: no outcome. Keys: the test stack\'s, seeds 0x40.. (log), 0x60.. (guard), 0x80.. (sealer).',
    logName: TEST_LOG_NAME,
    keys: {
      guard: formatVerifierKey(TEST_GUARD_KEY),
      sealer: formatVerifierKey(TEST_SEALER_KEY),
      log: formatVerifierKey(TEST_LOG_KEY),
    },
    cases,
  };
}
