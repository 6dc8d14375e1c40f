import { hash } from 'node:crypto';
import { HashDomain } from '../canonical/hash-domain';
import { InvalidInputError, ReAnchorFormatError } from '../errors';
import { DEFAULT_MAX_CLOCK_SKEW_SECONDS } from '../guard/policy';
import { HASH_BYTES } from '../log/merkle-hash';
import type { NoteVerifierKey } from '../log/note-key';
import { type NoteSignature, parseSignedNote } from '../log/signed-note';
import { decodeStrictBase64, encodeBase64 } from '../log/strict-base64';
import { verifyEd25519 } from '../log/verify-ed25519';

/** First line of every re-anchor statement: names the format (docs/deployment-log.md, "Re-anchor"). */
export const RE_ANCHOR_HEADER = 'reseal/v1/re-anchor';
/** Longest `reason`, in characters. */
export const MAX_RE_ANCHOR_REASON = 256;

/** A tree head named by a statement: size (leaves) and RFC 9162 root (32 bytes). */
export interface TreeHead {
  readonly size: number;
  readonly rootHash: Uint8Array;
}

/**
 * The operator's re-anchor of a deployment log after a legitimate restore (docs/deployment-log.md,
 * "Re-anchor"): the log's history continues from the `restored` head (what the table holds), and
 * the checkpoint the witness had cosigned beyond it (`lost`) is named, with when and why.
 */
export interface ReAnchorStatement {
  /** The deployment log's origin, `reseal/<stackName>`. */
  readonly origin: string;
  /** The authenticated head the table holds after the restore; the re-anchor leaf is appended at its size. */
  readonly restored: TreeHead;
  /** The newest checkpoint of the old history the witness cosigned (its stored state), which the restore lost. */
  readonly lost: TreeHead;
  /** When the operator made the statement, POSIX seconds. */
  readonly timeSeconds: number;
  /** Why, for people: 1–{@link MAX_RE_ANCHOR_REASON} printable characters, one line. */
  readonly reason: string;
}

/**
 * Furthest a statement's `time` may lie after the integrator's clock, in seconds: the guard's
 * tolerated clock skew (docs/deployment-log.md, "The statement"). The kept-checkpoint rule ("What
 * clients see") explains a checkpoint only when a quorum cosigned it before `time`, so a statement
 * dated in the future would explain checkpoints of the re-anchored history itself.
 */
export const MAX_RE_ANCHOR_TIME_AHEAD_SECONDS = DEFAULT_MAX_CLOCK_SKEW_SECONDS;

/**
 * Why a statement's `time` (POSIX seconds) is refused against `nowSeconds` (the checker's clock,
 * POSIX seconds), or `null` when it lies at most {@link MAX_RE_ANCHOR_TIME_AHEAD_SECONDS} after it
 * (docs/deployment-log.md, "The statement"). Pure; never throws.
 */
export function futureReAnchorTime(statement: ReAnchorStatement, nowSeconds: number): string | null {
  const aheadSeconds = statement.timeSeconds - nowSeconds;
  if (aheadSeconds <= MAX_RE_ANCHOR_TIME_AHEAD_SECONDS) return null;
  return `the statement's time ${statement.timeSeconds} lies ${aheadSeconds} s after now (${nowSeconds}); at most ${MAX_RE_ANCHOR_TIME_AHEAD_SECONDS} s of clock skew is tolerated`;
}

/**
 * Why a statement dated `timeSeconds` (POSIX seconds) is refused by a client against the time a
 * quorum of its policy's witnesses had cosigned the deployment checkpoint that carries it
 * (`carrierCosignedAtSeconds`, `quorumCosignedAt`), or `null` when it is no later
 * (docs/deployment-log.md, "What clients see"). The integrator tolerates a statement up to
 * {@link MAX_RE_ANCHOR_TIME_AHEAD_SECONDS} ahead of its clock; a client holds it to the witnesses'
 * clock instead, so no checkpoint cosigned after the re-anchor can be older than the statement.
 * `null` too when no quorum time is known (`quorum none`): nothing to hold it to. Pure.
 */
export function reAnchorTimeAfterCosignature(
  timeSeconds: number,
  carrierCosignedAtSeconds: number | null,
): string | null {
  if (carrierCosignedAtSeconds === null || timeSeconds <= carrierCosignedAtSeconds) return null;
  return `the re-anchor statement is dated ${timeSeconds}, ${timeSeconds - carrierCosignedAtSeconds} s after the policy's witnesses had cosigned the deployment checkpoint that carries it (${carrierCosignedAtSeconds}): a statement dated ahead of the witnesses would explain checkpoints cosigned after the re-anchor`;
}

const bad = (path: string, message: string) => new ReAnchorFormatError(path, message);
const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;
const PRINTABLE = /^[^\p{Cc}\p{Zl}\p{Zp}]+$/u;

