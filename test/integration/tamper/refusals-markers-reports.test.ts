import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { DynamoDBLineageStore } from '../../../adapters/dynamodb-lineage-store';
import { KMSNoteSigner } from '../../../adapters/kms-note-signer';
import { LineageKeys } from '../../../adapters/lineage-keys';
import { GuardService } from '../../../functions/guard/guard-service';
import { canonicalJson } from '../../../shared/canonical/canonical-json';
import { guardKeyName } from '../../../shared/log/log-names';
import type { ResidualWriteRequest } from '../../../shared/write/write-request';
import { acceptedWrite, sealGroup } from '../../helpers/emulator-lineages';
import { FakeMetrics, FakePublisher, FakeSealQueue, fakeLogger } from '../../helpers/factories';
import { both, type Cell, itEachCell } from '../../helpers/tamper-matrix';
import { mcpInspect } from '../../helpers/tamper-mcp-readers';
import {
  clientRecall,
  clientWaitForOutcome,
  inspectRefusalsCli,
  publishWaitCli,
  type ReadTarget,
  recallCli,
} from '../../helpers/tamper-readers';
import {
  type Attack,
  type AttackContext,
  forgedRejection,
  forgedTriageAnswer,
  type Item,
  movedTo,
  partitionOf,
  withJson,
} from '../../helpers/tamper-table';
import { signWriteSync, TEST_WRITER } from '../../helpers/writer-factories';
import { attackContextOf, emulatorSetup, MANIFEST, type SealedLineage, sealLineage, tamperSealer } from './fixture';

// docs/guarantees.md "Tampering by the table writer": the table writer attacks the items around the records: residual markers,
// triage reports, rejections and conflicts. Their readers are the write's outcome (`publish
// --wait`, `waitForOutcome`) and the recall (`recall`, `client.recall`). docs/verifiable-log.md,
// "Signed outcomes" and "Recall", and docs/sealing.md, "Threat model": a forged or edited item is
// ignored (a refusal counts only when signed by the deciding function for that very request; a
// triage answer only when the client proves it), and a deleted one is a delay, never another answer.

const setup = emulatorSetup();
let lineage: SealedLineage;
let other: SealedLineage;
/** A write refused by the sealer (`RESIDUAL_ID_REUSED`: r-1 again with another payload), signed. */
let reused: ResidualWriteRequest;
/** A write in conflict (`LINEAGE_INCONSISTENT`: sealed on a rewound head), signed. */
let conflicted: ResidualWriteRequest;
/** A write never published. */
let neverWritten: ResidualWriteRequest;
/** A genuine triage report of an earlier recall of this lineage, and one of the other lineage. */
let earlierReport: Item;
let otherReport: Item;

/**
 * A genuine rejection the guard recorded for a body that is not JSON, under `REJECTION#~unparsed` (its
 * item as stored): unsigned, as every refusal decided before a writer signature verifies (docs/guard.md,
 * "Refusals at the queue"), so editing, replaying or moving it forges nothing a reader counts.
 */
let unparsed: Item;
/** The unparsed partition (shared with every other test: attacks on it undo only what they wrote). */
const UNPARSED_PK = LineageKeys.rejection(null);
/** The digest the client compares a refusal without a request digest with: SHA-256 of the write's canonical body. */
const bodyDigestOf = (write: ResidualWriteRequest) =>
  createHash('sha256').update(canonicalJson(write), 'utf8').digest('hex');
/** `unparsed` made to name the never-written write r-9 (its residual id and its body's digest). */
const unparsedNamingR9 = (): Item => ({
  ...unparsed,
  residualId: { S: 'r-9' },
  bodyDigest: { S: bodyDigestOf(neverWritten) },
});

/** Refusals are timed ahead of the readers' publishes, so `publish --wait` counts them as this publish's. */
const AHEAD_MS = 10 * 60_000;
/** The refused writes' `signedAtMs`, ahead of now: within the writer signature's age window at both ends. */
const SIGNED_AHEAD_MS = 4 * 60_000;

const attackContext = () => attackContextOf(setup, lineage, other);
const pk = partitionOf;
const itemsWith = async (context: AttackContext, partition: string, prefix: string) =>
  (await context.table.query(partition)).filter((item) => item.sk?.S?.startsWith(prefix));
