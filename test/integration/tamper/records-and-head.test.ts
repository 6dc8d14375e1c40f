import { gunzipSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect } from 'vitest';
import { LineageKeys } from '../../../adapters/lineage-keys';
import { manifestDigest } from '../../../shared/triage/manifest-digest';
import { acceptedWrite, sealGroup } from '../../helpers/emulator-lineages';
import { both, type Cell, type Expected, itEachCell } from '../../helpers/tamper-matrix';
import {
  clientRecall,
  clientRecallDirect,
  clientVerifyExport,
  clientVerifyLineage,
  clientWaitForOutcome,
  exportThenVerifyCli,
  inspectLineageCli,
  publishWaitCli,
  pythonClient,
  pythonRecall,
  type ReadTarget,
  recallCli,
  receiptCli,
  verifyLineageAuditCli,
  verifyLineageCli,
  verifyLineageKeptCli,
} from '../../helpers/tamper-readers';
import {
  type Attack,
  type AttackContext,
  type Item,
  movedTo,
  partitionOf,
  textOf,
  wipeLineage,
  withJson,
} from '../../helpers/tamper-table';
import {
  attackContextOf,
  emulatorSetup,
  MANIFEST,
  nextAppend,
  type SealedLineage,
  sealLineage,
  tamperSealer,
} from './fixture';

// docs/guarantees.md "Tampering by the table writer": the table writer (write access to the table, no KMS rights) attacks the records
// (with the tree nodes stored on them) and the head (header, frontier, signed checkpoint) of a
// five-record lineage; every reader of those items reads the result, with and without a trusted
// checkpoint, the Python client among them (docs/python.md: `proven_records` and a receipt). Expected outcomes are the docs' promises (docs/verifiable-log.md "The limits" and
// "Recall", docs/sealing.md "Threat model", docs/pipeline.md "Data layout", docs/cli.md exit codes).

const setup = emulatorSetup();
let lineage: SealedLineage;
let other: SealedLineage;
const attackContext = () => attackContextOf(setup, lineage, other);

const pk = partitionOf;
const record = (seq: number) => LineageKeys.record(seq);
/** Replaces the lineage's partition with an earlier snapshot of it (records, head, markers). */
const replayPartition = (context: AttackContext, name: string) => {
  const earlier = context.earlier.get(name);
  if (!earlier) throw new Error(`no snapshot ${name}`);
  return context.table.restore(new Map([[pk(context), earlier.get(pk(context)) ?? []]]));
};
/** The head item of an earlier snapshot. */
const earlierHead = (context: AttackContext, name: string): Item => {
  const item = context.earlier
    .get(name)
    ?.get(pk(context))
    ?.find((i) => i.sk?.S === LineageKeys.head);
  if (!item) throw new Error(`no head in ${name}`);
  return item;
};
const junk = (sk: string) => async (context: AttackContext) => {
  await context.table.put({ pk: { S: pk(context) }, sk: { S: sk }, record: { S: '{"junk":true}' } });
};

/**
 * The content-addressed manifest item every record of the attacked lineage names (docs/sealing.md,
 * "Stored items"; keyed by that lineage): outside the lineage's own partition, so an attack on it
 * saves it and its `undo` puts it back.
 */
const manifestKey = (context: AttackContext) => LineageKeys.manifest(context.lineageId, manifestDigest(MANIFEST));
let savedManifest: Item | undefined;
const saveManifest = async (context: AttackContext) => {
  savedManifest = await context.table.get(manifestKey(context), LineageKeys.manifestSk);
  return savedManifest;
};
const restoreManifest = async (context: AttackContext) => {
  if (savedManifest) await context.table.put(savedManifest);
  savedManifest = undefined;
};

/** Every tree node stored on records 0 to 3 becomes ff…ff (binary, 32 bytes a node; or hex text: docs/verifiable-log.md, "Stored state"). */
const editNodesOfRecords0To3 = async (c: AttackContext) => {
  for (const seq of [0, 1, 2, 3]) {
    await c.table.update(pk(c), record(seq), (item) => ({
      ...item,
      nodes:
        item.nodes?.B !== undefined
          ? { B: new Uint8Array(item.nodes.B.byteLength).fill(0xff) }
          : { S: textOf(item, 'nodes').replace(/[0-9a-f]{64}/g, 'f'.repeat(64)) },
    }));
  }
};

// --- attacks, as data ---
/** A binary attribute of `item` with one bit of its byte `at` flipped (negative: from the end). */
function flipped(item: Item, name: string, at = 7): Item[string] {
  const bytes = (item[name] as { B?: Uint8Array } | undefined)?.B;
  if (!bytes) throw new Error(`no binary ${name}`);
  const copy = Uint8Array.from(bytes);
  const i = at < 0 ? copy.length + at : at;
  copy[i] = (copy[i] as number) ^ 1;
  return { B: copy };
}