function checkHead(head: TreeHead, path: string): void {
  if (!Number.isSafeInteger(head?.size) || head.size < 0) throw bad(`${path}.size`, 'expected a safe integer ≥ 0');
  if (!(head.rootHash instanceof Uint8Array) || head.rootHash.byteLength !== HASH_BYTES) {
    throw bad(`${path}.rootHash`, `expected ${HASH_BYTES} bytes`);
  }
}

/**
 * Checks a statement's fields and their relation: the lost checkpoint is one the restored head
 * cannot be extended to (larger, or the same size with another root), and the origin and reason are
 * single printable lines.
 *
 * @throws {ReAnchorFormatError} naming the field that is wrong
 */
export function checkReAnchorStatement(s: ReAnchorStatement): void {
  if (typeof s?.origin !== 'string' || !/^\S+$/.test(s.origin) || !PRINTABLE.test(s.origin)) {
    throw bad('origin', 'expected a non-empty origin without white space');
  }
  checkHead(s.restored, 'restored');
  checkHead(s.lost, 'lost');
  const sameRoot = Buffer.compare(s.restored.rootHash, s.lost.rootHash) === 0;
  if (s.lost.size < s.restored.size || (s.lost.size === s.restored.size && sameRoot)) {
    throw bad('lost', 'the lost checkpoint must be larger than the restored head, or of its size with another root');
  }
  if (!Number.isSafeInteger(s.timeSeconds) || s.timeSeconds < 0) throw bad('time', 'expected POSIX seconds ≥ 0');
  if (
    typeof s.reason !== 'string' ||
    !s.reason.isWellFormed() ||
    s.reason.length > MAX_RE_ANCHOR_REASON ||
    !PRINTABLE.test(s.reason) ||
    s.reason !== s.reason.trim()
  ) {
    throw bad('reason', `expected 1–${MAX_RE_ANCHOR_REASON} printable characters on one line, no outer spaces`);
  }
}

/**
 * The statement's text (a signed-note text, every line ending in a newline):
 *
 * ```
 * reseal/v1/re-anchor
 * origin <origin>
 * restored <size> <base64 root>
 * lost <size> <base64 root>
 * time <POSIX seconds>
 * reason <text>
 * ```
 *
 * @throws {ReAnchorFormatError} as {@link checkReAnchorStatement}
 */
export function formatReAnchorStatement(s: ReAnchorStatement): string {
  checkReAnchorStatement(s);
  return [
    RE_ANCHOR_HEADER,
    `origin ${s.origin}`,
    `restored ${s.restored.size} ${encodeBase64(s.restored.rootHash)}`,
    `lost ${s.lost.size} ${encodeBase64(s.lost.rootHash)}`,
    `time ${s.timeSeconds}`,
    `reason ${s.reason}`,
    '',
  ].join('\n');
}

function headOf(words: readonly string[], path: string): TreeHead {
  const [size, root] = words;
  const rootHash = root === undefined ? undefined : decodeStrictBase64(root);
  if (words.length !== 2 || size === undefined || !DECIMAL.test(size) || !Number.isSafeInteger(Number(size))) {
    throw bad(path, 'expected "<size> <base64 root>" with a decimal size');
  }
  if (rootHash === undefined || rootHash.byteLength !== HASH_BYTES)
    throw bad(path, 'the root is not base64 of 32 bytes');
  return { size: Number(size), rootHash };
}

/**
 * Reads a statement text strictly: exactly the six lines of {@link formatReAnchorStatement}, in
 * that order, so that a statement has one spelling and its hash one meaning.
 *
 * @throws {ReAnchorFormatError} naming the line that is wrong
 */
export function parseReAnchorStatement(text: string): ReAnchorStatement {
  if (typeof text !== 'string' || !text.endsWith('\n')) throw bad('', 'expected text ending in a newline');
  const lines = text.slice(0, -1).split('\n');
  if (lines.length !== 6 || lines[0] !== RE_ANCHOR_HEADER) {
    throw bad('', `expected "${RE_ANCHOR_HEADER}" and five lines: origin, restored, lost, time, reason`);
  }
  const field = (i: number, name: string): string => {
    const line = lines[i] ?? '';
    if (!line.startsWith(`${name} `)) throw bad(name, `line ${i + 1} must start with "${name} "`);
    return line.slice(name.length + 1);
  };
  const time = field(4, 'time');
  if (!DECIMAL.test(time)) throw bad('time', 'expected decimal POSIX seconds');
  const statement: ReAnchorStatement = {
    origin: field(1, 'origin'),
    restored: headOf(field(2, 'restored').split(' '), 'restored'),
    lost: headOf(field(3, 'lost').split(' '), 'lost'),
    timeSeconds: Number(time),
    reason: field(5, 'reason'),
  };
  checkReAnchorStatement(statement);
  return statement;
}

const PREFIX = Buffer.from(`${HashDomain.RE_ANCHOR}\0`, 'ascii');

/**
 * The statement hash every leaf of the re-anchored history commits to:
 * `SHA-256("reseal/v1/re-anchor" || 0x00 || UTF-8(text))`, 32 raw bytes (docs/deployment-log.md,
 * "Re-anchor"). Over the text only, so the signatures (the operator's, the log's) may be checked
 * apart from it.
 */
