import { z } from 'zod';
import { canonicalJson } from '../canonical/canonical-json';
import type { HexDigest } from '../canonical/digest';
import { hashCanonical } from '../canonical/hash-canonical';
import { HashDomain } from '../canonical/hash-domain';
import { OutcomeVerificationError, ResealError } from '../errors';
import { RejectionStage } from '../pipeline/rejection-stage';
import type { ConflictRecord, RejectionRecord } from '../ports/lineage-store';
import type { NoteSigner } from '../ports/note-signer';
import { EpochMillis } from '../schemas/epoch-millis';
import { HexDigest as HexDigestSchema } from '../schemas/hex-digest';
import { Identifier } from '../schemas/identifier';
import { wellFormedString } from '../schemas/well-formed-string';
import { guardKeyName, sealerKeyName } from './log-names';
import type { NoteVerifierKey } from './note-key';
import { signNote, verifyNote } from './signed-note';

/** First line of every outcome note: tells it apart from a checkpoint body (whose second line is a size). */
export const OUTCOME_NOTE_TAG = 'reseal/v1/outcome';

/** What an outcome statement says happened to a write. */
export const OutcomeKind = { REJECTED: 'REJECTED', CONFLICT: 'CONFLICT' } as const;
/** One of {@link OutcomeKind}. */
export type OutcomeKind = (typeof OutcomeKind)[keyof typeof OutcomeKind];

/**
 * A refusal, signed by the function that decided it (docs/verifiable-log.md, "Signed outcomes"):
 * the guard key for stage `GUARD`, the sealer key for stage `SEALER` (the log key for a `SEALER`
 * refusal stored before the sealer key: {@link outcomeKeyRoles}). It names the write by
 * `requestDigest` (the digest of the request the client published), so a client waiting on one
 * write accepts only a refusal of that write, and binds the stored details by `contentDigest`.
 */
export const OutcomeStatementSchema = z.strictObject({
  v: z.literal(1),
  kind: z.enum(OutcomeKind),
  /** The log name (`reseal/<stackName>`): a statement of one stack never passes for another's. */
  log: wellFormedString(256).min(1),
  stage: z.enum(RejectionStage),
  reason: wellFormedString(64).min(1),
  lineageId: Identifier.nullable(),
  residualId: Identifier.nullable(),
  messageId: wellFormedString(256),
  /** {@link requestDigest} of the refused write, `null` when its body did not parse. */
  requestDigest: HexDigestSchema.nullable(),
  atMs: EpochMillis,
  /** {@link rejectionOutcomeContentDigest} / {@link conflictOutcomeContentDigest} of the stored item. */
  contentDigest: HexDigestSchema,
});
/** Type of {@link OutcomeStatementSchema}. */
export type OutcomeStatement = z.infer<typeof OutcomeStatementSchema>;

/** Digest of a rejection's stored details (everything but the fields the statement names itself). */
export function rejectionOutcomeContentDigest(rejection: RejectionRecord): HexDigest {
  const { issues, rejectedVariables, requestViolations, verdictDigest, bodyDigest, bodyPreview } = rejection;
  return hashCanonical(HashDomain.OUTCOME_CONTENT, {
    v: 1,
    kind: OutcomeKind.REJECTED,
    issues,
    rejectedVariables,
    requestViolations,
    verdictDigest,
    bodyDigest,
    bodyPreview,
  });
}

/** Digest of a conflict's stored details. */
export function conflictOutcomeContentDigest(conflict: ConflictRecord): HexDigest {
  const { detail, attemptedHeader, expectedHead, observedHead } = conflict;
  return hashCanonical(HashDomain.OUTCOME_CONTENT, {
    v: 1,
    kind: OutcomeKind.CONFLICT,
    detail,
    attemptedHeader,
    expectedHead,
    observedHead,
  });
}

/** The statement a rejection record makes. */
export function rejectionStatement(logName: string, rejection: RejectionRecord): OutcomeStatement {
  return {
    v: 1,
    kind: OutcomeKind.REJECTED,
    log: logName,
    stage: rejection.stage,
    reason: rejection.reason,
    lineageId: rejection.lineageId,
    residualId: rejection.residualId,
    messageId: rejection.messageId,
    requestDigest: rejection.requestDigest,
    atMs: rejection.atMs,
    contentDigest: rejectionOutcomeContentDigest(rejection),
  };
}

/** The statement a conflict record makes (always the sealer's). */
export function conflictStatement(logName: string, conflict: ConflictRecord): OutcomeStatement {
  return {
    v: 1,
    kind: OutcomeKind.CONFLICT,
    log: logName,
    stage: RejectionStage.SEALER,
    reason: conflict.reason,
    lineageId: conflict.lineageId,
    residualId: conflict.residualId,
    messageId: conflict.messageId,
    requestDigest: conflict.requestDigest,
    atMs: conflict.atMs,
    contentDigest: conflictOutcomeContentDigest(conflict),
  };
}

/** The signed-note text of a statement: the tag line, then its RFC 8785 JSON on one line. */
export function outcomeNoteText(statement: OutcomeStatement): string {
  return `${OUTCOME_NOTE_TAG}\n${canonicalJson(statement)}\n`;
}

