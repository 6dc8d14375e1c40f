/**
 * Writes test/vectors/session-item.json (docs/frameworks.md, "Session items as residuals"): run
 * once with
 * `npx tsx test/unit/shared/session/vectors.generate.ts > /tmp/session-item.json && mv /tmp/session-item.json test/vectors/session-item.json`,
 * then review the diff by hand. `vectors.test.ts` compares the file with {@link sessionItemVectors},
 * so a format change shows up as a failing test, never as a silently regenerated file; the Python
 * package's `test_session_items.py` folds the same records with its own code.
 */
import { pathToFileURL } from 'node:url';
import { SessionHistoryError } from '../../../../shared/errors';
import {
  foldSessionHistory,
  SESSION_ITEM_FORMAT,
  SessionOp,
  type SessionRecordView,
  sessionAddPayload,
  sessionRemovalPayload,
} from '../../../../shared/session/session-history';

/** A fixed record hash per seq (any 64 lowercase hex digits: the fold compares, never recomputes). */
const hash = (seq: number) => `${'5e55'.repeat(14)}${seq.toString(16).padStart(8, '0')}`;
const ref = (seq: number) => ({ seq, recordHash: hash(seq) });

/** Items as the two languages' OpenAI Agents SDKs write them (a TS `AgentInputItem`, a Python Responses item). */
const ITEMS = {
  tsUser: { type: 'message', role: 'user', content: 'My order is #1234.' },
  tsAssistant: {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'Noted: order #1234 — ✓', providerData: { annotations: [] } }],
  },
  pyUser: { role: 'user', content: 'Où est ma commande ?' },
  pyFunctionCall: {
    type: 'function_call',
    call_id: 'call_7',
    name: 'lookup_order',
    arguments: '{"order":1234}',
    id: null,
  },
  pyFunctionOutput: { type: 'function_call_output', call_id: 'call_7', output: '{"status":"shipped","eta_days":2.5}' },
  protoMember: JSON.parse('{"type":"message","role":"user","content":"hi","__proto__":{"polluted":true}}') as Record<
    string,
    unknown
  >,
};

type Op = { add: keyof typeof ITEMS } | { pop: number } | { clear: number };

/** The records of a history, seq 0, 1, …: an add has no `supersedes`; a pop or clear names seq `n`. */
const records = (ops: readonly Op[]): SessionRecordView[] =>
  ops.map((op, seq) => {
    if ('add' in op) return { seq, recordHash: hash(seq), supersedes: null, payload: sessionAddPayload(ITEMS[op.add]) };
    if ('pop' in op)
      return { seq, recordHash: hash(seq), supersedes: ref(op.pop), payload: sessionRemovalPayload(SessionOp.POP) };
    return { seq, recordHash: hash(seq), supersedes: ref(op.clear), payload: sessionRemovalPayload(SessionOp.CLEAR) };
  });

const view = (
  seq: number,
  payload: unknown,
  supersedes: SessionRecordView['supersedes'] = null,
): SessionRecordView => ({
  seq,
  recordHash: hash(seq),
  supersedes,
  payload,
});

/** Histories that fold: their records, and the live items with the record that added each. */
const FOLDING: ReadonlyArray<readonly [string, SessionRecordView[]]> = [
  ['an empty history', []],
  ['items in order, from both languages', records([{ add: 'tsUser' }, { add: 'pyUser' }, { add: 'tsAssistant' }])],
  [
    'a tool call and its output',
    records([{ add: 'pyUser' }, { add: 'pyFunctionCall' }, { add: 'pyFunctionOutput' }, { add: 'tsAssistant' }]),
  ],
  ['a pop removes the item its supersedes names', records([{ add: 'tsUser' }, { add: 'tsAssistant' }, { pop: 1 }])],
  ['a pop of an older item keeps the order of the rest', records([{ add: 'tsUser' }, { add: 'pyUser' }, { pop: 0 }])],
  [
    'the same item popped twice stays removed, once',
    records([{ add: 'tsUser' }, { add: 'pyUser' }, { pop: 1 }, { pop: 1 }]),
  ],
  [
    'a clear removes every item added at or before the record it names; later ones live',
    records([{ add: 'tsUser' }, { add: 'pyUser' }, { clear: 1 }, { add: 'tsAssistant' }]),
  ],
  [
    'a clear naming an earlier record leaves what came after it',
    records([{ add: 'tsUser' }, { add: 'pyUser' }, { clear: 0 }]),
  ],
  ['a member named __proto__ is a member', records([{ add: 'protoMember' }])],
  [
    "the lineage's other residuals are skipped (another format, none, not an object)",
    [
      view(0, sessionAddPayload(ITEMS.tsUser)),
      view(1, { note: 'db is pg16' }),
      view(2, { format: 'reseal/openai-agents-session/v1', op: 'add', item: ITEMS.pyUser }),
      view(3, { format: 'reseal.session-item/2', op: 'add', item: ITEMS.pyUser }),
      view(4, ['format', 'op']),
      view(5, 'reseal.session-item/1'),
      view(6, sessionAddPayload(ITEMS.pyUser)),
    ],
  ],
];

