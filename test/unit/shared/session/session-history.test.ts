import { describe, expect, it } from 'vitest';
import { InvalidInputError, SessionHistoryError } from '../../../../shared/errors';
import {
  foldSessionHistory,
  isSessionPayload,
  SESSION_ITEM_FORMAT,
  SessionOp,
  type SessionRecordView,
  sessionAddPayload,
  sessionRemovalPayload,
} from '../../../../shared/session/session-history';

// The item ↔ residual payload mapping of docs/frameworks.md, "Session items as residuals".

const hash = (seq: number) => seq.toString(16).padStart(64, '0');
const ref = (seq: number) => ({ seq, recordHash: hash(seq) });
const add = (seq: number, item: Record<string, unknown>): SessionRecordView => ({
  seq,
  recordHash: hash(seq),
  supersedes: null,
  payload: sessionAddPayload(item),
});
const pop = (seq: number, target: number): SessionRecordView => ({
  seq,
  recordHash: hash(seq),
  supersedes: ref(target),
  payload: sessionRemovalPayload(SessionOp.POP),
});
const clear = (seq: number, through: number): SessionRecordView => ({
  seq,
  recordHash: hash(seq),
  supersedes: ref(through),
  payload: sessionRemovalPayload(SessionOp.CLEAR),
});
const user = (text: string) => ({ type: 'message', role: 'user', content: text });
const items = (records: SessionRecordView[]) => foldSessionHistory(records).map(({ item }) => item);

describe('session items as residual payloads', () => {
  it('an item becomes an add payload of the session format, its undefined members left out, and folds back as it was', () => {
    const item = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }], id: undefined };
    const payload = sessionAddPayload(item);
    expect(payload).toEqual({
      format: SESSION_ITEM_FORMAT,
      op: 'add',
      item: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] },
    });
    expect(Object.hasOwn(payload.item, 'id')).toBe(false);
    expect(isSessionPayload(payload)).toBe(true);
    expect(items([add(0, item)])).toEqual([payload.item]);
  });

  it('keeps a member named __proto__ as a member (the payload is what was given, not a prototype change)', () => {
    const item = JSON.parse('{"type":"message","__proto__":{"polluted":true}}') as Record<string, unknown>;
    const payload = sessionAddPayload(item);
    expect(Object.getPrototypeOf(payload.item)).toBe(Object.prototype);
    expect(Object.keys(payload.item)).toEqual(['type', '__proto__']);
    expect(JSON.stringify(payload.item)).toBe('{"type":"message","__proto__":{"polluted":true}}');
  });

  it.each([
    ['a function', { type: 'message', call: () => 1 }, 'call'],
    ['a bigint', { type: 'message', tokens: 10n }, 'tokens'],
    ['a non-finite number', { type: 'message', score: Number.NaN }, 'score'],
    ['undefined in an array', { type: 'message', content: ['a', undefined] }, 'content'],
    ['a Date', { type: 'message', at: new Date(0) }, 'at'],
    ['a symbol', { type: 'message', tag: Symbol('x') }, 'tag'],
  ])('refuses an item holding %s, naming where', (_what, item, path) => {
    const attempt = () => sessionAddPayload(item);
    expect(attempt).toThrow(InvalidInputError);
    expect(attempt).toThrow(path);
  });

  it.each([
    ['a string', 'hello'],
    ['an array', [user('a')]],
    ['null', null],
  ])('refuses %s as an item: a session item is a JSON object', (_what, item) => {
    expect(() => sessionAddPayload(item)).toThrow(/session item at <root>: a session item must be a JSON object/);
  });

  it('a tombstone removes the item its sealed supersedes names; the other items keep their order', () => {
    expect(items([add(0, user('a')), add(1, user('b')), add(2, user('c')), pop(3, 2)])).toEqual([user('a'), user('b')]);
    expect(items([add(0, user('a')), add(1, user('b')), pop(2, 0)])).toEqual([user('b')]);
    // Popping twice: each tombstone names its own item.
    expect(items([add(0, user('a')), add(1, user('b')), pop(2, 1), pop(3, 0)])).toEqual([]);
    // The same item popped twice (two writers) stays removed, once.
    expect(items([add(0, user('a')), add(1, user('b')), pop(2, 1), pop(3, 1)])).toEqual([user('a')]);
  });

  it('a clear removes every item added at or before the record it supersedes; later items live on', () => {
    const history = [add(0, user('a')), add(1, user('b')), clear(2, 1), add(3, user('c'))];
    expect(items(history)).toEqual([user('c')]);
    expect(foldSessionHistory(history).map(({ ref: r }) => r)).toEqual([ref(3)]);
    // A clear naming an earlier record leaves what came after it.
    expect(items([add(0, user('a')), add(1, user('b')), clear(2, 0)])).toEqual([user('b')]);
  });

  it("skips the lineage's other residuals (not of the session format)", () => {
    const note: SessionRecordView = { seq: 1, recordHash: hash(1), supersedes: null, payload: { note: 'db is pg16' } };
    const spoof: SessionRecordView = { seq: 2, recordHash: hash(2), supersedes: null, payload: ['format', 'op'] };
    expect(items([add(0, user('a')), note, spoof, add(3, user('b'))])).toEqual([user('a'), user('b')]);
    expect(isSessionPayload({ format: 'reseal.session-item/2', op: 'add' })).toBe(false);
  });

  it.each([
    [
      'an unknown op',
      [{ seq: 0, recordHash: hash(0), supersedes: null, payload: { format: SESSION_ITEM_FORMAT, op: 'edit' } }],
      'unknown op "edit"',
    ],
    [
      'an add without an item',
      [{ seq: 0, recordHash: hash(0), supersedes: null, payload: { format: SESSION_ITEM_FORMAT, op: 'add' } }],
      'an add record holds no item',
    ],
    ['an add that supersedes', [add(0, user('a')), { ...add(1, user('b')), supersedes: ref(0) }], 'supersedes nothing'],
    [
      'a pop without supersedes',
      [add(0, user('a')), { ...pop(1, 0), supersedes: null }],
      'a pop record must supersede',
    ],
    ['a pop of a later record', [add(0, user('a')), pop(1, 1)], 'not an earlier record'],
    [
      'a pop naming another hash',
      [add(0, user('a')), { ...pop(1, 0), supersedes: { seq: 0, recordHash: hash(9) } }],
      'not an earlier record',
    ],
    ['a pop of a tombstone', [add(0, user('a')), pop(1, 0), pop(2, 1)], 'adds no session item'],
    ['a clear naming a missing record', [add(0, user('a')), clear(2, 1)], 'not an earlier record'],
  ])('refuses a history with %s (SessionHistoryError naming the record)', (_what, records, reason) => {
    const attempt = () => foldSessionHistory(records as SessionRecordView[]);
    expect(attempt).toThrow(SessionHistoryError);
    expect(attempt).toThrow(reason);
  });
});
