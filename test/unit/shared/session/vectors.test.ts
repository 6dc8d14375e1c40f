import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SessionHistoryError } from '../../../../shared/errors';
import {
  foldSessionHistory,
  SessionOp,
  type SessionRecordView,
  sessionAddPayload,
  sessionRemovalPayload,
} from '../../../../shared/session/session-history';
import { sessionItemVectors } from './vectors.generate';

// The payloads and fold of docs/frameworks.md, "Session items as residuals", against the file the
// Python package's session adapter is held to as well. Read with JSON.parse, not an import: a
// member named __proto__ must stay a member.
// biome-ignore lint/suspicious/noExplicitAny: vectors are untyped JSON on purpose
type Json = any;
const file: Json = JSON.parse(readFileSync(new URL('../../../vectors/session-item.json', import.meta.url), 'utf8'));

describe('session-item vectors', () => {
  it('the committed file is what the generator writes (a format change is reviewed, never silent)', () => {
    expect(file).toEqual(JSON.parse(JSON.stringify(sessionItemVectors())));
  });

  it.each(file.payloads as Json[])('$name: the item becomes the add payload of the file', (c: Json) => {
    expect(sessionAddPayload(c.item)).toEqual(c.payload);
  });

  it("the pop and clear payloads are the file's", () => {
    expect(sessionRemovalPayload(SessionOp.POP)).toEqual(file.removals.pop);
    expect(sessionRemovalPayload(SessionOp.CLEAR)).toEqual(file.removals.clear);
  });

  it.each(file.histories as Json[])('$name: folds as the file says', (h: Json) => {
    const records: SessionRecordView[] = h.records;
    if (h.live) {
      const live = foldSessionHistory(records).map(({ item, ref }) => ({
        item,
        seq: ref.seq,
        recordHash: ref.recordHash,
      }));
      expect(live).toEqual(h.live);
      return;
    }
    let thrown: unknown;
    try {
      foldSessionHistory(records);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SessionHistoryError);
    expect({ seq: (thrown as SessionHistoryError).seq, reason: (thrown as SessionHistoryError).reason }).toEqual(
      h.error,
    );
  });
});