const attacks = {
  none: { target: 'lineage', attack: 'none (control)', apply: async () => {} },
  noneKeptOlder: {
    target: 'lineage',
    attack: 'none (control), read with the checkpoint of 3 records trusted',
    apply: async () => {},
  },
  editPayload: {
    target: 'record',
    attack: 'edit the payload of the last record',
    apply: (c) =>
      c.table.update(pk(c), record(4), (item) =>
        withJson(item, 'record', (r) => ({ ...r, payload: { conclusion: 'forged' } })),
      ),
  },
  deleteMiddle: {
    target: 'record',
    attack: 'delete a middle record (seq 2)',
    apply: (c) => c.table.delete(pk(c), record(2)),
  },
  deleteLast: {
    target: 'record',
    attack: 'delete the last record (head left at seq 4)',
    apply: (c) => c.table.delete(pk(c), record(4)),
  },
  swap: {
    target: 'record',
    attack: 'swap the items of seq 1 and seq 2',
    apply: async (c) => {
      const [one, two] = [await c.table.get(pk(c), record(1)), await c.table.get(pk(c), record(2))];
      await c.table.put({ ...two, sk: { S: record(1) } });
      await c.table.put({ ...one, sk: { S: record(2) } });
    },
  },
  replayRecord: {
    target: 'record',
    attack: 'replay record 3 as seq 4',
    apply: async (c) => c.table.put({ ...(await c.table.get(pk(c), record(3))), sk: { S: record(4) } }),
  },
  transplantRecord: {
    target: 'record',
    attack: "transplant another lineage's record 4 over seq 4",
    apply: async (c) =>
      c.table.put(movedTo(await c.table.get(LineageKeys.lineage(c.otherLineageId), record(4)), pk(c))),
  },
  editManifest: {
    target: 'manifest',
    attack: 'edit the shared manifest item (a baseline hash in its binary attribute)',
    apply: async (c) => {
      const item = await saveManifest(c);
      const manifest = JSON.parse(gunzipSync(item.manifest?.B as Uint8Array).toString('utf8'));
      manifest.baselineKeyHashes.REGION = 'f'.repeat(64);
      await c.table.put({ ...item, manifest: { B: gzipSync(JSON.stringify(manifest)) } });
    },
    undo: restoreManifest,
  },
  deleteManifest: {
    target: 'manifest',
    attack: 'delete the shared manifest item',
    apply: async (c) => {
      await saveManifest(c);
      await c.table.delete(manifestKey(c), LineageKeys.manifestSk);
    },
    undo: restoreManifest,
  },
  editNodes: {
    target: 'tree nodes',
    attack: 'edit the tree nodes stored on records 0 to 3',
    apply: editNodesOfRecords0To3,
  },
  editNodesReadOlder: {
    target: 'tree nodes',
    attack: 'edit the tree nodes stored on records 0 to 3, then read record 2 (its inclusion proof reads them)',
    apply: editNodesOfRecords0To3,
  },
  editNodesKeptOlder: {
    target: 'tree nodes',
    attack:
      'edit the tree nodes stored on records 0 to 3, then read with the checkpoint of 3 records trusted (the consistency proof to 5 reads them)',
    apply: editNodesOfRecords0To3,
  },
  junkAfterOutOfRange: {
    target: 'record',
    attack: 'insert sk RECORD#~ (sorts after every record, outside the seq range)',
    apply: junk(`${LineageKeys.recordPrefix}~`),
  },
  junkAfterInRange: {
    target: 'record',
    attack: 'insert sk RECORD#5x (malformed, sorts after every record, inside the seq range)',
    apply: junk(`${LineageKeys.recordPrefix}5x`),
  },
  farOutOfRange: {
    target: 'record',
    attack: 'insert sk RECORD#9007199254740991 (the largest seq; a copy of record 4)',
    apply: async (c) =>
      c.table.put({ ...(await c.table.get(pk(c), record(4))), sk: { S: record(Number.MAX_SAFE_INTEGER) } }),
  },
  plantNext: {
    target: 'record',
    attack: 'insert a record at seq 5, past the head (a copy of record 4)',
    apply: async (c) => c.table.put({ ...(await c.table.get(pk(c), record(4))), sk: { S: record(5) } }),
  },
  rewindHeadJunk: {
    target: 'head',
    attack: 'rewind the head to seq 1 and insert sk RECORD#5x',
    apply: async (c) => {
      await c.table.put(earlierHead(c, '2 records'));
      await junk(`${LineageKeys.recordPrefix}5x`)(c);
    },
  },
  rewindHeadJunkOutOfRange: {
    target: 'head',
    attack: 'rewind the head to seq 1 and insert sk RECORD#~',
    apply: async (c) => {
      await c.table.put(earlierHead(c, '2 records'));
      await junk(`${LineageKeys.recordPrefix}~`)(c);
    },
  },
  deleteHeadJunk: {
    target: 'head',
    attack: 'delete the head and insert sk RECORD#5x',
    apply: async (c) => {
      await c.table.delete(pk(c), LineageKeys.head);
      await junk(`${LineageKeys.recordPrefix}5x`)(c);
    },
  },
  replayHead: {
    target: 'head',
    attack: 'replay the signed head of seq 2 (records 3 and 4 left)',
    apply: (c) => c.table.put(earlierHead(c, '3 records')),
  },
  crashBeforeHeadMove: {
    target: 'head',
    attack:
      'a crash\'s shape: the head of seq 2 and records 3 and 4 past it without their markers (docs/sealing.md, "The write")',
    apply: async (c) => {
      await c.table.put(earlierHead(c, '3 records'));
      for (const residualId of ['r-3', 'r-4']) await c.table.delete(pk(c), LineageKeys.residualSk(residualId));
    },
  },
  deleteHead: { target: 'head', attack: 'delete the head', apply: (c) => c.table.delete(pk(c), LineageKeys.head) },
  editCheckpoint: {
    target: 'head',
    attack: 'edit the signed checkpoint (its root hash)',
    apply: (c) =>
      c.table.update(pk(c), LineageKeys.head, (item) => {
        const [origin, size, root, ...rest] = textOf(item, 'checkpoint').split('\n');
        const edited = `${(root as string).slice(0, -4)}AAA=`;
        return { ...item, checkpoint: { S: [origin, size, edited, ...rest].join('\n') } };
      }),
  },
  editRecordHash: {
    target: 'head',
    attack: "edit the head's recordHash (the condition attribute the head-state MAC covers)",
    apply: (c) => c.table.update(pk(c), LineageKeys.head, (item) => ({ ...item, recordHash: { S: 'a'.repeat(64) } })),
  },
  editHeadMac: {
    target: 'head',
    attack: 'edit the head-state MAC',
    apply: (c) =>
      c.table.update(pk(c), LineageKeys.head, (item) =>
        withJson(item, 'headMac', (m) => ({ ...m, mac: `${'A'.repeat(43)}=` })),
      ),
  },
  copyHeadMac: {
    target: 'head',
    attack: "copy another lineage's head-state MAC onto the head",
    apply: async (c) => {
      const theirs = await c.table.get(LineageKeys.lineage(c.otherLineageId), LineageKeys.head);
      await c.table.update(pk(c), LineageKeys.head, (item) => ({ ...item, headMac: theirs.headMac as Item[string] }));
    },
  },
  editHeadKeyMac: {
    target: 'head',
    attack: 'edit the head-key MAC (headKeyMac)',
    apply: (c) =>
      c.table.update(pk(c), LineageKeys.head, (item) => ({ ...item, headKeyMac: flipped(item, 'headKeyMac') })),
  },
  editHeadDataKey: {
    target: 'head',
    attack: 'edit the wrapped data key (headDataKey)',
    // Its last byte, in the wrapped key itself: a bit of the blob's leading bytes may be one KMS
    // does not check (the emulator still opens such a blob to the same data key, whose MAC then
    // vouches for the genuine state as before: nothing forged).
    apply: (c) =>
      c.table.update(pk(c), LineageKeys.head, (item) => ({ ...item, headDataKey: flipped(item, 'headDataKey', -1) })),
  },
  copyHeadKeyMac: {
    target: 'head',
    attack: "copy another lineage's headKeyMac and headDataKey onto the head",
    apply: async (c) => {
      const theirs = await c.table.get(LineageKeys.lineage(c.otherLineageId), LineageKeys.head);
      await c.table.update(pk(c), LineageKeys.head, (item) => ({
        ...item,
        headKeyMac: theirs.headKeyMac as Item[string],
        headDataKey: theirs.headDataKey as Item[string],
      }));
    },
  },
  stripHeadKeyMac: {
    target: 'head',
    attack: 'strip the head-key MAC (headKeyMac and headDataKey)',
    apply: (c) => c.table.update(pk(c), LineageKeys.head, ({ headKeyMac: _mac, headDataKey: _key, ...item }) => item),
  },
  editFrontier: {
    target: 'head',
    attack: 'edit the stored frontier',
    apply: (c) =>
      c.table.update(pk(c), LineageKeys.head, (item) => ({
        ...item,
        // Binary, 32 bytes a hash (the small head), or JSON hex (heads stored before): the first hash becomes ee…ee.
        frontier:
          item.frontier?.B !== undefined
            ? { B: Buffer.concat([Buffer.alloc(32, 0xee), Buffer.from(item.frontier.B).subarray(32)]) }
            : { S: textOf(item, 'frontier').replace(/[0-9a-f]{64}/, 'e'.repeat(64)) },
      })),
  },
  transplantHead: {
    target: 'head',
    attack: "transplant another lineage's head (its signed checkpoint names that lineage)",
    apply: async (c) =>
      c.table.put(movedTo(await c.table.get(LineageKeys.lineage(c.otherLineageId), LineageKeys.head), pk(c))),
  },
  rollback: {
    target: 'lineage',
    attack: 'roll the whole partition back to its signed state of 3 records',
    apply: (c) => replayPartition(c, '3 records'),
  },
  fork: {
    target: 'lineage',
    attack: 'fork: roll back to 3 records, then a cold sealer appends two other writes (a second signed history)',
    apply: async (c) => {
      await replayPartition(c, '3 records');
      const nowMs = Date.now();
      const writes = [3, 4].map((seq) => acceptedWrite(c.lineageId, `r-fork-${seq}`, MANIFEST, nowMs));
      expect(await sealGroup(tamperSealer(setup), writes, nowMs)).toEqual(['SEALED', 'SEALED']);
    },
  },
  wipe: {
    target: 'lineage',
    attack: 'delete every record and the head',
    apply: wipeLineage,
  },
} satisfies Record<string, Attack>;

