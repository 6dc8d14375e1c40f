import { createHash } from 'node:crypto';
import { beforeAll, describe } from 'vitest';
import { LineageKeys } from '../../../adapters/lineage-keys';
import { writeRequestFor } from '../../../mcp/tools/write';
import { canonicalJson } from '../../../shared/canonical/canonical-json';
import type { ResidualWriteRequest } from '../../../shared/write/write-request';
import { both, type Cell, itEachCell } from '../../helpers/tamper-matrix';
import { mcpInspect, mcpRecall, mcpVerify, mcpWrite } from '../../helpers/tamper-mcp-readers';
import type { ReadTarget } from '../../helpers/tamper-readers';
import {
  type Attack,
  type AttackContext,
  forgedRejection,
  forgedTriageAnswer,
  type Item,
  partitionOf,
  wipeLineage,
  withJson,
} from '../../helpers/tamper-table';
import { signWriteSync, TEST_POLICY, TEST_WRITER } from '../../helpers/writer-factories';
import { ENV, emulatorSetup, type SealedLineage, sealLineage } from './fixture';

// docs/guarantees.md "Tampering by the table writer": the MCP tools (docs/mcp.md, "Tools" and "Errors") as readers of a tampered
// table, on a representative subset of the attacks: an edited record, a rewound head, forged
// triage answers, forged rejections and a wiped lineage. Every answer must be the tool error the
// docs promise (`TAMPER_DETECTED` with the client's verdict, `NOT_FOUND`, `TIMEOUT`), never an
// intact answer; a forged refusal is never a `WRITE_REJECTED`. The lineage is sealed from the
// tools' own arguments (`writeRequestFor`), so `reseal_write` with the same arguments is a
// redelivery of a sealed write and its wait reads that write's outcome.

const setup = emulatorSetup();
let lineage: SealedLineage;
/** The `reseal_write` arguments of each write, by residual id. */
const argsByResidual = new Map<string, Record<string, unknown>>();
/** Before every write: the boundary of the writing session. */
const BOUNDARY_MS = Date.now() - 60_000;
/** Refusals forged ahead of the reads' publishes, so a wait would count them as this publish's. */
const AHEAD_MS = 10 * 60_000;

/** The tool arguments of write `residualId` (a cold start, one fresh variable, one claim on REGION). */
function argsOf(lineageId: string, residualId: string): Record<string, unknown> {
  return {
    lineageId,
    residualId,
    sessionId: 's-1',
    generationEpoch: 1,
    boundaryAtMs: BOUNDARY_MS,
    claims: { 'claim-region': { content: `conclusion of ${residualId}`, causalKeys: ['REGION'] } },
    structuralKeys: ['ARCH'],
    variables: [{ name: 'ATTEMPT', value: residualId, freshness: 'FRESH_GENERATED', sourceEpoch: 1 }],
    env: ENV,
  };
}
function mcpWriteOf(lineageId: string, residualId: string, nowMs: number): ResidualWriteRequest {
  const args = argsOf(lineageId, residualId);
  argsByResidual.set(residualId, args);
  const request = writeRequestFor(args as Parameters<typeof writeRequestFor>[0], ENV, nowMs);
  // The lineage's first write (`r-0`) is its inception: it sets the policy whose digest ends the
  // id, as the client adds it to a new lineage's first write (docs/authorship.md).
  return signWriteSync(residualId === 'r-0' ? { ...request, policy: TEST_POLICY } : request, TEST_WRITER, nowMs);
}
const writeArgs = (write: ResidualWriteRequest) => {
  const args = argsByResidual.get(write.residualId);
  if (!args) throw new Error(`no tool arguments for ${write.residualId}`);
  return args;
};

const attackContext = (): AttackContext => ({
  table: setup.table,
  lineageId: lineage.lineageId,
  // No second lineage: nothing is transplanted here (its partitions are empty and stay so).
  otherLineageId: `${lineage.lineageId}-none`,
  earlier: lineage.earlier,
});
const pk = partitionOf;