/** The one item under `prefix` in `partition`. */
const onlyItem = async (context: AttackContext, partition: string, prefix = '') => {
  const items = await itemsWith(context, partition, prefix);
  expect(items, `one item ${partition} ${prefix}`).toHaveLength(1);
  return items[0] as Item;
};
const rejectionOf = (c: AttackContext) => onlyItem(c, LineageKeys.rejection(c.lineageId));
const conflictOf = (c: AttackContext) => onlyItem(c, pk(c), 'CONFLICT#');

const putAnswer = (c: AttackContext, answer: Record<string, unknown>) =>
  c.table.put({
    pk: { S: LineageKeys.triage(c.lineageId) },
    sk: { S: answer.requestId as string },
    report: { S: JSON.stringify(answer) },
  });

// --- attacks, as data (the recall attacks act on the answer through the recall's hook) ---
const noop = async () => {};
const attacks = {
  none: { target: 'refusals, markers and reports', attack: 'none (control)', apply: noop },
  deleteMarker: {
    target: 'residual marker',
    attack: 'delete the marker of r-2',
    apply: (c) => c.table.delete(pk(c), LineageKeys.residualSk('r-2')),
  },
  editMarker: {
    target: 'residual marker',
    attack: 'edit the marker of r-2 to point at seq 1',
    apply: (c) => c.table.update(pk(c), LineageKeys.residualSk('r-2'), (item) => ({ ...item, seq: { N: '1' } })),
  },
  insertMarker: {
    target: 'residual marker',
    attack: 'insert a marker for a residual never written (r-9), pointing at seq 2',
    apply: async (c) =>
      c.table.put({
        ...(await c.table.get(pk(c), LineageKeys.residualSk('r-2'))),
        sk: { S: LineageKeys.residualSk('r-9') },
      }),
  },
  transplantMarker: {
    target: 'residual marker',
    attack: "transplant the other lineage's marker of r-2 (seq 2) over this one's",
    apply: async (c) =>
      c.table.put(
        movedTo(await c.table.get(LineageKeys.lineage(c.otherLineageId), LineageKeys.residualSk('r-2')), pk(c)),
      ),
  },
  editReport: {
    target: 'triage report',
    attack: 'edit the stored answer after triage wrote it (verdict FULL_RECONSTRUCTION_REQUIRED)',
    apply: noop,
  },
  forgeNotFound: {
    target: 'triage report',
    attack: 'insert a NOT_FOUND refusal under the request id before triage answers',
    apply: noop,
  },
  forgeInvalid: {
    target: 'triage report',
    attack: 'insert an INVALID_REQUEST refusal under the request id before triage answers',
    apply: noop,
  },
  replayReport: {
    target: 'triage report',
    attack: "replay an earlier recall's genuine answer under the request id",
    apply: noop,
  },
  transplantReport: {
    target: 'triage report',
    attack: "transplant the other lineage's genuine answer under the request id",
    apply: noop,
  },
  deleteReport: { target: 'triage report', attack: 'delete the answer after triage wrote it', apply: noop },
  editRejection: {
    target: 'rejection',
    attack: 'edit the signed rejection (reason STALE_STATE)',
    apply: async (c) => c.table.put({ ...(await rejectionOf(c)), reason: { S: 'STALE_STATE' } }),
  },
  deleteRejection: {
    target: 'rejection',
    attack: 'delete the signed rejection',
    apply: async (c) => {
      const item = await rejectionOf(c);
      await c.table.delete(item.pk?.S as string, item.sk?.S as string);
    },
  },
  forgeRejection: {
    target: 'rejection',
    attack: 'insert an unsigned rejection (STALE_STATE) for a write that was sealed',
    apply: async (c) => {
      await c.table.put(forgedRejection(c.lineageId, 'r-2', Date.now() + AHEAD_MS));
    },
  },
  replayRejection: {
    target: 'rejection',
    attack: 'replay the signed rejection of r-1 (reused) under the sealed r-1 write',
    apply: noop,
  },
  replayRejectionKey: {
    target: 'rejection',
    attack: 'replay the signed rejection under a later sort key (a copy, every attribute kept)',
    apply: async (c) => {
      const item = await rejectionOf(c);
      const sk = LineageKeys.rejectionSk(Date.now() + 2 * AHEAD_MS, item.messageId?.S as string);
      await c.table.put({ ...item, sk: { S: sk } });
    },
  },
  transplantRejection: {
    target: 'rejection',
    attack: "transplant the signed rejection into the other lineage's partition (its r-1 is sealed)",
    apply: async (c) => c.table.put(movedTo(await rejectionOf(c), LineageKeys.rejection(c.otherLineageId))),
  },
  editConflict: {
    target: 'conflict',
    attack: 'edit the signed conflict (reason LOST_RACE)',
    apply: async (c) => c.table.put({ ...(await conflictOf(c)), reason: { S: 'LOST_RACE' } }),
  },
  deleteConflict: {
    target: 'conflict',
    attack: 'delete the signed conflict',
    apply: async (c) => {
      const item = await conflictOf(c);
      await c.table.delete(item.pk?.S as string, item.sk?.S as string);
    },
  },
  forgeConflict: {
    target: 'conflict',
    attack: 'insert an unsigned conflict (STALE_EPOCH) for a write that was sealed',
    apply: async (c) => {
      const conflict = await conflictOf(c);
      const atMs = Date.now() + AHEAD_MS;
      await c.table.put({
        ...conflict,
        sk: { S: LineageKeys.conflict('r-2', atMs, 'm-forged') },
        residualId: { S: 'r-2' },
        reason: { S: 'STALE_EPOCH' },
        messageId: { S: 'm-forged' },
        atMs: { N: String(atMs) },
        statement: { S: 'forged' },
      });
    },
  },
  transplantConflict: {
    target: 'conflict',
    attack: "transplant the signed conflict into the other lineage's partition",
    apply: async (c) => c.table.put(movedTo(await conflictOf(c), LineageKeys.lineage(c.otherLineageId))),
  },
  forgeUnparsed: {
    target: 'unparsed rejection',
    attack: 'insert an unsigned MALFORMED_JSON rejection under REJECTION#~unparsed naming r-9 and its body digest',
    apply: async () => {
      const atMs = Date.now() + AHEAD_MS;
      await setup.table.put({
        pk: { S: UNPARSED_PK },
        sk: { S: LineageKeys.rejectionSk(atMs, 'm-forged-unparsed') },
        stage: { S: 'GUARD' },
        reason: { S: 'MALFORMED_JSON' },
        residualId: { S: 'r-9' },
        messageId: { S: 'm-forged-unparsed' },
        bodyDigest: { S: bodyDigestOf(neverWritten) },
        bodyPreview: { S: '{' },
        issues: { S: '[]' },
        rejectedVariables: { S: '[]' },
        requestViolations: { S: '[]' },
        atMs: { N: String(atMs) },
      });
    },
    undo: async () => {
      for (const item of await setup.table.query(UNPARSED_PK)) {
        if (item.messageId?.S === 'm-forged-unparsed') await setup.table.delete(UNPARSED_PK, item.sk?.S as string);
      }
    },
  },
  editUnparsed: {
    target: 'unparsed rejection',
    attack: 'edit the genuine (unsigned) unparsed rejection to name r-9 and its body digest',
    apply: async () => setup.table.put(unparsedNamingR9()),
    undo: async () => setup.table.put(unparsed),
  },
  replayUnparsed: {
    target: 'unparsed rejection',
    attack: 'replay the genuine (unsigned) unparsed rejection later (new sort key), naming r-9 and its body digest',
    apply: async () => {
      const atMs = Date.now() + AHEAD_MS;
      await setup.table.put({
        ...unparsedNamingR9(),
        sk: { S: LineageKeys.rejectionSk(atMs, unparsed.messageId?.S as string) },
        atMs: { N: String(atMs) },
      });
    },
    undo: async () => {
      for (const item of await setup.table.query(UNPARSED_PK)) {
        if (item.messageId?.S === unparsed.messageId?.S && item.sk?.S !== unparsed.sk?.S) {
          await setup.table.delete(UNPARSED_PK, item.sk?.S as string);
        }
      }
    },
  },
  transplantUnparsed: {
    target: 'unparsed rejection',
    attack:
      "transplant the genuine (unsigned) unparsed rejection into the lineage's partition, naming r-9 and its body digest",
    apply: async (c) => c.table.put(movedTo(unparsedNamingR9(), LineageKeys.rejection(c.lineageId))),
  },
} satisfies Record<string, Attack>;

