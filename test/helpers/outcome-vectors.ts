import { formatVerifierKey } from '../../shared/log/note-key';
import {
  conflictStatement,
  type OutcomeKeyRole,
  type OutcomeKind,
  rejectionStatement,
  signOutcome,
} from '../../shared/log/outcome-statement';
import type { RejectionStage } from '../../shared/pipeline/rejection-stage';
import type { ConflictRecord, RejectionRecord } from '../../shared/ports/lineage-store';
import type { NoteSigner } from '../../shared/ports/note-signer';
import { requestDigest } from '../../shared/write/request-digest';
import { validWriteRequest } from './guard-factories';
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

/** One case of test/vectors/outcome.json: a stored refusal and its signed note, read as an outcome of `stage`. */
export interface OutcomeVectorCase {
  readonly name: string;
  readonly kind: OutcomeKind;
  /** The stage the stored item claims (a conflict: `SEALER`), which picks the keys tried (docs/verifiable-log.md, "Signed outcomes"). */
  readonly stage: RejectionStage;
  /** The stored rejection or conflict, its `statement` the signed note. */
  readonly item: RejectionRecord | ConflictRecord;
  /** The key whose signature makes it an outcome, or `null`: no outcome. */
  readonly acceptedBy: OutcomeKeyRole | null;
}

/**
 * The signed-outcome vectors (test/vectors/outcome.json): which key's signature makes a refusal
 * of each stage (docs/verifiable-log.md, "Signed outcomes"): the guard key for `GUARD`, the sealer
 * key for `SEALER`, the log key for a `SEALER` refusal stored before the sealer key; every other
 * pairing is no outcome. Every refusal names `request` (its `requestDigest`). Built from the test
 * keys (Ed25519 signatures are deterministic).
 */
export async function outcomeVectors() {
  const signers: Record<OutcomeKeyRole, NoteSigner> = {
    guard: testGuardSigner(),
    sealer: testSealerSigner(),
    log: testLogSigner(),
  };
  const request = validWriteRequest({ residualId: 'residual-v' });
  const named = { residualId: 'residual-v', messageId: 'm-residual-v', requestDigest: requestDigest(request) };
  const rejection = (stage: RejectionStage) =>
    staleRejection('residual-v', stage === 'GUARD' ? named : { ...named, stage, reason: 'RESIDUAL_ID_REUSED' });
  const conflict = staleEpochConflict('residual-v', named);
  const cases: OutcomeVectorCase[] = [];
  /** A case: the record signed by `by`, then stored claiming `claimed` (its own stage unless given). */
  const add = async (
    name: string,
    record: RejectionRecord | ConflictRecord,
    by: OutcomeKeyRole,
    acceptedBy: OutcomeKeyRole | null,
    claimed?: RejectionStage,
  ) => {
    const isRejection = 'stage' in record;
    const statement = isRejection
      ? rejectionStatement(TEST_LOG_NAME, record)
      : conflictStatement(TEST_LOG_NAME, record);
    const signed = { ...record, statement: await signOutcome(statement, signers[by]) };
    const stage = claimed ?? statement.stage;
    cases.push({
      name,
      kind: statement.kind,
      stage,
      item: isRejection ? { ...(signed as RejectionRecord), stage } : signed,
      acceptedBy,
    });
  };
  await add('guard refusal, guard key', rejection('GUARD'), 'guard', 'guard');
  await add('sealer rejection, sealer key', rejection('SEALER'), 'sealer', 'sealer');
  await add('sealer conflict, sealer key', conflict, 'sealer', 'sealer');
  await add('sealer rejection stored before the sealer key, log key', rejection('SEALER'), 'log', 'log');
  await add('sealer conflict stored before the sealer key, log key', conflict, 'log', 'log');
  await add('stage SEALER signed by the guard key', rejection('SEALER'), 'guard', null);
  await add('a conflict signed by the guard key', conflict, 'guard', null);
  await add('stage GUARD signed by the sealer key', rejection('GUARD'), 'sealer', null);
  await add('stage GUARD signed by the log key', rejection('GUARD'), 'log', null);
  await add(
    'a sealer-key statement of stage GUARD in an item claiming SEALER',
    rejection('GUARD'),
    'sealer',
    null,
    'SEALER',
  );
  await add('a log-key statement of stage GUARD in an item claiming SEALER', rejection('GUARD'), 'log', null, 'SEALER');
  return {
    description:
      'Signed outcomes (docs/verifiable-log.md, "Signed outcomes"): a stored refusal is an outcome of its stage only when its statement is signed by a key of that stage (GUARD: the guard key; SEALER, and every conflict: the sealer key, else the log key for refusals stored before the sealer key), names that stage, and matches the stored item; `acceptedBy` names the key, null: no outcome. Every statement names `request` by its requestDigest. Keys: the test stack\'s, seeds 0x40.. (log), 0x60.. (guard), 0x80.. (sealer).',
    logName: TEST_LOG_NAME,
    keys: {
      guard: formatVerifierKey(TEST_GUARD_KEY),
      sealer: formatVerifierKey(TEST_SEALER_KEY),
      log: formatVerifierKey(TEST_LOG_KEY),
    },
    request,
    cases,
  };
}