/** An unsigned guard rejection (`STALE_STATE`) of `residualId`, named by the digest of its canonical body. */
const forgedRejectionOf =
  (residualId: string, body: () => ResidualWriteRequest) =>
  async (c: AttackContext): Promise<void> => {
    const bodyDigest = createHash('sha256').update(canonicalJson(body()), 'utf8').digest('hex');
    await c.table.put({
      ...forgedRejection(c.lineageId, residualId, Date.now() + AHEAD_MS),
      bodyDigest: { S: bodyDigest },
    });
  };

/** A write the tools' arguments make but that was never sealed. */
let unsealed: ResidualWriteRequest;

/** A triage answer the table writer stores under the recall's request id before triage answers. */
const forgedAnswer =
  (refusalCode: string): Cell['target'] =>
  () => ({
    recall: { seq: 2 },
    onRecall: async (detail, triage) => {
      await setup.table.put({
        pk: { S: LineageKeys.triage(detail.lineageId) },
        sk: { S: detail.requestId },
        report: {
          S: JSON.stringify(forgedTriageAnswer(detail, { outcome: 'REFUSED', refusalCode, refusalReason: 'forged' })),
        },
      });
      await triage();
    },
  });

// --- attacks, as data ---
const attacks = {
  none: { target: 'lineage', attack: 'none (control)', apply: async () => {} },
  editPayload: {
    target: 'record',
    attack: 'edit the payload of the last record',
    apply: (c) =>
      c.table.update(pk(c), LineageKeys.record(2), (item) =>
        withJson(item, 'record', (r) => ({ ...r, payload: { claims: { 'claim-region': 'forged' } } })),
      ),
  },
  rewindHead: {
    target: 'head',
    attack: 'rewind the head to its signed state of seq 1 (record 2 left)',
    apply: async (c) => {
      const head = c.earlier
        .get('2 records')
        ?.get(pk(c))
        ?.find((item: Item) => item.sk?.S === LineageKeys.head);
      if (!head) throw new Error('no head of 2 records');
      await c.table.put(head);
    },
  },
  forgeNotFound: {
    target: 'triage report',
    attack: 'insert a NOT_FOUND refusal under the request id before triage answers',
    apply: async () => {},
  },
  forgeInvalid: {
    target: 'triage report',
    attack: 'insert an INVALID_REQUEST refusal under the request id before triage answers',
    apply: async () => {},
  },
  forgeRejection: {
    target: 'rejection',
    attack: 'insert an unsigned rejection (STALE_STATE) for a write that was sealed',
    apply: forgedRejectionOf('r-2', () => lineage.writes[2] as ResidualWriteRequest),
  },
  forgeRejectionUnsealed: {
    target: 'rejection',
    attack: 'insert an unsigned rejection (STALE_STATE) for a write never sealed',
    apply: forgedRejectionOf('r-unsealed', () => unsealed),
  },
  wipe: {
    target: 'lineage',
    attack: 'delete every record and the head',
    apply: wipeLineage,
  },
} satisfies Record<string, Attack>;

const W = 'mcp reseal_write (wait)';
const V = mcpVerify.name;
const I = mcpInspect.name;
const R = mcpRecall.name;
const noRefusals = 'rejections [] conflicts []';
/** Every tool reports the client's verdict as `TAMPER_DETECTED` (docs/mcp.md, `reseal_recall`: every verdict other than VERIFIED_INTACT). */
const tampered = (verdict: string) => ({
  [V]: both(`TAMPER_DETECTED ${verdict}`),
  [I]: both(`TAMPER_DETECTED ${verdict} ${noRefusals}`),
  [R]: both(`TAMPER_DETECTED ${verdict}`),
  [W]: both(`TAMPER_DETECTED ${verdict}`),
});