/** Signs a statement (one `Sign`); returns the signed note. */
export async function signOutcome(statement: OutcomeStatement, signer: NoteSigner): Promise<string> {
  return signNote(outcomeNoteText(statement), signer);
}

/**
 * Opens a signed outcome note: the signature by `key`, the tag line, the statement schema, and
 * `statement.log === logName`.
 *
 * @throws {OutcomeVerificationError} for anything that does not check
 */
export function openOutcome(note: string, key: NoteVerifierKey, logName: string): OutcomeStatement {
  let text: string;
  try {
    text = verifyNote(note, key);
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    throw new OutcomeVerificationError(error.message, { cause: error });
  }
  const lines = text.split('\n');
  if (lines.length !== 3 || lines[0] !== OUTCOME_NOTE_TAG || lines[2] !== '') {
    throw new OutcomeVerificationError(`not a ${OUTCOME_NOTE_TAG} note`);
  }
  let json: unknown;
  try {
    json = JSON.parse(lines[1] as string);
  } catch (error) {
    throw new OutcomeVerificationError('statement is not JSON', { cause: error });
  }
  const parsed = OutcomeStatementSchema.safeParse(json);
  if (!parsed.success) throw new OutcomeVerificationError(`malformed statement: ${parsed.error.issues[0]?.message}`);
  if (parsed.data.log !== logName)
    throw new OutcomeVerificationError(`statement of log ${parsed.data.log}, not ${logName}`);
  return parsed.data;
}

/** A key that signs outcomes: the guard key, the sealer key, or the log key (`SEALER` refusals stored before the sealer key). */
export type OutcomeKeyRole = 'guard' | 'sealer' | 'log';

/**
 * The keys whose signature makes an outcome of `stage` (docs/verifiable-log.md, "Signed
 * outcomes"), in the order tried: `GUARD` the guard key alone; `SEALER` the sealer key, then the
 * log key, which signed the sealer's refusals stored before the sealer key (migration). No
 * other key counts: a note of the guard key claiming `SEALER`, or of the sealer key claiming
 * `GUARD`, is no outcome.
 */
export function outcomeKeyRoles(stage: RejectionStage): readonly OutcomeKeyRole[] {
  return stage === RejectionStage.GUARD ? ['guard'] : ['sealer', 'log'];
}

/** The signed-note key name of each {@link OutcomeKeyRole} in the log named `logName`. */
export function outcomeKeyName(role: OutcomeKeyRole, logName: string): string {
  if (role === 'guard') return guardKeyName(logName);
  if (role === 'sealer') return sealerKeyName(logName);
  return logName;
}

/**
 * Opens the signed outcome of a refusal of `stage` ({@link openOutcome}) with the keys
 * {@link outcomeKeyRoles} names for that stage, taken from `keys` (a missing one is not tried),
 * and requires the statement to name that same stage. A key whose name is not its role's
 * (`<logName>/guard`, `<logName>/sealer`, `<logName>`) is refused, so a verifier key put in the
 * wrong slot never widens who may sign.
 * @throws {OutcomeVerificationError} when no key of the stage verifies the note, or the statement names another stage
 */
export function openOutcomeOfStage(
  note: string,
  stage: RejectionStage,
  keys: Readonly<Partial<Record<OutcomeKeyRole, NoteVerifierKey>>>,
  logName: string,
): OutcomeStatement {
  const failures: string[] = [];
  for (const role of outcomeKeyRoles(stage)) {
    const key = keys[role];
    if (key === undefined) continue;
    if (key.name !== outcomeKeyName(role, logName)) {
      throw new OutcomeVerificationError(`the ${role} key names ${key.name}, not ${outcomeKeyName(role, logName)}`);
    }
    let statement: OutcomeStatement;
    try {
      statement = openOutcome(note, key, logName);
    } catch (error) {
      if (!(error instanceof OutcomeVerificationError)) throw error;
      failures.push(`${role} key: ${error.message}`);
      continue;
    }
    if (statement.stage !== stage) {
      throw new OutcomeVerificationError(`a ${role}-key statement of stage ${statement.stage}, not ${stage}`);
    }
    return statement;
  }
  throw new OutcomeVerificationError(failures.length > 0 ? failures.join('; ') : `no verifier key for stage ${stage}`);
}

/**
 * Checks a stored rejection against its signed statement: every field the statement names, and
 * the details by digest. A table writer can delete a signed rejection but cannot edit, move or
 * forge one.
 * @throws {OutcomeVerificationError} naming the first field that differs
 */
export function checkRejectionOutcome(rejection: RejectionRecord, statement: OutcomeStatement): void {
  const expected = rejectionStatement(statement.log, rejection);
  const differing = (Object.keys(expected) as (keyof OutcomeStatement)[]).filter((k) => expected[k] !== statement[k]);
  if (differing.length > 0) throw new OutcomeVerificationError(`stored rejection differs in ${differing.join(', ')}`);
}

/** {@link checkRejectionOutcome} for a conflict. */
export function checkConflictOutcome(conflict: ConflictRecord, statement: OutcomeStatement): void {
  const expected = conflictStatement(statement.log, conflict);
  const differing = (Object.keys(expected) as (keyof OutcomeStatement)[]).filter((k) => expected[k] !== statement[k]);
  if (differing.length > 0) throw new OutcomeVerificationError(`stored conflict differs in ${differing.join(', ')}`);
}