const V = verifyLineageCli.name;
const VA = verifyLineageAuditCli.name;
const VK = verifyLineageKeptCli.name;
const I = inspectLineageCli.name;
const R = recallCli.name;
const P = publishWaitCli.name;
const E = exportThenVerifyCli.name;
const RC = receiptCli.name;
const CR = clientRecall.name;
const CD = clientRecallDirect.name;
const CV = clientVerifyLineage.name;
const CW = clientWaitForOutcome.name;
const XV = clientVerifyExport.name;
const S = 'sealer (next append)';
const PY = pythonClient.name;
const PR = pythonRecall.name;

/**
 * The readers' expected outcomes when the tamper is caught everywhere the item is read: `verdict`
 * by the walks (verify, inspect, export, the client's verification), `proofVerdict` by the readers
 * that prove one record in the signed log (recall, receipts, a write's outcome).
 */
const caught = (verdict: string, proofVerdict = verdict) => ({
  [V]: both(`exit 20 ${verdict}`),
  [VA]: both(`exit 20 ${verdict}`),
  [I]: both(`exit 20 ${verdict}`),
  [E]: both(`exit 20 ${verdict}`),
  [XV]: both(verdict),
  [CV]: both(verdict),
  [R]: both(`exit 20 ${proofVerdict}`),
  [CR]: both(proofVerdict),
  [RC]: both(`export exit 20 ${proofVerdict}`),
  [P]: both(`exit 20 ${proofVerdict}`),
  [CW]: both('UnverifiedOutcomeError'),
});
/**
 * The Python client's outcome (docs/python.md): `proven_records` (the adapters' memory) and a
 * receipt, each `LogVerificationError <verdict>` when caught; `receipt` defaults to `records`.
 */
const pyCaught = (records: string, receipt = records) =>
  both(`records LogVerificationError ${records}; receipt LogVerificationError ${receipt}`);
const PY_INTACT = 'records VERIFIED_INTACT 5; receipt VERIFIED_INTACT seq 4';
const intact = (readers: readonly string[]) =>
  Object.fromEntries(
    readers.map((name) => [name, both([CV, CR, CD, XV].includes(name) ? 'VERIFIED_INTACT' : 'exit 0 VERIFIED_INTACT')]),
  );

/**
 * The readers that prove one record (recall, receipts, a write's outcome) on records stored past
 * the head item (docs/sealing.md, "What each reader changes"): no finding, the answer comes from
 * the head's tree; a trusted checkpoint of the later state shows a rewound head as truncation.
 */
