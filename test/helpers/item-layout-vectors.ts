import {
  conflictItem,
  conflictOf,
  frontierOf,
  headItem,
  headOf,
  type Item,
  locationOf,
  markerItem,
  readJson,
  readString,
  recordItem,
  recordOf,
  rejectionItem,
  rejectionOf,
  triageReportItem,
  triageReportOf,
} from '../../adapters/dynamodb-item-codec';
import { Keys } from '../../adapters/dynamodb-table-keys';
import type { TriageCompletedDetail } from '../../shared/pipeline/messages';
import { lineageHeadOf } from '../../shared/seal/sealed-record';
import { signedConflict, signedRejection } from './outcome-factories';
import { buildChain, TEST_LINEAGE_ID } from './seal-factories';

/**
 * The item-layout vectors (test/vectors/item-layout.json): every item kind a client reads from
 * the lineage table, built by the real codec (adapters/dynamodb-item-codec.ts) in DynamoDB's
 * `AttributeValue` JSON form, with what the codec's readers make of it; and hostile items (wrong
 * attribute types, unreadable JSON) with what the readers make of those. A second reader (the
 * Python package) decodes the same items and must agree, so a storage change breaks both.
 */
export async function itemLayoutVectors() {
  const lineageId = TEST_LINEAGE_ID;
  const { records } = await buildChain(2, { lineageId });
  const [first, last] = records as [(typeof records)[0], (typeof records)[0]];
  const nodes = (seq: number) => [`${String(seq).padStart(2, '0')}${'a'.repeat(62)}`];
  const record = recordItem(lineageId, { record: first, nodes: nodes(0) });
  const head = headItem(
    {
      lineageId,
      entries: [{ record: last, nodes: nodes(1) }],
      expectedHead: lineageHeadOf(first),
      checkpoint: 'reseal/test-stack/lineage-test-1\n2\nAAAA\n\n— reseal/test-stack AAAA\n',
      frontier: ['c'.repeat(64)],
      policy: null,
    },
    last,
  );
  const marker = markerItem(lineageId, { record: last, nodes: [] });
  const rejection = rejectionItem(await signedRejection('residual-9'));
  const conflict = conflictItem(await signedConflict('residual-8'));
  const report: TriageCompletedDetail = {
    requestId: 'recall-1',
    lineageId,
    outcome: 'REFUSED',
    refusalCode: 'NOT_FOUND',
    refusalReason: 'no record',
    seq: null,
    verification: null,
    report: null,
    proof: null,
  } as unknown as TriageCompletedDetail;
  const triage = triageReportItem(report);
  const decode = {
    record: (item: Item) => ({ record: recordOf(item), nodes: readJson<unknown>(item, 'nodes', null) }),
    head: (item: Item) => ({
      head: headOf(lineageId, item),
      header: readJson<unknown>(item, 'header', null),
      checkpoint: readString(item, 'checkpoint') ?? null,
      frontier: frontierOf(item),
      policy: readJson<unknown>(item, 'policy', null),
    }),
    marker: (item: Item) => locationOf(item),
    rejection: (item: Item) => rejectionOf(lineageId, item),
    conflict: (item: Item) => conflictOf(lineageId, item),
    triage: (item: Item) => triageReportOf(item),
  } as const;
  type Kind = keyof typeof decode;
  const entry = (name: string, kind: Kind, item: Item) => ({ name, kind, item, decoded: decode[kind](item) });
  const edit = (item: Item, changes: Record<string, unknown>): Item => {
    const copy: Record<string, unknown> = { ...item };
    for (const [name, value] of Object.entries(changes)) {
      if (value === undefined) delete copy[name];
      else copy[name] = value;
    }
    return copy as Item;
  };
  return {
    description:
      'The lineage table items a client reads (docs/pipeline.md, "Data layout"), as adapters/dynamodb-item-codec.ts writes them (DynamoDB AttributeValue JSON), with what its readers return; hostile items show that junk reads as absent, never coerced. Regenerate with test/unit/adapters/item-layout.generate.ts.',
    lineageId,
    keys: {
      lineage: Keys.lineage(lineageId),
      record: [0, 7, 12345].map((seq) => ({ seq, sk: Keys.record(seq) })),
      head: Keys.head,
      residual: { residualId: 'residual-1', sk: Keys.residualSk('residual-1') },
      conflictsOf: { residualId: 'residual-8', prefix: Keys.conflictsOf('residual-8') },
      rejection: Keys.rejection(lineageId),
      triage: Keys.triage(lineageId),
      // readNodes: node (level, index) is stored on the record whose seq is (index + 1) · 2^level − 1.
      nodeSeq: [
        { level: 0, index: 5, seq: 5 },
        { level: 1, index: 0, seq: 1 },
        { level: 2, index: 1, seq: 7 },
        { level: 3, index: 0, seq: 7 },
      ],
    },
    items: [
      entry('record', 'record', record),
      entry('head', 'head', head),
      entry('marker', 'marker', marker),
      entry('rejection', 'rejection', rejection),
      entry('conflict', 'conflict', conflict),
      entry('triage report', 'triage', triage),
    ],
    hostile: [
      entry('record text that is not JSON', 'record', edit(record, { record: { S: '{"header":' } })),
      entry('record as a number', 'record', edit(record, { record: { N: '5' } })),
      entry('record missing', 'record', edit(record, { record: undefined })),
      entry('head seq as a string, epoch missing', 'head', edit(head, { seq: { S: '1' }, generationEpoch: undefined })),
      entry('head seq fractional', 'head', edit(head, { seq: { N: '1.5' } })),
      entry('head frontier not a list of strings', 'head', edit(head, { frontier: { S: '[1,2]' } })),
      entry('head checkpoint as a map', 'head', edit(head, { checkpoint: { M: { a: { S: 'b' } } } })),
      entry('marker seq too large', 'marker', edit(marker, { seq: { N: '9007199254740993' } })),
      entry(
        'marker seq negative, lineage as a number',
        'marker',
        edit(marker, { seq: { N: '-3' }, lineageId: { N: '1' } }),
      ),
      entry('rejection issues unreadable', 'rejection', edit(rejection, { issues: { S: '[{"path":1}]' } })),
      entry('rejection atMs as a string', 'rejection', edit(rejection, { atMs: { S: '5' } })),
      entry('conflict expectedHead unreadable', 'conflict', edit(conflict, { expectedHead: { S: '{"seq":-1}' } })),
      entry('conflict statement missing', 'conflict', edit(conflict, { statement: undefined })),
      entry('triage report not JSON', 'triage', edit(triage, { report: { S: 'not json' } })),
    ],
  };
}