const R = recallCli.name;
const CR = clientRecall.name;
const P = publishWaitCli.name;
const CW = clientWaitForOutcome.name;
const IL = inspectRefusalsCli.name;
const MI = mcpInspect.name;

/** The write's outcome readers both report `cli` / `client`. */
// A seal read by publish --wait is exit 3 here: these lineages are never integrated (the sealer sends
// no notices), so it ends SEALED_AWAITING_INTEGRATION (docs/cli.md, `publish --wait`).
const outcome = (cli: string, client: string) => ({ [P]: both(cli), [CW]: both(client) });
const recalled = (cli: Cell['expect'][string], client: Cell['expect'][string]) => ({ [R]: cli, [CR]: client });
/**
 * The refusals `reseal inspect --lineage` and `reseal_inspect` list for the awaited write's
 * lineage (each `<reason> signed|unsigned`, oldest first) on an intact chain: a forged, edited or
 * moved refusal is listed, never as signed (docs/cli.md, `inspect --lineage`; docs/mcp.md,
 * `reseal_inspect`).
 */
const listed = (rejections: readonly string[], conflicts: readonly string[]) => {
  const listing = `rejections [${rejections.join(', ')}] conflicts [${conflicts.join(', ')}]`;
  return { [IL]: `exit 0 ${listing}`, [MI]: both(`VERIFIED_INTACT ${listing}`) };
};
/** What the listing of the attacked lineage shows with nothing changed: its signed refusals. */
const genuine = () => listed(['RESIDUAL_ID_REUSED signed'], ['LINEAGE_INCONSISTENT signed']);
const forWrite =
  (write: () => ResidualWriteRequest): Cell['target'] =>
  () => ({ write: write() });