export function reAnchorStatementHash(text: string): Uint8Array {
  return hash('sha256', Buffer.concat([PREFIX, Buffer.from(text, 'utf8')]), 'buffer');
}

/** A statement note that verified: its text, fields and hash. */
export interface VerifiedReAnchor {
  readonly kind: 'VERIFIED';
  /** The note as given (its signatures included). */
  readonly note: string;
  readonly text: string;
  readonly statement: ReAnchorStatement;
  /** {@link reAnchorStatementHash} of the text. */
  readonly hash: Uint8Array;
}

/** Why a statement note is refused. */
export interface RefusedReAnchor {
  readonly kind: 'REFUSED';
  readonly reason: string;
}

/** What {@link verifyReAnchorStatement} checks a note against. */
export interface ReAnchorKeys {
  /** The origin the statement must name (the deployment log's). */
  readonly origin: string;
  /**
   * The log's keys: a valid signature by one of them is required; `null` before the log signed it
   * (the integrator checks the operator's statement before its log key signs anything).
   */
  readonly logKeys: readonly NoteVerifierKey[] | null;
  /**
   * The recovery keys: a valid signature by one of them is required; `null` when the verifier does
   * not know them (a client, which relies on the witness's cosignatures of the re-anchored history).
   */
  readonly recoveryKeys: readonly NoteVerifierKey[] | null;
}

/**
 * Whether one of `keys` signed `text` among `signatures`: a line by a key (its name and key hash)
 * that verifies counts; one by a key of `keys` that fails refuses the note (C2SP signed-note).
 */
function signedByOneOf(text: string, signatures: readonly NoteSignature[], keys: readonly NoteVerifierKey[]): boolean {
  const message = Buffer.from(text, 'utf8');
  let verified = false;
  for (const key of keys) {
    for (const sig of signatures) {
      if (sig.name !== key.name || Buffer.compare(sig.keyHash, key.keyHash) !== 0) continue;
      if (!verifyEd25519(key.publicKey, message, sig.signature)) return false;
      verified = true;
    }
  }
  return verified;
}

/**
 * Verifies a re-anchor statement note (docs/deployment-log.md, "Re-anchor"): a signed note whose
 * text is a well-formed statement of `origin`, signed by one of the log's keys and by one of the
 * recovery keys, each checked when given (`null`: not this verifier's to check). Never throws for
 * a bad note.
 */
export function verifyReAnchorStatement(note: string, keys: ReAnchorKeys): VerifiedReAnchor | RefusedReAnchor {
  let text: string;
  let signatures: NoteSignature[];
  let statement: ReAnchorStatement;
  try {
    ({ text, signatures } = parseSignedNote(note));
    statement = parseReAnchorStatement(text);
  } catch (error) {
    if (error instanceof InvalidInputError) return { kind: 'REFUSED', reason: `malformed: ${error.message}` };
    throw error;
  }
  if (statement.origin !== keys.origin) {
    return { kind: 'REFUSED', reason: `the statement is of origin ${statement.origin}, not ${keys.origin}` };
  }
  if (keys.logKeys !== null && !signedByOneOf(text, signatures, keys.logKeys))
    return { kind: 'REFUSED', reason: 'not signed by the log key' };
  if (keys.recoveryKeys !== null && !signedByOneOf(text, signatures, keys.recoveryKeys)) {
    return { kind: 'REFUSED', reason: 'not signed by a recovery key' };
  }
  return { kind: 'VERIFIED', note, text, statement, hash: reAnchorStatementHash(text) };
}

/**
 * What a client is shown of a re-anchor (docs/deployment-log.md, "Re-anchor", "Clients"): what was
 * lost (the old history's newest cosigned checkpoint, beyond the restored head), when and why, and
 * the statement note itself. Roots are standard base64, as in checkpoints; the hash is hex.
 */
export interface ReAnchorNotice {
  readonly restoredSize: number;
  readonly restoredRootHash: string;
  readonly lostSize: number;
  readonly lostRootHash: string;
  /** Leaves of the old history the restore lost: `lostSize − restoredSize`. */
  readonly lostLeaves: number;
  readonly timeSeconds: number;
  readonly reason: string;
  /** {@link reAnchorStatementHash}, hex: what every leaf of the re-anchored history commits to. */
  readonly statementHash: string;
  readonly note: string;
}

/** The {@link ReAnchorNotice} of a verified statement. */
export function reAnchorNotice(verified: VerifiedReAnchor): ReAnchorNotice {
  const { statement } = verified;
  return {
    restoredSize: statement.restored.size,
    restoredRootHash: encodeBase64(statement.restored.rootHash),
    lostSize: statement.lost.size,
    lostRootHash: encodeBase64(statement.lost.rootHash),
    lostLeaves: statement.lost.size - statement.restored.size,
    timeSeconds: statement.timeSeconds,
    reason: statement.reason,
    statementHash: Buffer.from(verified.hash).toString('hex'),
    note: verified.note,
  };
}