const fromHeadTree = {
  rewound: {
    [R]: ['exit 0 VERIFIED_INTACT', 'exit 20 TRUNCATION_DETECTED'],
    [CR]: ['VERIFIED_INTACT', 'TRUNCATION_DETECTED'],
    [RC]: both('export exit 20 TRUNCATION_DETECTED'),
    [P]: both('exit 20 TRUNCATION_DETECTED'),
  },
  // No head item: triage answers as for an empty lineage (this one is not integrated: no index to
  // contradict it), and the walks and the Python memory read a first append in flight: sealed,
  // awaiting integration (exit 3), never empty memory; a kept checkpoint shows the cut (its head
  // existed: docs/verifiable-log.md, "Verifying a whole lineage").
  headless: {
    [V]: ['exit 3 UNVERIFIED_TAMPER_RISK', 'exit 20 TRUNCATION_DETECTED'],
    [VA]: ['exit 3 UNVERIFIED_TAMPER_RISK', 'exit 20 TRUNCATION_DETECTED'],
    [I]: ['exit 3 UNVERIFIED_TAMPER_RISK', 'exit 20 TRUNCATION_DETECTED'],
    [CV]: ['UNVERIFIED_TAMPER_RISK', 'TRUNCATION_DETECTED'],
    [R]: ['exit 2 NOT_FOUND', 'exit 20 TRUNCATION_DETECTED'],
    [CR]: ['refused NOT_FOUND (unproven)', 'TRUNCATION_DETECTED'],
    [RC]: both('export exit 20 TRUNCATION_DETECTED'),
    [P]: both('exit 20 TRUNCATION_DETECTED'),
    [PY]: [
      'records LogVerificationError UNVERIFIED_TAMPER_RISK; receipt LogVerificationError TRUNCATION_DETECTED',
      'records LogVerificationError TRUNCATION_DETECTED; receipt LogVerificationError TRUNCATION_DETECTED',
    ],
  },
  // A planted record past an intact head: the head's tree is the answer.
  planted: {
    [PY]: both(PY_INTACT),
    [R]: both('exit 0 VERIFIED_INTACT'),
    [CR]: both('VERIFIED_INTACT'),
    [RC]: both('exit 0 VERIFIED_INTACT'),
    [P]: both('exit 3 SEALED'),
    [CW]: both('SEALED seq 4'),
  },
} satisfies Record<string, Record<string, Expected>>;
/**
 * The Python memory on a head rewound to `records` records with the rest left past it: the head's
 * tree (docs/sealing.md, "What each reader changes"); the receipt of seq 4 is past it, and a kept
 * checkpoint of the later state shows the rewind as truncation.
 */
const pyRewound = (records: number): Expected => [
  `records VERIFIED_INTACT ${records}; receipt LogVerificationError TRUNCATION_DETECTED`,
  'records LogVerificationError TRUNCATION_DETECTED; receipt LogVerificationError TRUNCATION_DETECTED',
];

// --- the matrix: expected outcome per reader, [without a trusted checkpoint, with one] ---
/** The lineage as a reader trusted it when it held `records` records: its signed checkpoint and head then. */
const trustedAt =
  (records: number): Cell['target'] =>
  () => {
    const head = lineage.earlier
      .get(`${records} records`)
      ?.get(LineageKeys.lineage(lineage.lineageId))
      ?.find((i) => i.sk?.S === LineageKeys.head);
    if (!head?.recordHash?.S) throw new Error(`no head of ${records} records`);
    return { trusted: { note: textOf(head, 'checkpoint'), seq: records - 1, recordHash: head.recordHash.S } };
  };
const at =
  (seq: number): Cell['target'] =>
  () => ({ recall: { seq }, receiptSeq: seq, write: lineage.writes[seq] as ReadTarget['write'] });
