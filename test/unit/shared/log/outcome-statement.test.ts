import { describe, expect, it } from 'vitest';
import { OutcomeVerificationError } from '../../../../shared/errors';
import { guardKeyName, sealerKeyName } from '../../../../shared/log/log-names';
import { parseVerifierKey } from '../../../../shared/log/note-key';
import {
  type OutcomeKeyRole,
  openOutcome,
  openOutcomeOfStage,
  outcomeKeyRoles,
} from '../../../../shared/log/outcome-statement';
import type { RejectionStage } from '../../../../shared/pipeline/messages';
import { type OutcomeVectorCase, outcomeVectors } from '../../../helpers/outcome-vectors';
import { TEST_GUARD_KEY, TEST_LOG_KEY, TEST_LOG_NAME, TEST_SEALER_KEY } from '../../../helpers/pipeline-keys';
import vectors from '../../../vectors/outcome.json';

const KEYS = { guard: TEST_GUARD_KEY, sealer: TEST_SEALER_KEY, log: TEST_LOG_KEY } as const;
const cases = vectors.cases as OutcomeVectorCase[];

/** The key that makes `c` an outcome, or `null`. */
function acceptedBy(c: { note: string; stage: RejectionStage }): OutcomeKeyRole | null {
  try {
    const statement = openOutcomeOfStage(c.note, c.stage, KEYS, TEST_LOG_NAME);
    // The one key of the stage that verifies it.
    return (['guard', 'sealer', 'log'] as const).find((role) => {
      try {
        return openOutcome(c.note, KEYS[role], TEST_LOG_NAME).contentDigest === statement.contentDigest;
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
  it('the vectors are what the test keys sign today, and name the test keys', async () => {
    expect(JSON.parse(JSON.stringify(await outcomeVectors()))).toEqual(vectors);
    expect(parseVerifierKey(vectors.keys.guard)).toEqual(TEST_GUARD_KEY);
    expect(parseVerifierKey(vectors.keys.sealer)).toEqual(TEST_SEALER_KEY);
    expect(parseVerifierKey(vectors.keys.log)).toEqual(TEST_LOG_KEY);
  });

  it('GUARD: the guard key alone; SEALER: the sealer key, then the log key (refusals stored before the sealer key)', () => {
    expect(outcomeKeyRoles('GUARD')).toEqual(['guard']);
    expect(outcomeKeyRoles('SEALER')).toEqual(['sealer', 'log']);
    for (const c of cases) expect(acceptedBy(c), c.name).toBe(c.acceptedBy);
  });

  it('a refusal of SEALER signed by the guard key, or of GUARD signed by the sealer key, is no outcome, naming why', () => {
    const guardSigned = cases.find((c) => c.name === 'stage SEALER signed by the guard key') as OutcomeVectorCase;
    expect(() => openOutcomeOfStage(guardSigned.note, 'SEALER', KEYS, TEST_LOG_NAME)).toThrow(
      /sealer key: .*; log key: /,
    );
    const sealerSigned = cases.find((c) => c.name === 'stage GUARD signed by the sealer key') as OutcomeVectorCase;
    expect(() => openOutcomeOfStage(sealerSigned.note, 'GUARD', KEYS, TEST_LOG_NAME)).toThrow(/guard key: /);
    const claimed = cases.find(
      (c) => c.name === 'a sealer-key statement of stage GUARD in an item claiming SEALER',
    ) as OutcomeVectorCase;
    expect(() => openOutcomeOfStage(claimed.note, 'SEALER', KEYS, TEST_LOG_NAME)).toThrow(
      'a sealer-key statement of stage GUARD, not SEALER',
    );
  });

  it('a key in the wrong slot never widens who may sign: the guard key given as the sealer key is refused by name', () => {
    const sealerCase = cases.find((c) => c.name === 'sealer rejection, sealer key') as OutcomeVectorCase;
    const guardCase = cases.find((c) => c.name === 'guard refusal, guard key') as OutcomeVectorCase;
    expect(() =>
      openOutcomeOfStage(guardCase.note, 'SEALER', { ...KEYS, sealer: TEST_GUARD_KEY }, TEST_LOG_NAME),
    ).toThrow(`the sealer key names ${guardKeyName(TEST_LOG_NAME)}, not ${sealerKeyName(TEST_LOG_NAME)}`);
    // Without the stage's keys, nothing is an outcome.
    expect(() => openOutcomeOfStage(sealerCase.note, 'SEALER', { guard: TEST_GUARD_KEY }, TEST_LOG_NAME)).toThrow(
      'no verifier key for stage SEALER',
    );
    // Only the log key given: a sealer-key refusal does not verify, a log-key one (stored before) does.
    expect(() => openOutcomeOfStage(sealerCase.note, 'SEALER', { log: TEST_LOG_KEY }, TEST_LOG_NAME)).toThrow(
      OutcomeVerificationError,
    );
  });
});