const byResidual =
  (residualId: string, write?: () => ResidualWriteRequest): Cell['target'] =>
  () => ({ recall: { residualId }, ...(write ? { write: write() } : {}) });
/** A recall whose answer the table writer changes: `before` triage answers, or `after`. */
const onAnswer =
  (
    move: (
      c: AttackContext,
      detail: { requestId: string; lineageId: string },
      when: 'before' | 'after',
    ) => Promise<void>,
  ) =>
  (): ReturnType<NonNullable<Cell['target']>> => ({
    onRecall: async (detail, triage) => {
      await move(attackContext(), detail, 'before');
      await triage();
      await move(attackContext(), detail, 'after');
    },
  });

// --- the matrix: expected outcome per reader, [without a trusted checkpoint, with one] ---
const cells: readonly Cell[] = [
  {
    attack: attacks.none,
    target: () => ({ recall: { residualId: 'r-2' } }),
    expect: {
      ...outcome('exit 3 SEALED', 'SEALED seq 2'),
      ...recalled(both('exit 0 VERIFIED_INTACT'), both('VERIFIED_INTACT')),
    },
  },
  {
    attack: { ...attacks.none, target: 'rejection' },
    target: forWrite(() => reused),
    expect: { ...outcome('exit 10 REJECTED', 'REJECTED'), ...genuine() },
  },
  {
    attack: { ...attacks.none, target: 'conflict' },
    target: forWrite(() => conflicted),
    expect: outcome('exit 10 CONFLICT', 'CONFLICT'),
  },
  // Residual markers. A deleted marker makes the record unfindable by residual id: at the
  // deadline the wait finds the write's seal in the signed lineage log, a tamper finding, not a
  // timeout (docs/cli.md, `publish --wait`); a recall's NOT_FOUND is searched the same way in the
  // records the index does not hold (these lineages are never integrated: all of them), so the
  // seal found there contradicts triage's claim (docs/deployment-log.md, "Clients", item 3).
  {
    attack: attacks.deleteMarker,
    target: byResidual('r-2'),
    expect: {
      ...outcome('exit 20 UNVERIFIED_TAMPER_RISK', 'HiddenSealError'),
      ...recalled(both('exit 20 UNVERIFIED_TAMPER_RISK'), both('UNVERIFIED_TAMPER_RISK')),
    },
  },
  {
    attack: attacks.editMarker,
    target: byResidual('r-2'),
    expect: {
      ...outcome('exit 20 LINEAGE_BROKEN', 'UnverifiedOutcomeError'),
      ...recalled(both('exit 20 LINEAGE_BROKEN'), both('LINEAGE_BROKEN')),
    },
  },
  {
    attack: attacks.insertMarker,
    target: byResidual('r-9', () => neverWritten),
    expect: {
      ...outcome('exit 20 LINEAGE_BROKEN', 'UnverifiedOutcomeError'),
      ...recalled(both('exit 20 LINEAGE_BROKEN'), both('LINEAGE_BROKEN')),
    },
  },
  {
    attack: attacks.transplantMarker,
    target: byResidual('r-2'),
    // The marker names the lineage it belongs to: another lineage's is not this one's, so this
    // one's is gone: the wait ends with the seal found in the signed log without its marker, the
    // recall by residual id is refused as unproven.
    expect: {
      ...outcome('exit 20 UNVERIFIED_TAMPER_RISK', 'HiddenSealError'),
      ...recalled(both('exit 20 UNVERIFIED_TAMPER_RISK'), both('UNVERIFIED_TAMPER_RISK')),
    },
  },
  // Triage reports: the client proves the record and recomputes the delta itself.
  {
    attack: attacks.editReport,
    target: onAnswer(async (c, detail, when) => {
      if (when === 'before') return;
      await c.table.update(LineageKeys.triage(c.lineageId), detail.requestId, (item) =>
        withJson(item, 'report', (answer) => ({
          ...answer,
          report: {
            ...(answer.report as Record<string, unknown>),
            verdict: 'FULL_RECONSTRUCTION_REQUIRED',
            retainedClaims: [],
            invalidatedClaims: ['claim-region'],
          },
        })),
      );
    }),
    expect: recalled(both('exit 20 HASH_MISMATCH'), both('HASH_MISMATCH')),
  },
  {
    attack: attacks.forgeNotFound,
    target: onAnswer(async (c, detail, when) => {
      if (when === 'after') return;
      await putAnswer(
        c,
        forgedTriageAnswer(detail, { outcome: 'REFUSED', refusalCode: 'NOT_FOUND', refusalReason: 'no such record' }),
      );
    }),
    expect: recalled(
      ['exit 20 UNVERIFIED_TAMPER_RISK', 'exit 20 TRUNCATION_DETECTED'],
      ['UNVERIFIED_TAMPER_RISK', 'TRUNCATION_DETECTED'],
    ),
  },
  {
    attack: attacks.forgeInvalid,
    target: onAnswer(async (c, detail, when) => {
      if (when === 'after') return;
      await putAnswer(
        c,
        forgedTriageAnswer(detail, { outcome: 'REFUSED', refusalCode: 'INVALID_REQUEST', refusalReason: 'invalid' }),
      );
    }),
    expect: recalled(both('exit 20 UNVERIFIED_TAMPER_RISK'), both('UNVERIFIED_TAMPER_RISK')),
  },
  {
    // An answer to another request is not this one's: triage answers, the replay is overwritten.
    attack: attacks.replayReport,
    target: onAnswer(async (c, detail, when) => {
      if (when === 'before') await c.table.put({ ...earlierReport, sk: { S: detail.requestId } });
    }),
    expect: recalled(both('exit 0 VERIFIED_INTACT'), both('VERIFIED_INTACT')),
  },
  {
    attack: attacks.transplantReport,
    target: onAnswer(async (c, detail, when) => {
      if (when === 'before') {
        await c.table.put({ ...movedTo(otherReport, LineageKeys.triage(c.lineageId)), sk: { S: detail.requestId } });
      }
    }),
    expect: recalled(both('exit 0 VERIFIED_INTACT'), both('VERIFIED_INTACT')),
  },
  {
    attack: attacks.deleteReport,
    target: onAnswer(async (c, detail, when) => {
      if (when === 'after') await c.table.delete(LineageKeys.triage(c.lineageId), detail.requestId);
    }),
    expect: recalled(both('exit 1 TIMEOUT'), both('TimeoutError')),
  },
  // Rejections: only a refusal signed by the deciding function for this very request counts.
  {
    attack: attacks.editRejection,
    target: forWrite(() => reused),
    expect: {
      ...outcome('exit 1 TIMEOUT', 'TimeoutError'),
      ...listed(['STALE_STATE unsigned'], ['LINEAGE_INCONSISTENT signed']),
    },
  },
  {
    attack: attacks.deleteRejection,
    target: forWrite(() => reused),
    expect: { ...outcome('exit 1 TIMEOUT', 'TimeoutError'), ...listed([], ['LINEAGE_INCONSISTENT signed']) },
  },
  {
    attack: attacks.forgeRejection,
    target: forWrite(() => lineage.writes[2] as ResidualWriteRequest),
    expect: {
      ...outcome('exit 3 SEALED', 'SEALED seq 2'),
      ...listed(['RESIDUAL_ID_REUSED signed', 'STALE_STATE unsigned'], ['LINEAGE_INCONSISTENT signed']),
    },
  },
  {
    // The signed refusal names the reused request, not the sealed one with the same residual id.
    attack: attacks.replayRejection,
    target: forWrite(() => lineage.writes[1] as ResidualWriteRequest),
    expect: outcome('exit 3 SEALED', 'SEALED seq 1'),
  },
  {
    // A copy of a signed refusal is that same refusal (its statement names the write it refused,
    // and when): listed twice, both signed, it refuses nothing else, and that write is still refused.
    attack: attacks.replayRejectionKey,
    target: forWrite(() => reused),
    expect: {
      ...outcome('exit 10 REJECTED', 'REJECTED'),
      ...listed(['RESIDUAL_ID_REUSED signed', 'RESIDUAL_ID_REUSED signed'], ['LINEAGE_INCONSISTENT signed']),
    },
  },
  {
    // The listing is the other lineage's: a signed refusal of this lineage is not signed there.
    attack: attacks.transplantRejection,
    target: forWrite(() => other.writes[1] as ResidualWriteRequest),
    expect: { ...outcome('exit 3 SEALED', 'SEALED seq 1'), ...listed(['RESIDUAL_ID_REUSED unsigned'], []) },
  },
  // Conflicts: the same rule as rejections.
  {
    attack: attacks.editConflict,
    target: forWrite(() => conflicted),
    expect: {
      ...outcome('exit 1 TIMEOUT', 'TimeoutError'),
      ...listed(['RESIDUAL_ID_REUSED signed'], ['LOST_RACE unsigned']),
    },
  },
  {
    attack: attacks.deleteConflict,
    target: forWrite(() => conflicted),
    expect: { ...outcome('exit 1 TIMEOUT', 'TimeoutError'), ...listed(['RESIDUAL_ID_REUSED signed'], []) },
  },
  {
    attack: attacks.forgeConflict,
    target: forWrite(() => lineage.writes[2] as ResidualWriteRequest),
    expect: {
      ...outcome('exit 3 SEALED', 'SEALED seq 2'),
      ...listed(['RESIDUAL_ID_REUSED signed'], ['LINEAGE_INCONSISTENT signed', 'STALE_EPOCH unsigned']),
    },
  },
  {
    attack: attacks.transplantConflict,
    // The same write addressed to the other lineage, signed again (a signature names its lineage).
    target: forWrite(() =>
      signWriteSync({ ...conflicted, lineageId: other.lineageId }, TEST_WRITER, conflicted.writer.signedAtMs),
    ),
    expect: { ...outcome('exit 1 TIMEOUT', 'TimeoutError'), ...listed([], ['LINEAGE_INCONSISTENT unsigned']) },
  },
  // The unparsed partition (docs/pipeline.md, "Learning the outcome of a write"): rejections of
  // bodies too broken to name a lineage. No reader of a write looks there, and a genuine one names
  // no lineage, no residual and no request (its statement says so), so nothing filed or moved
  // there makes a write look refused: the wait for the never-written r-9 goes on (a delay), and
  // the lineage's listing shows a moved one as not signed.
  {
    attack: attacks.forgeUnparsed,
    target: forWrite(() => neverWritten),
    expect: { ...outcome('exit 1 TIMEOUT', 'TimeoutError'), ...genuine() },
  },
  {
    attack: attacks.editUnparsed,
    target: forWrite(() => neverWritten),
    expect: { ...outcome('exit 1 TIMEOUT', 'TimeoutError'), ...genuine() },
  },
  {
    attack: attacks.replayUnparsed,
    target: forWrite(() => neverWritten),
    expect: { ...outcome('exit 1 TIMEOUT', 'TimeoutError'), ...genuine() },
  },
  {
    attack: attacks.transplantUnparsed,
    target: forWrite(() => neverWritten),
    expect: {
      ...outcome('exit 1 TIMEOUT', 'TimeoutError'),
      ...listed(['RESIDUAL_ID_REUSED signed', 'MALFORMED_JSON unsigned'], ['LINEAGE_INCONSISTENT signed']),
    },
  },
];