const cells: readonly Cell[] = [
  {
    attack: attacks.none,
    expect: {
      ...intact([V, VA, I, E, XV, CV, R, CR, CD, RC]),
      // Sealed, never integrated here (no notices): SEALED_AWAITING_INTEGRATION, exit 3 (docs/cli.md, `publish --wait`).
      [P]: both('exit 3 SEALED'),
      [CW]: both('SEALED seq 4'),
      [S]: 'SEALED',
      [PY]: both(PY_INTACT),
      // Recalled through the deployed triage function: this lineage is never integrated here.
      [PR]: 'TRIAGED VERIFIED_INTACT SEALED_AWAITING_INTEGRATION',
    },
  },
  { attack: attacks.editPayload, expect: { ...caught('HASH_MISMATCH'), [PY]: pyCaught('HASH_MISMATCH') } },
  {
    attack: attacks.deleteMiddle,
    target: at(2),
    expect: { ...caught('LINEAGE_BROKEN'), [PY]: pyCaught('LINEAGE_BROKEN') },
  },
  // Every record names the manifest item by the digest its MAC'd header carries: an edited or
  // missing one fails each record's manifest check. A sealer that has not put it since it started
  // puts it back (absent or differing), so the next append seals.
  {
    attack: attacks.editManifest,
    expect: { ...caught('HASH_MISMATCH'), [S]: 'SEALED', [PY]: pyCaught('HASH_MISMATCH') },
  },
  {
    attack: attacks.deleteManifest,
    expect: { ...caught('HASH_MISMATCH'), [S]: 'SEALED', [PY]: pyCaught('HASH_MISMATCH') },
  },
  {
    // The sealer extends the signed state it authenticated (the head carries the header it needs).
    attack: attacks.deleteLast,
    expect: {
      ...caught('TRUNCATION_DETECTED'),
      [RC]: both('export exit 20 LINEAGE_BROKEN'),
      [P]: both('exit 20 LINEAGE_BROKEN'),
      [S]: 'SEALED',
      [PY]: pyCaught('LINEAGE_BROKEN'),
    },
  },
  {
    attack: attacks.swap,
    target: at(2),
    expect: { ...caught('SEQUENCE_REPLAYED', 'LINEAGE_BROKEN'), [PY]: pyCaught('HASH_MISMATCH', 'LINEAGE_BROKEN') },
  },
  {
    attack: attacks.replayRecord,
    expect: { ...caught('SEQUENCE_REPLAYED', 'LINEAGE_BROKEN'), [PY]: pyCaught('HASH_MISMATCH', 'LINEAGE_BROKEN') },
  },
  {
    attack: attacks.transplantRecord,
    expect: { ...caught('LINEAGE_BROKEN'), [PY]: pyCaught('HASH_MISMATCH', 'LINEAGE_BROKEN') },
  },
  {
    // Nodes no answer reads: the readers prove the latest record (and a new write's) from the
    // head's frontier (docs/verifiable-log.md, "Stored state"), the walks recompute the tree, and an
    // export carries no nodes. Each answers from what it proved, and the record is intact. The
    // Python reader's walk of the records (proven_records) reads the nodes, and catches the edit;
    // its receipt of the latest record proves it from the frontier, as the TypeScript readers do.
    attack: attacks.editNodes,
    expect: {
      [XV]: both('VERIFIED_INTACT'),
      [R]: both('exit 0 VERIFIED_INTACT'),
      [CR]: both('VERIFIED_INTACT'),
      [RC]: both('exit 0 VERIFIED_INTACT'),
      [P]: both('exit 3 SEALED'),
      [CW]: both('SEALED seq 4'),
      [PY]: both('records LogVerificationError HASH_MISMATCH; receipt VERIFIED_INTACT seq 4'),
    },
  },
  {
    // An older record is proven by inclusion with a path built from the nodes stored on the
    // records (docs/verifiable-log.md, "Proving a record"; only the last leaf's comes from the
    // head's frontier): every reader that proves record 2, through triage or on its own, finds
    // the path does not lead to the signed root, and never answers from the record.
    attack: attacks.editNodesReadOlder,
    target: at(2),
    expect: {
      [R]: both('exit 20 HASH_MISMATCH'),
      [CR]: both('HASH_MISMATCH'),
      [CD]: both('HASH_MISMATCH'),
      [RC]: both('export exit 20 HASH_MISMATCH'),
      [P]: both('exit 20 HASH_MISMATCH'),
      [CW]: both('UnverifiedOutcomeError'),
      [PY]: pyCaught('HASH_MISMATCH'),
      // Triage's finding, passed on as claimed and unproven (its reason says so), as the TypeScript client does.
      [PR]: 'NOT_INTACT HASH_MISMATCH no freshness',
    },
  },
  {
    // A reader that trusts an older checkpoint (3 records) proves the head's tree (5) consistent
    // with it, from the nodes stored on the records (docs/verifiable-log.md, "Checkpoints the
    // client keeps"): the edited nodes fail that proof, so every reader tied to the signed log
    // refuses the lineage (without the checkpoint, each reads as after the first node edit). An
    // export carries no nodes: not its reader. The control below shows the older checkpoint alone
    // changes nothing.
    attack: attacks.editNodesKeptOlder,
    target: trustedAt(3),
    expect: {
      [V]: ['exit 0 VERIFIED_INTACT', 'exit 20 LINEAGE_BROKEN'],
      [VA]: ['exit 0 VERIFIED_INTACT', 'exit 20 LINEAGE_BROKEN'],
      [VK]: ['exit 0 VERIFIED_INTACT', 'exit 20 LINEAGE_BROKEN'],
      [I]: ['exit 0 VERIFIED_INTACT', 'exit 20 LINEAGE_BROKEN'],
      [CV]: ['VERIFIED_INTACT', 'LINEAGE_BROKEN'],
      [R]: ['exit 0 VERIFIED_INTACT', 'exit 20 LINEAGE_BROKEN'],
      [CR]: ['VERIFIED_INTACT', 'LINEAGE_BROKEN'],
      [CD]: ['VERIFIED_INTACT', 'LINEAGE_BROKEN'],
      [RC]: ['exit 0 VERIFIED_INTACT', 'export exit 20 LINEAGE_BROKEN'],
      [P]: ['exit 3 SEALED', 'exit 20 LINEAGE_BROKEN'],
      [CW]: ['SEALED seq 4', 'UnverifiedOutcomeError'],
      [PY]: [
        'records LogVerificationError HASH_MISMATCH; receipt VERIFIED_INTACT seq 4',
        'records LogVerificationError LINEAGE_BROKEN; receipt LogVerificationError LINEAGE_BROKEN',
      ],
    },
  },
  {
    attack: attacks.noneKeptOlder,
    target: trustedAt(3),
    expect: {
      ...intact([V, VA, VK, I, CV, R, CR, CD, RC]),
      [P]: both('exit 3 SEALED'),
      [CW]: both('SEALED seq 4'),
      [PY]: both(PY_INTACT),
    },
  },
  // A junk key is not a record: it hides nothing, so the intact lineage reads intact (and the
  // sealer goes on), wherever the key sorts.
  {
    attack: attacks.junkAfterOutOfRange,
    expect: { ...intact([V, I, E, XV, CV, R, CR]), [S]: 'SEALED', [PY]: both(PY_INTACT) },
  },
  {
    attack: attacks.junkAfterInRange,
    expect: { ...intact([V, I, E, XV, CV, R, CR]), [S]: 'SEALED', [PY]: both(PY_INTACT) },
  },
  {
    // Records stored past the signed checkpoint: LINEAGE_BROKEN in the walks tied to it
    // (docs/sealing.md, "What each reader changes"); the readers that prove records answer from the
    // head's tree. The export carries the far record, a replay of seq 4. The sealer extends its signed state.
    // (Before the fix the walks read on towards seq 2^53 − 1 and never answered.)
    attack: attacks.farOutOfRange,
    // inspect --lineage reads the lineage as an export does.
    expect: {
      ...caught('LINEAGE_BROKEN'),
      ...fromHeadTree.planted,
      [E]: both('exit 20 SEQUENCE_REPLAYED'),
      [XV]: both('SEQUENCE_REPLAYED'),
      [I]: both('exit 20 SEQUENCE_REPLAYED'),
      [S]: 'SEALED',
    },
  },
  {
    // The planted record is a copy of record 4: the walks see a replayed seq first.
    attack: attacks.plantNext,
    expect: {
      ...caught('SEQUENCE_REPLAYED', 'LINEAGE_BROKEN'),
      ...fromHeadTree.planted,
      [S]: 'CONFLICT LINEAGE_INCONSISTENT',
    },
  },
  {
    attack: attacks.rewindHeadJunk,
    // docs/sealing.md, "The append's layout", (b): one run past the head reads as a crash: the sealer rolls it forward, then seals.
    expect: { ...caught('LINEAGE_BROKEN'), ...fromHeadTree.rewound, [S]: 'SEALED', [PY]: pyRewound(2) },
  },
  {
    attack: attacks.rewindHeadJunkOutOfRange,
    // docs/sealing.md, "The append's layout", (b): one run past the head reads as a crash: the sealer rolls it forward, then seals.
    expect: { ...caught('LINEAGE_BROKEN'), ...fromHeadTree.rewound, [S]: 'SEALED', [PY]: pyRewound(2) },
  },
  {
    attack: attacks.deleteHeadJunk,
    // docs/sealing.md, "The append's layout", (b): one run past the head reads as a crash: the sealer rolls it forward, then seals.
    expect: { ...caught('LINEAGE_BROKEN'), ...fromHeadTree.headless, [S]: 'SEALED' },
  },
  {
    attack: attacks.replayHead,
    // docs/sealing.md, "The append's layout", (b): one run past the head reads as a crash: the sealer rolls it forward, then seals.
    expect: { ...caught('LINEAGE_BROKEN'), ...fromHeadTree.rewound, [S]: 'SEALED', [PY]: pyRewound(3) },
  },
  {
    attack: attacks.deleteHead,
    // docs/sealing.md, "The append's layout", (b): one run past the head reads as a crash: the sealer rolls it forward, then seals.
    expect: { ...caught('LINEAGE_BROKEN'), ...fromHeadTree.headless, [S]: 'SEALED' },
  },
  {
    // An export carries the records and the head's claims, not the signed checkpoint: not its
    // reader. Its verification alone (docs/cli.md, `reseal verify --export`: hashes, links,
    // sequence, epochs, MACs, the head and the tail) finds the records intact; the readers tied
    // to the signed log catch it.
    // The sealer authenticates the head by its head-state MAC (docs/verifiable-log.md,
    // "Appending"): the frontier and header are untouched, so the head is the tree it stored and
    // the edited note vouches for nothing; it extends that tree, and the append replaces the note.
    attack: attacks.editCheckpoint,
    expect: (({ [E]: _export, [XV]: _exportVerified, ...rest }) => ({
      ...rest,
      [XV]: both('VERIFIED_INTACT'),
      [S]: 'SEALED',
      [PY]: pyCaught('HASH_MISMATCH'),
    }))(caught('HASH_MISMATCH')),
  },
  {
    // The head names a record hash that is not the record's at its seq, and neither the head-state
    // MAC nor the signed checkpoint vouches for the state it claims.
    attack: attacks.editRecordHash,
    expect: {
      [V]: both('exit 20 LINEAGE_BROKEN'),
      [VA]: both('exit 20 LINEAGE_BROKEN'),
      [I]: both('exit 20 LINEAGE_BROKEN'),
      [CV]: both('LINEAGE_BROKEN'),
      [S]: 'CONFLICT LINEAGE_INCONSISTENT',
    },
  },
  {
    // docs/sealing.md, "The roll-forward": the crash's records chain from the head and their MACs
    // verify: the sealer moves the head to them, then seals.
    attack: attacks.crashBeforeHeadMove,
    expect: { [S]: 'SEALED' },
  },
  // A legacy (signed) head: its signed checkpoint still vouches for it when its MAC does not.
  { attack: attacks.editHeadMac, expect: { [S]: 'SEALED' } },
  { attack: attacks.copyHeadMac, expect: { [S]: 'SEALED' } },
  // Only the sealer reads the frontier (to extend the tree); an export carries none.
  { attack: attacks.editFrontier, expect: { [XV]: both('VERIFIED_INTACT'), [S]: 'CONFLICT LINEAGE_INCONSISTENT' } },
  {
    attack: attacks.transplantHead,
    expect: {
      ...caught('LINEAGE_BROKEN', 'HASH_MISMATCH'),
      [S]: 'CONFLICT LINEAGE_INCONSISTENT',
      [PY]: pyCaught('HASH_MISMATCH'),
    },
  },
  {
    // docs/verifiable-log.md, "The limits": a whole, consistent rollback leaves a signed state
    // behind; without a kept checkpoint it is all there is (the write of seq 4 is then not found:
    // a wait times out). With one: TRUNCATION_DETECTED.
    attack: attacks.rollback,
    expect: {
      [V]: ['exit 0 VERIFIED_INTACT', 'exit 20 TRUNCATION_DETECTED'],
      [VA]: ['exit 0 VERIFIED_INTACT', 'exit 20 TRUNCATION_DETECTED'],
      [VK]: ['exit 0 VERIFIED_INTACT', 'exit 20 TRUNCATION_DETECTED'],
      [I]: ['exit 0 VERIFIED_INTACT', 'exit 20 TRUNCATION_DETECTED'],
      [E]: ['exit 0 VERIFIED_INTACT', 'exit 20 TRUNCATION_DETECTED'],
      [XV]: ['VERIFIED_INTACT', 'TRUNCATION_DETECTED'],
      [CV]: ['VERIFIED_INTACT', 'TRUNCATION_DETECTED'],
      [R]: ['exit 0 VERIFIED_INTACT', 'exit 20 TRUNCATION_DETECTED'],
      [CR]: ['VERIFIED_INTACT', 'TRUNCATION_DETECTED'],
      // seq 4 is past the signed checkpoint the table now holds.
      [RC]: both('export exit 20 TRUNCATION_DETECTED'),
      // No marker for seq 4: without a kept checkpoint the wait times out; with one, the look for
      // a hidden seal at the deadline reads the log and finds the rollback (docs/cli.md, `publish --wait`).
      [P]: ['exit 1 TIMEOUT', 'exit 20 TRUNCATION_DETECTED'],
      [CW]: ['TimeoutError', 'HiddenSealError'],
      // The records of the signed state (this lineage is not integrated: the deployment log cannot
      // show the rollback); seq 4 is past its checkpoint.
      [PY]: [
        'records VERIFIED_INTACT 3; receipt LogVerificationError TRUNCATION_DETECTED',
        'records LogVerificationError TRUNCATION_DETECTED; receipt LogVerificationError TRUNCATION_DETECTED',
      ],
    },
  },
  {
    // docs/verifiable-log.md, "The limits": after a rollback a cold sealer signs a second history
    // for the same sizes; without a kept checkpoint the client sees it as the log. A kept
    // checkpoint (or the head of a ResidualSealed event) catches the fork: LINEAGE_BROKEN.
    attack: attacks.fork,
    expect: {
      [V]: ['exit 0 VERIFIED_INTACT', 'exit 20 LINEAGE_BROKEN'],
      [VA]: ['exit 0 VERIFIED_INTACT', 'exit 20 LINEAGE_BROKEN'],
      [VK]: ['exit 0 VERIFIED_INTACT', 'exit 20 LINEAGE_BROKEN'],
      [I]: ['exit 0 VERIFIED_INTACT', 'exit 20 LINEAGE_BROKEN'],
      [E]: ['exit 0 VERIFIED_INTACT', 'exit 20 LINEAGE_BROKEN'],
      [XV]: ['VERIFIED_INTACT', 'LINEAGE_BROKEN'],
      [CV]: ['VERIFIED_INTACT', 'LINEAGE_BROKEN'],
      [R]: ['exit 0 VERIFIED_INTACT', 'exit 20 LINEAGE_BROKEN'],
      [CR]: ['VERIFIED_INTACT', 'LINEAGE_BROKEN'],
      [RC]: ['exit 0 VERIFIED_INTACT', 'export exit 20 LINEAGE_BROKEN'],
      // The write of r-4 is gone from the forked history: a wait times out, unless a kept
      // checkpoint shows the fork when the log is read at the deadline.
      [P]: ['exit 1 TIMEOUT', 'exit 20 LINEAGE_BROKEN'],
      [CW]: ['TimeoutError', 'HiddenSealError'],
      [PY]: [PY_INTACT, 'records LogVerificationError LINEAGE_BROKEN; receipt LogVerificationError LINEAGE_BROKEN'],
    },
  },
  {
    // docs/sealing.md, "Threat model": deletes everything → with a kept checkpoint
    // TRUNCATION_DETECTED; without one "not found" (exit 2).
    attack: attacks.wipe,
    expect: {
      [V]: ['exit 2 not found', 'exit 20 TRUNCATION_DETECTED'],
      [VA]: ['exit 2 not found', 'exit 20 TRUNCATION_DETECTED'],
      [VK]: ['exit 2 not found', 'exit 20 TRUNCATION_DETECTED'],
      [I]: ['exit 2 not found', 'exit 20 TRUNCATION_DETECTED'],
      [E]: ['export exit 2 not found', 'export exit 20 TRUNCATION_DETECTED'],
      [XV]: ['LineageNotFoundError', 'LogVerificationError TRUNCATION_DETECTED'],
      [CV]: ['LineageNotFoundError', 'TRUNCATION_DETECTED'],
      [R]: ['exit 2 NOT_FOUND', 'exit 20 TRUNCATION_DETECTED'],
      [CR]: ['refused NOT_FOUND (unproven)', 'TRUNCATION_DETECTED'],
      [RC]: both('export exit 20 TRUNCATION_DETECTED'),
      [P]: ['exit 1 TIMEOUT', 'exit 20 TRUNCATION_DETECTED'],
      [CW]: ['TimeoutError', 'HiddenSealError'],
      [PY]: [
        'records none; receipt LogVerificationError TRUNCATION_DETECTED',
        'records LogVerificationError TRUNCATION_DETECTED; receipt LogVerificationError TRUNCATION_DETECTED',
      ],
    },
  },
];