// --- the matrix: expected outcome per tool, [without a kept checkpoint, with one] ---
const cells: readonly Cell[] = [
  {
    attack: attacks.none,
    expect: {
      [V]: both('VERIFIED_INTACT'),
      [I]: both(`VERIFIED_INTACT ${noRefusals}`),
      [R]: both('TRIAGED VERIFIED_INTACT'),
      [W]: both('SEALED seq 2'),
    },
  },
  { attack: attacks.editPayload, expect: tampered('HASH_MISMATCH') },
  {
    // docs/sealing.md, "What each reader changes": record 2 past the rewound head is no finding for
    // the log reads: a recall answers from the head's tree (a kept checkpoint of the later state
    // shows the rewind as truncation), and the wait for the write of seq 2, past that tree, is cut.
    attack: attacks.rewindHead,
    expect: {
      ...tampered('LINEAGE_BROKEN'),
      [R]: ['TRIAGED VERIFIED_INTACT', 'TAMPER_DETECTED TRUNCATION_DETECTED'],
      [W]: both('TAMPER_DETECTED TRUNCATION_DETECTED'),
    },
  },
  {
    // docs/mcp.md, `reseal_recall`: an unproven NOT_FOUND the signed log contradicts is not "not
    // found" (docs/cli.md: UNVERIFIED_TAMPER_RISK; with a kept checkpoint covering the seq,
    // TRUNCATION_DETECTED).
    attack: attacks.forgeNotFound,
    target: forgedAnswer('NOT_FOUND'),
    expect: { [R]: ['TAMPER_DETECTED UNVERIFIED_TAMPER_RISK', 'TAMPER_DETECTED TRUNCATION_DETECTED'] },
  },
  {
    attack: attacks.forgeInvalid,
    target: forgedAnswer('INVALID_REQUEST'),
    expect: { [R]: both('TAMPER_DETECTED UNVERIFIED_TAMPER_RISK') },
  },
  {
    // docs/mcp.md, `reseal_write`: a seal of this write wins over any refusal, and an unsigned
    // one is ignored; `reseal_inspect` lists it as not signed.
    attack: attacks.forgeRejection,
    expect: {
      [W]: both('SEALED seq 2'),
      [I]: both('VERIFIED_INTACT rejections [STALE_STATE unsigned] conflicts []'),
    },
  },
  {
    // Whoever can write the table can delay the answer (until TIMEOUT), never change it.
    attack: attacks.forgeRejectionUnsealed,
    target: () => ({ write: unsealed }),
    expect: { [W]: both('TIMEOUT') },
  },
  {
    // docs/mcp.md, `reseal_recall` and `reseal_verify`; docs/cli.md: a lineage gone although a
    // kept checkpoint saw it was cut (TRUNCATION_DETECTED); without one it does not exist.
    attack: attacks.wipe,
    expect: {
      [V]: ['NOT_FOUND', 'TAMPER_DETECTED TRUNCATION_DETECTED'],
      [I]: ['NOT_FOUND', 'TAMPER_DETECTED TRUNCATION_DETECTED'],
      [R]: ['NOT_FOUND', 'TAMPER_DETECTED TRUNCATION_DETECTED'],
      // A wait whose marker never appears reads the signed log at the deadline (docs/mcp.md,
      // `reseal_write`): with a kept checkpoint the cut is caught, without one it times out.
      [W]: ['TIMEOUT', 'TAMPER_DETECTED TRUNCATION_DETECTED'],
    },
  },
];

const readers = [mcpVerify, mcpInspect, mcpRecall, mcpWrite(writeArgs)];

describe('tampering read through the MCP tools', () => {
  beforeAll(async () => {
    lineage = await sealLineage(setup, 'tamper-mcp', [2, 1], mcpWriteOf);
    unsealed = mcpWriteOf(lineage.lineageId, 'r-unsealed', Date.now());
  });

  itEachCell(cells, {
    setup,
    attackContext,
    base: (): ReadTarget => ({
      lineageId: lineage.lineageId,
      trusted: lineage.trusted,
      recall: { latest: true },
      receiptSeq: 2,
      write: lineage.writes[2] as ResidualWriteRequest,
    }),
    readers,
  });
});
