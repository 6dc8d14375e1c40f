import { describe, expect, it } from 'vitest';
import { OutcomeVerificationError } from '../../../../shared/errors';
import { guardKeyName, sealerKeyName } from '../../../../shared/log/log-names';
import { parseVerifierKey } from '../../../../shared/log/note-key';
import {
  checkConflictOutcome,
  checkRejectionOutcome,
  type OutcomeKeyRole,
  openOutcome,
  openOutcomeOfStage,
  outcomeKeyRoles,
} from '../../../../shared/log/outcome-statement';
import type { ConflictRecord, RejectionRecord } from '../../../../shared/ports/lineage-store';
import { requestDigest } from '../../../../shared/write/request-digest';
import { type OutcomeVectorCase, outcomeVectors } from '../../../helpers/outcome-vectors';
import { TEST_GUARD_KEY, TEST_LOG_KEY, TEST_LOG_NAME, TEST_SEALER_KEY } from '../../../helpers/pipeline-keys';
import vectors from '../../../vectors/outcome.json';

const KEYS = { guard: TEST_GUARD_KEY, sealer: TEST_SEALER_KEY, log: TEST_LOG_KEY } as const;
const cases = vectors.cases as unknown as OutcomeVectorCase[];
const byName = (name: string) => cases.find((c) => c.name === name) as OutcomeVectorCase;
const noteOf = (c: OutcomeVectorCase) => c.item.statement as string;

/** The key that makes `c` an outcome (its note opens for its stage and matches the stored item), or `null`. */
function acceptedBy(c: OutcomeVectorCase): OutcomeKeyRole | null {
  try {
    const statement = openOutcomeOfStage(noteOf(c), c.stage, KEYS, TEST_LOG_NAME);
    if (c.kind === 'REJECTED') checkRejectionOutcome(c.item as RejectionRecord, statement);
    else checkConflictOutcome(c.item as ConflictRecord, statement);
    // The one key that verifies it.
    return (['guard', 'sealer', 'log'] as const).find((role) => {
      try {
        return openOutcome(noteOf(c), KEYS[role], TEST_LOG_NAME).contentDigest === statement.contentDigest;
      } catch {
        return false;
      }
    }) as OutcomeKeyRole;
  } catch (error) {
    if (error instanceof OutcomeVerificationError) return null;
    throw error;
  }
}

describe('docs/verifiable-log.md "Signed outcomes": which key signs a refusal of each stage (test/vectors/outcome.json)', () => {
  it('the vectors are what the test keys sign today, name the test keys and the request', async () => {
    expect(JSON.parse(JSON.stringify(await outcomeVectors()))).toEqual(vectors);
    expect(parseVerifierKey(vectors.keys.guard)).toEqual(TEST_GUARD_KEY);
    expect(parseVerifierKey(vectors.keys.sealer)).toEqual(TEST_SEALER_KEY);
    expect(parseVerifierKey(vectors.keys.log)).toEqual(TEST_LOG_KEY);
    for (const c of cases) expect(c.item.requestDigest, c.name).toBe(requestDigest(vectors.request as never));
  });

  it('GUARD: the guard key alone; SEALER: the sealer key, then the log key (refusals stored before the sealer key)', () => {
    expect(outcomeKeyRoles('GUARD')).toEqual(['guard']);
    expect(outcomeKeyRoles('SEALER')).toEqual(['sealer', 'log']);
    for (const c of cases) expect(acceptedBy(c), c.name).toBe(c.acceptedBy);
  });

  it('a refusal of SEALER signed by the guard key, or of GUARD signed by the sealer key, is no outcome, naming why', () => {
    expect(() =>
      openOutcomeOfStage(noteOf(byName('stage SEALER signed by the guard key')), 'SEALER', KEYS, TEST_LOG_NAME),
    ).toThrow(/sealer key: .*; log key: /);
    expect(() =>
      openOutcomeOfStage(noteOf(byName('stage GUARD signed by the sealer key')), 'GUARD', KEYS, TEST_LOG_NAME),
    ).toThrow(/guard key: /);
    const claimed = byName('a sealer-key statement of stage GUARD in an item claiming SEALER');
    expect(() => openOutcomeOfStage(noteOf(claimed), 'SEALER', KEYS, TEST_LOG_NAME)).toThrow(
      'a sealer-key statement of stage GUARD, not SEALER',
    );
  });

  it('a key in the wrong slot never widens who may sign: the guard key given as the sealer key is refused by name', () => {
    const guardCase = byName('guard refusal, guard key');
    const sealerCase = byName('sealer rejection, sealer key');
    expect(() =>
      openOutcomeOfStage(noteOf(guardCase), 'SEALER', { ...KEYS, sealer: TEST_GUARD_KEY }, TEST_LOG_NAME),
    ).toThrow(`the sealer key names ${guardKeyName(TEST_LOG_NAME)}, not ${sealerKeyName(TEST_LOG_NAME)}`);
    // Without the stage's keys, nothing is an outcome.
    expect(() => openOutcomeOfStage(noteOf(sealerCase), 'SEALER', { guard: TEST_GUARD_KEY }, TEST_LOG_NAME)).toThrow(
      'no verifier key for stage SEALER',
    );
    // Only the log key given: a sealer-key refusal does not verify.
    expect(() => openOutcomeOfStage(noteOf(sealerCase), 'SEALER', { log: TEST_LOG_KEY }, TEST_LOG_NAME)).toThrow(
      OutcomeVerificationError,
    );
  });
});