const readers = [
  verifyLineageCli,
  verifyLineageAuditCli,
  verifyLineageKeptCli,
  inspectLineageCli,
  recallCli,
  publishWaitCli,
  exportThenVerifyCli,
  receiptCli,
  clientRecall,
  clientRecallDirect,
  clientVerifyExport,
  clientVerifyLineage,
  clientWaitForOutcome,
  nextAppend(setup, () => lineage.lineageId),
  pythonClient,
  pythonRecall,
];

describe('tampering with records and heads, through every reader', () => {
  beforeAll(async () => {
    [lineage, other] = await Promise.all([
      sealLineage(setup, 'tamper-rh', [2, 1, 2]),
      sealLineage(setup, 'tamper-rh-other', [5]),
    ]);
  });

  itEachCell(cells, {
    setup,
    attackContext,
    base: (): ReadTarget => ({
      lineageId: lineage.lineageId,
      trusted: lineage.trusted,
      recall: { latest: true },
      receiptSeq: 4,
      write: lineage.writes[4] as ReadTarget['write'],
    }),
    readers,
  });
});

// The same attacks on heads the deployed sealer writes (docs/sealing.md, "The append's layout"):
// the small head, a head-key MAC under the notice data key (headKeyMac, headDataKey) and no signed
// lineage checkpoint, read by that sealer's next append (what the readers make of them:
// docs/sealing.md, "What each reader changes").
let macOnly: SealedLineage;
let macOnlyOther: SealedLineage;
let longRun: SealedLineage;
const SM = 'sealer (next append, MAC-only heads)';
const macOnlyCells: readonly Cell[] = [
  { attack: attacks.none, expect: { [SM]: 'SEALED' } },
  { attack: attacks.crashBeforeHeadMove, expect: { [SM]: 'SEALED' } },
  { attack: attacks.replayHead, expect: { [SM]: 'SEALED' } },
  { attack: attacks.deleteHead, expect: { [SM]: 'SEALED' } },
  { attack: attacks.plantNext, expect: { [SM]: 'CONFLICT LINEAGE_INCONSISTENT' } },
  { attack: attacks.editRecordHash, expect: { [SM]: 'CONFLICT LINEAGE_INCONSISTENT' } },
  { attack: attacks.editHeadKeyMac, expect: { [SM]: 'CONFLICT LINEAGE_INCONSISTENT' } },
  { attack: attacks.editHeadDataKey, expect: { [SM]: 'CONFLICT LINEAGE_INCONSISTENT' } },
  { attack: attacks.copyHeadKeyMac, expect: { [SM]: 'CONFLICT LINEAGE_INCONSISTENT' } },
  { attack: attacks.stripHeadKeyMac, expect: { [SM]: 'CONFLICT LINEAGE_INCONSISTENT' } },
  { attack: attacks.editFrontier, expect: { [SM]: 'CONFLICT LINEAGE_INCONSISTENT' } },
  { attack: attacks.transplantHead, expect: { [SM]: 'CONFLICT LINEAGE_INCONSISTENT' } },
];
// The batch place of a record whose MAC is its sealer invocation's batch MAC (docs/sealing.md,
// "The record and its seal"): record 4 is leaf 1 of the batch of seq 3 to 5 (one group of three
// writes), its place in the record item's binary `macBatch` (index, size, the 16-byte salt, then
// the path).
const editPlace = (
  attack: string,
  change: (place: Uint8Array, c: AttackContext) => Promise<Item[string] | undefined>,
) =>
  ({
    target: 'record',
    attack,
    apply: async (c) => {
      const item = await c.table.get(pk(c), record(4));
      const place = (item.macBatch as { B: Uint8Array } | undefined)?.B;
      if (!place) throw new Error('record 4 has no batch place');
      const changed = await change(Uint8Array.from(place), c);
      const { macBatch: _place, ...rest } = item;
      await c.table.put(changed === undefined ? rest : { ...rest, macBatch: changed });
    },
  }) satisfies Attack;
