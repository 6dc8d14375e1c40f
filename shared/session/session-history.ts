import type { JsonValue } from '../canonical/canonical-json';
import { type InputIssue, InvalidInputError, SessionHistoryError } from '../errors';
import type { RecordRef } from '../schemas/record-ref';

/**
 * A conversation session kept as residuals of one lineage (docs/frameworks.md, "Session items as
 * residuals"): the pure mapping between a framework's session items and residual payloads, and the
 * fold of a verified lineage back into the items that are live. Framework-neutral: an item is any
 * JSON object, so every framework adapter, in any language, reads the same history.
 */

/** The `format` member of every session payload; a record whose payload lacks it is not a session record. */
export const SESSION_ITEM_FORMAT = 'reseal.session-item/1';

/** What a session record does: append one item, remove one (a tombstone), or remove all before it. */
export const SessionOp = { ADD: 'add', POP: 'pop', CLEAR: 'clear' } as const;
/** One of {@link SessionOp}. */
export type SessionOp = (typeof SessionOp)[keyof typeof SessionOp];

/** A session item as stored: a JSON object (members that were `undefined` left out). */
export type SessionItem = { [key: string]: JsonValue };

/** The payload of an `add` record: the item itself. */
export interface SessionAddPayload {
  readonly format: typeof SESSION_ITEM_FORMAT;
  readonly op: typeof SessionOp.ADD;
  readonly item: SessionItem;
}

/**
 * The payload of a tombstone (`pop`) or a `clear` record. What it removes is named by the
 * record's sealed header (`supersedes`), never by the payload: a `pop` supersedes the `add`
 * record of the item it removes, a `clear` the last record of the lineage when it was written.
 */
export interface SessionRemovalPayload {
  readonly format: typeof SESSION_ITEM_FORMAT;
  readonly op: typeof SessionOp.POP | typeof SessionOp.CLEAR;
}

/** Any session payload. */
export type SessionPayload = SessionAddPayload | SessionRemovalPayload;

/** What the fold reads of one verified record of the lineage. */
export interface SessionRecordView {
  readonly seq: number;
  readonly recordHash: string;
  /** The header's `supersedes`: what a `pop` or `clear` removes; `null` on an `add`. */
  readonly supersedes: RecordRef | null;
  readonly payload: unknown;
}

/** A live item of the history, with the record that added it (what a tombstone supersedes). */
export interface LiveSessionItem {
  readonly item: SessionItem;
  readonly ref: RecordRef;
}

/**
 * The payload that appends `item` (an SDK session item, e.g. an `AgentInputItem`), as JSON:
 * members whose value is `undefined` are left out, as `JSON.stringify` leaves them out.
 *
 * @throws {InvalidInputError} naming the path of the first value JSON cannot carry exactly (a
 *   function, a symbol, a `bigint`, a number that is not finite, `undefined` in an array, an
 *   object that is not plain), or when `item` is not an object
 */
export function sessionAddPayload(item: unknown): SessionAddPayload {
  const issues: InputIssue[] = [];
  const json = toJson(item, '', issues);
  if (issues.length === 0 && (json === null || typeof json !== 'object' || Array.isArray(json))) {
    issues.push({ path: '', message: 'a session item must be a JSON object' });
  }
  if (issues.length > 0) throw new InvalidInputError('session item', issues);
  return { format: SESSION_ITEM_FORMAT, op: SessionOp.ADD, item: json as SessionItem };
}

/** The payload of a tombstone (`pop`) or a `clear` record; the record's `supersedes` names what it removes. */
export function sessionRemovalPayload(op: typeof SessionOp.POP | typeof SessionOp.CLEAR): SessionRemovalPayload {
  return { format: SESSION_ITEM_FORMAT, op };
}

/**
 * Whether a payload is a session payload at all (its `format` is {@link SESSION_ITEM_FORMAT}).
 * Other residuals of the same lineage (an agent's own conclusions) are not session items.
 */
export function isSessionPayload(payload: unknown): boolean {
  return (
    typeof payload === 'object' &&
    payload !== null &&
    !Array.isArray(payload) &&
    (payload as { format?: unknown }).format === SESSION_ITEM_FORMAT
  );
}

/**
 * The live items of a session, oldest first, from the records of its lineage in seq order
 * (verified by the caller: every record proven in the signed log). Each `add` appends its item;
 * a `pop` removes the item its `supersedes` names; a `clear` removes every item added at or
 * before the record its `supersedes` names. Nothing is erased: the records stay, the fold skips.
 * Records whose payload is not a session payload are skipped.
 *
 * @throws {SessionHistoryError} when a session record is malformed: an unknown `op`, an `add`
 *   without an object item or with a `supersedes`, a removal without one, or one that names a
 *   record that is not earlier in the lineage with that hash (a `pop` must name an `add`)
 */
export function foldSessionHistory(records: readonly SessionRecordView[]): LiveSessionItem[] {
  const bySeq = new Map<number, SessionRecordView>();
  const live = new Map<number, LiveSessionItem>();
  for (const record of records) {
    bySeq.set(record.seq, record);
    if (!isSessionPayload(record.payload)) continue;
    const payload = record.payload as { op?: unknown; item?: unknown };
    const bad = (reason: string) => new SessionHistoryError(record.seq, reason);
    if (payload.op === SessionOp.ADD) {
      if (record.supersedes !== null) throw bad('an add record supersedes nothing');
      const { item } = payload;
      if (typeof item !== 'object' || item === null || Array.isArray(item)) throw bad('an add record holds no item');
      live.set(record.seq, { item: item as SessionItem, ref: { seq: record.seq, recordHash: record.recordHash } });
      continue;
    }
    if (payload.op !== SessionOp.POP && payload.op !== SessionOp.CLEAR) {
      throw bad(`unknown op ${JSON.stringify(payload.op)}`);
    }
    const target = record.supersedes;
    if (target === null) throw bad(`a ${payload.op} record must supersede a record`);
    const named = bySeq.get(target.seq);
    if (target.seq >= record.seq || named === undefined || named.recordHash !== target.recordHash) {
      throw bad(`it supersedes seq ${target.seq}, which is not an earlier record of the lineage with that hash`);
    }
    if (payload.op === SessionOp.POP) {
      if (!isSessionPayload(named.payload) || (named.payload as { op?: unknown }).op !== SessionOp.ADD) {
        throw bad(`its tombstone names seq ${target.seq}, which adds no session item`);
      }
      // Removing an item already removed (two writers popped the same one) leaves it removed.
      live.delete(target.seq);
    } else {
      for (const seq of [...live.keys()]) if (seq <= target.seq) live.delete(seq);
    }
  }
  return [...live.values()];
}

/** `value` as JSON, recording an issue (and returning `null`) for the first value JSON cannot carry. */
function toJson(value: unknown, path: string, issues: InputIssue[]): JsonValue {
  if (issues.length > 0) return null;
  const refuse = (message: string): null => {
    issues.push({ path, message });
    return null;
  };
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : refuse(`${value} is not a JSON number`);
  if (Array.isArray(value)) {
    return value.map((element, index) =>
      element === undefined ? refuse(`element ${index} is undefined`) : toJson(element, `${path}[${index}]`, issues),
    );
  }
  if (typeof value === 'object') {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return refuse('not a plain object');
    const out: SessionItem = {};
    for (const [key, member] of Object.entries(value)) {
      if (member === undefined) continue;
      // defineProperty: a member named `__proto__` stays a member, not the object's prototype.
      Object.defineProperty(out, key, {
        value: toJson(member, path === '' ? key : `${path}.${key}`, issues),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return refuse(`a ${typeof value} is not JSON`);
}