const add0 = view(0, sessionAddPayload(ITEMS.tsUser));
/** Histories whose records are authentic but do not fold: `SessionHistoryError` with the record's seq and reason. */
const REFUSED: ReadonlyArray<readonly [string, SessionRecordView[]]> = [
  ['an unknown op', [view(0, { format: SESSION_ITEM_FORMAT, op: 'edit' })]],
  ['an op that is missing', [view(0, { format: SESSION_ITEM_FORMAT, item: ITEMS.tsUser })]],
  ['an add without an item', [view(0, { format: SESSION_ITEM_FORMAT, op: 'add' })]],
  ['an add whose item is an array', [view(0, { format: SESSION_ITEM_FORMAT, op: 'add', item: [ITEMS.tsUser] })]],
  ['an add that supersedes', [add0, view(1, sessionAddPayload(ITEMS.pyUser), ref(0))]],
  ['a pop without supersedes', [add0, view(1, sessionRemovalPayload(SessionOp.POP))]],
  ['a clear without supersedes', [add0, view(1, sessionRemovalPayload(SessionOp.CLEAR))]],
  ['a pop of itself', [add0, view(1, sessionRemovalPayload(SessionOp.POP), ref(1))]],
  ['a pop naming another hash', [add0, view(1, sessionRemovalPayload(SessionOp.POP), { seq: 0, recordHash: hash(9) })]],
  ['a pop of a tombstone', records([{ add: 'tsUser' }, { pop: 0 }, { pop: 1 }])],
  [
    'a pop of a record that is not a session record',
    [view(0, { note: 'x' }), view(1, sessionRemovalPayload(SessionOp.POP), ref(0))],
  ],
  ['a clear naming a missing record', [add0, view(2, sessionRemovalPayload(SessionOp.CLEAR), ref(1))]],
];

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** The vector file's content. */
export function sessionItemVectors() {
  return {
    description:
      'Reseal session-item vectors (docs/frameworks.md, "Session items as residuals"). payloads: item → the add payload sessionAddPayload(item) / session_add_payload(item) writes; removals: the pop and clear payloads. histories: records in seq order (seq, recordHash, the header\'s supersedes, payload) and either live (the folded items, oldest first, each with the seq and recordHash of the record that added it) or error (SessionHistoryError: the seq and reason). Every language\'s session adapter writes these payloads and folds these histories alike.',
    formatVersion: 1,
    format: SESSION_ITEM_FORMAT,
    payloads: Object.entries(ITEMS).map(([name, item]) => ({ name, item, payload: sessionAddPayload(item) })),
    removals: { pop: sessionRemovalPayload(SessionOp.POP), clear: sessionRemovalPayload(SessionOp.CLEAR) },
    histories: [
      ...FOLDING.map(([name, recs]) => ({
        name,
        records: recs,
        live: foldSessionHistory(recs).map(({ item, ref: r }) => ({ item, seq: r.seq, recordHash: r.recordHash })),
      })),
      ...REFUSED.map(([name, recs]) => {
        try {
          foldSessionHistory(recs);
        } catch (error) {
          if (!(error instanceof SessionHistoryError)) throw error;
          return { name, records: recs, error: { seq: error.seq, reason: error.reason } };
        }
        throw new Error(`${name}: the fold did not refuse it`);
      }),
    ].map(json),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${JSON.stringify(sessionItemVectors(), null, 2)}\n`);
}