const placeAttacks = {
  editPath: editPlace("edit a hash of record 4's batch path", async (place) => {
    place[24] = (place[24] as number) ^ 0xff;
    return { B: place };
  }),
  editSalt: editPlace("edit a byte of record 4's batch salt", async (place) => {
    place[8] = (place[8] as number) ^ 0xff;
    return { B: place };
  }),
  editIndex: editPlace("edit record 4's leaf index in its batch (1 to 0)", async (place) => {
    place[3] = 0;
    return { B: place };
  }),
  editSize: editPlace("edit record 4's batch size (3 to 2)", async (place) => {
    place[7] = 2;
    return { B: place };
  }),
  editSizeSameShape: editPlace("edit record 4's batch size keeping its path shape (3 to 4)", async (place) => {
    place[7] = 4;
    return { B: place };
  }),
  movePlace: editPlace('move the batch place of seq 3 (same batch) onto record 4', async (_place, c) => {
    const three = await c.table.get(pk(c), record(3));
    return three.macBatch;
  }),
  stripPlace: editPlace("strip record 4's batch place (it then claims the single form)", async () => undefined),
};
/** What the readers make of a record's edited batch place: the MAC auditors refuse its MAC; the tree's readers never read it. */
const placeCaught = {
  [VA]: both('exit 20 HASH_MISMATCH'),
  [V]: both('exit 0 VERIFIED_INTACT'),
};
const placeCells: readonly Cell[] = [
  // Leaf 1 has a path of 2 hashes in a batch of 3 and of 4, folding to the same root: the size in
  // the MAC'd message is what refuses that edit.
  ...[
    placeAttacks.editPath,
    placeAttacks.editSalt,
    placeAttacks.editIndex,
    placeAttacks.editSizeSameShape,
    placeAttacks.movePlace,
    placeAttacks.stripPlace,
  ].map((attack) => ({
    attack,
    expect: placeCaught,
  })),
  // A size that no longer fits the path (leaf 1 of 2 has a path of 1 hash, not 2) is a malformed
  // place: refused before any MAC call, so the tree's walk, which calls none, refuses it too.
  { attack: placeAttacks.editSize, expect: { ...placeCaught, [V]: both('exit 20 HASH_MISMATCH') } },
];