const readers = [recallCli, clientRecall, publishWaitCli, clientWaitForOutcome, inspectRefusalsCli, mcpInspect];

describe('tampering with residual markers, triage reports, rejections and conflicts', () => {
  beforeAll(async () => {
    [lineage, other] = await Promise.all([
      sealLineage(setup, 'tamper-side', [3]),
      sealLineage(setup, 'tamper-side-other', [3]),
    ]);
    const { lineageId } = lineage;
    const ahead = Date.now() + AHEAD_MS;
    // A signed rejection: r-1 again, with another payload.
    // Signed between now and `ahead`, so both the client's age check when a reader publishes it
    // (docs/authorship.md, at most 5 min ahead of its clock) and the sealer's at `ahead` accept it.
    const signedAtMs = Date.now() + SIGNED_AHEAD_MS;
    reused = signWriteSync(
      acceptedWrite(lineageId, 'r-1', MANIFEST, ahead, { payload: { conclusion: 'another conclusion' } }),
      TEST_WRITER,
      signedAtMs,
    );
    expect(await sealGroup(tamperSealer(setup, { clock: () => ahead }), [reused], ahead)).toEqual([
      'REJECTED RESIDUAL_ID_REUSED',
    ]);
    // A signed conflict: a write sealed on a head rewound to seq 1 (then the head is put back).
    const head = await setup.table.get(LineageKeys.lineage(lineageId), LineageKeys.head);
    const record1 = await setup.table.get(LineageKeys.lineage(lineageId), LineageKeys.record(1));
    await setup.table.put({ ...head, seq: { N: '1' }, recordHash: record1.recordHash as Item[string] });
    conflicted = signWriteSync(acceptedWrite(lineageId, 'r-conflict', MANIFEST, ahead), TEST_WRITER, signedAtMs);
    expect(await sealGroup(tamperSealer(setup, { clock: () => ahead }), [conflicted], ahead)).toEqual([
      'CONFLICT LINEAGE_INCONSISTENT',
    ]);
    await setup.table.put(head);
    neverWritten = acceptedWrite(lineageId, 'r-9', MANIFEST, Date.now());
    // A genuine unparsed rejection: the guard (in process, with the stack's guard key) refuses a body that is not JSON.
    // It spends no Sign on it (docs/guard.md, "Refusals at the queue").
    const guard = new GuardService({
      store: new DynamoDBLineageStore(setup.dynamodb, setup.stack.TableName),
      publisher: new FakePublisher(),
      queue: new FakeSealQueue(),
      signer: new KMSNoteSigner(setup.kms, setup.stack.GuardKeyArn, guardKeyName(setup.stack.LogName)),
      logName: setup.stack.LogName,
      metrics: new FakeMetrics(),
      logger: fakeLogger(),
      clock: Date.now,
      maxReceiptAgeSeconds: 900,
    });
    const messageId = `m-unparsed-${randomUUID()}`;
    expect(await guard.handle({ messageId, body: '{"lineageId": ', sentAtMs: ahead })).toEqual({
      kind: 'REJECTED',
      reason: 'MALFORMED_JSON',
    });
    unparsed = await setup.table.get(UNPARSED_PK, LineageKeys.rejectionSk(ahead, messageId));
    expect(unparsed.statement, 'the guard recorded it unsigned').toBeUndefined();
    // Genuine answers of earlier recalls, to replay and transplant.
    for (const [of, keep] of [
      [lineage, (item: Item) => (earlierReport = item)],
      [other, (item: Item) => (otherReport = item)],
    ] as const) {
      expect(await recallCli.read(setup, { ...baseOf(of), recall: { seq: 0 } }, false)).toBe('exit 0 VERIFIED_INTACT');
      const reports = await setup.table.query(LineageKeys.triage(of.lineageId));
      expect(reports).toHaveLength(1);
      keep(reports[0] as Item);
    }
    // Every cell starts from this state: the lineage with its refusals, no reports.
    for (const of of [lineage, other]) {
      for (const item of await setup.table.query(LineageKeys.triage(of.lineageId))) {
        await setup.table.delete(item.pk?.S as string, item.sk?.S as string);
      }
    }
  });

  afterAll(async () => {
    if (unparsed) await setup.table.delete(UNPARSED_PK, unparsed.sk?.S as string);
  });

  itEachCell(cells, { setup, attackContext, base: () => baseOf(lineage), readers });
});

function baseOf(of: SealedLineage): ReadTarget {
  return {
    lineageId: of.lineageId,
    trusted: of.trusted,
    recall: { seq: 2 },
    receiptSeq: 2,
    write: of.writes[2] as ResidualWriteRequest,
  };
}