let placed: SealedLineage;
let placedOther: SealedLineage;
describe("tampering with a record's batch MAC place, through the MAC audit and the tree's walk", () => {
  beforeAll(async () => {
    [placed, placedOther] = await Promise.all([
      sealLineage(setup, 'tamper-rh-place', [2, 1, 3]),
      sealLineage(setup, 'tamper-rh-place-other', [5]),
    ]);
  });

  itEachCell(placeCells, {
    setup,
    attackContext: () => attackContextOf(setup, placed, placedOther),
    base: (): ReadTarget => ({
      lineageId: placed.lineageId,
      trusted: placed.trusted,
      recall: { latest: true },
      receiptSeq: 4,
      write: placed.writes[4] as ReadTarget['write'],
    }),
    readers: [verifyLineageCli, verifyLineageAuditCli],
  });
});

const rewindMoreThanOneRun: Attack = {
  target: 'head',
  attack: 'rewind the head by more than one run (to seq 0, 41 records left past it)',
  apply: (c) => c.table.put(earlierHead(c, '1 records')),
};

describe('tampering with MAC-only heads (the small head), through the sealer', () => {
  beforeAll(async () => {
    [macOnly, macOnlyOther, longRun] = await Promise.all([
      sealLineage(setup, 'tamper-rh-mac', [2, 1, 2], undefined, { macOnly: true }),
      sealLineage(setup, 'tamper-rh-mac-other', [5], undefined, { macOnly: true }),
      sealLineage(setup, 'tamper-rh-mac-long', [1, 40, 1], undefined, { macOnly: true }),
    ]);
  }, 300_000);

  itEachCell(macOnlyCells, {
    setup,
    attackContext: () => attackContextOf(setup, macOnly, macOnlyOther),
    base: (): ReadTarget => ({
      lineageId: macOnly.lineageId,
      trusted: macOnly.trusted,
      recall: { latest: true },
      receiptSeq: 4,
      write: macOnly.writes[4] as ReadTarget['write'],
    }),
    readers: [nextAppend(setup, () => macOnly.lineageId, { macOnly: true })],
  });

  // docs/sealing.md, "The roll-forward": a crash leaves at most one run past the head.
  itEachCell([{ attack: rewindMoreThanOneRun, expect: { [SM]: 'CONFLICT LINEAGE_INCONSISTENT' } }], {
    setup,
    attackContext: () => attackContextOf(setup, longRun, macOnlyOther),
    base: (): ReadTarget => ({
      lineageId: longRun.lineageId,
      trusted: longRun.trusted,
      recall: { latest: true },
      receiptSeq: 41,
      write: longRun.writes[41] as ReadTarget['write'],
    }),
    readers: [nextAppend(setup, () => longRun.lineageId, { macOnly: true })],
  });
});
