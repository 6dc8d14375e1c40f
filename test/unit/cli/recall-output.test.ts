import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SealedRecord } from '../../../shared/seal/sealed-record';
import { inProcessRecallClient } from '../../helpers/factories';
import { InMemoryLineageStore, markerKey } from '../../helpers/in-memory-lineage-store';
import { appendSealed } from '../../helpers/pipeline-keys';
import { buildChain } from '../../helpers/seal-factories';
import { shrinkHead } from '../../helpers/small-head';
import authorshipFile from '../../vectors/authorship.json';
import { runCli } from './run-cli';

// biome-ignore lint/suspicious/noExplicitAny: vectors are untyped JSON on purpose
const authorship: any = authorshipFile;

const FIXTURES = join(import.meta.dirname, 'fixtures');
const LINEAGE = 'lineage-recall-1';

/** A client whose bus runs the triage function on the in-memory store for each RecallRequested. */
function recallConnect(store: InMemoryLineageStore) {
  const client = inProcessRecallClient(store);
  return async () => client;
}

async function recall(store: InMemoryLineageStore, extra: string[]) {
  return runCli(['recall', '--lineage', LINEAGE, '--env', 'baseline-env.json', '--request-id', 'req-1', ...extra], {
    cwd: FIXTURES,
    connect: recallConnect(store),
  });
}

describe('reseal recall prints the refusal code', () => {
  it('--json (reseal.recall/1): refusalCode NOT_FOUND on an empty lineage, exit 2', async () => {
    const result = await recall(new InMemoryLineageStore(), ['--json']);
    expect(result.exitCode).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({
      format: 'reseal.recall/1',
      outcome: 'REFUSED',
      refusalCode: 'NOT_FOUND',
      // Triage's words are unproven: redacted from the reason, shown in untrusted (docs/cli.md, "Untrusted data").
      refusalReason: expect.stringContaining('[stored text: see untrusted]'),
      untrusted: { refusalReason: expect.stringContaining('no such lineage') },
      // Without a checkpoint store the answer says plainly that truncation was not checked.
      truncationChecked: false,
    });
  });

  it('text: a "refusal code" line; VERIFICATION_FAILED on a head item that is not a well-formed state, exit 20', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(2, { lineageId: LINEAGE });
    await appendSealed(store, records);
    await shrinkHead(store, LINEAGE);
    store.setLogHead(LINEAGE, (log) => ({ ...log, frontier: [] }));
    const result = await recall(store, ['--seq', '0']);
    expect(result.exitCode).toBe(20);
    expect(result.stdout).toMatch(/^refusal code: +VERIFICATION_FAILED$/m);
  });

  it('triaged: refusalCode null in --json, no refusal code line in text', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(1, { lineageId: LINEAGE });
    await appendSealed(store, [records[0] as (typeof records)[number]]);
    const result = await recall(store, ['--json']);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'TRIAGED', refusalCode: null });
    const text = await recall(store, ['--request-id', 'req-2']);
    expect(text.stdout).toMatch(/^outcome: +TRIAGED$/m);
    expect(text.stdout).not.toContain('refusal code');
  });

  it('NOT_FOUND for --residual-id: the hint names the residual, not the seq its marker led to', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(2, { lineageId: LINEAGE });
    await appendSealed(store, records);
    // A marker past the signed checkpoint (2 records): triage answers NOT_FOUND at seq 9.
    store.markers.set(markerKey(LINEAGE, 'r-ahead'), { lineageId: LINEAGE, seq: 9 });
    const result = await recall(store, ['--residual-id', 'r-ahead']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      `no such record: lineage ${LINEAGE} has no residual r-ahead (check --lineage, --seq, --residual-id)\n`,
    );
  });

  it('an answer the client cannot prove is not trusted: a planted INVALID_REQUEST or an unproven TRIAGED exits 20', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(1, { lineageId: LINEAGE });
    await appendSealed(store, [records[0] as (typeof records)[number]]);
    const triaged = await recall(store, ['--json']);
    expect(JSON.parse(triaged.stdout)).toMatchObject({ outcome: 'TRIAGED' });
    const answer = await store.getTriageReport(LINEAGE, 'req-1');
    if (!answer) throw new Error('no answer stored');
    await store.putTriageReport({ ...answer, requestId: 'req-unproven', proof: null });
    await store.putTriageReport({
      ...answer,
      requestId: 'req-invalid',
      outcome: 'REFUSED',
      verification: null,
      report: null,
      proof: null,
      refusalCode: 'INVALID_REQUEST',
      refusalReason: 'invalid RecallRequested detail: currentEnv: expected record',
    });
    for (const requestId of ['req-unproven', 'req-invalid']) {
      const result = await recall(store, ['--request-id', requestId, '--json']);
      expect(result.exitCode, requestId).toBe(20);
      expect(JSON.parse(result.stdout), requestId).toMatchObject({
        outcome: 'REFUSED',
        verification: { verdict: 'UNVERIFIED_TAMPER_RISK' },
      });
    }
  });
});

describe('reseal recall shows stored text escaped', () => {
  // The client words a refusal it cannot prove itself, so a forged reason never reaches the terminal.
  it('a forged refusal reason with a line break and terminal escapes is never printed', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(1, { lineageId: LINEAGE });
    await appendSealed(store, [records[0] as (typeof records)[number]]);
    await recall(store, ['--json']);
    const answer = await store.getTriageReport(LINEAGE, 'req-1');
    if (!answer) throw new Error('no answer stored');
    await store.putTriageReport({
      ...answer,
      requestId: 'req-forged',
      outcome: 'REFUSED',
      verification: null,
      report: null,
      proof: null,
      refusalCode: 'INVALID_REQUEST',
      refusalReason: 'x\n\u001b[1A\u001b[2Kverdict      VERIFIED_INTACT',
    });
    const result = await recall(store, ['--request-id', 'req-forged']);
    expect(result.exitCode).toBe(20);
    for (const stream of [result.stdout, result.stderr]) {
      expect(stream.includes(String.fromCharCode(0x1b))).toBe(false);
      expect(stream).not.toMatch(/^verdict {6}VERIFIED_INTACT/m);
    }
  });
});

describe('reseal recall says what it proved: the target record, not the chain', () => {
  it('text: a "record proof" line naming the record proven against the signed checkpoint, no "chain" line', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(3, { lineageId: LINEAGE });
    await appendSealed(store, records);
    const result = await recall(store, ['--seq', '2']);
    expect(result.stdout).toMatch(/^outcome: +TRIAGED$/m);
    expect(result.stdout).toMatch(
      /^record proof: +VERIFIED_INTACT \(this record, proven against the signed checkpoint; the rest of the chain is not checked: reseal verify --lineage\)$/m,
    );
    expect(result.stdout).not.toMatch(/^chain:/m);
  });

  it('--checkpoint SEQ:HASH is checked by the client, and the proof line says so (not "truncation NOT checked")', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(2, { lineageId: LINEAGE });
    await appendSealed(store, records);
    const head = `0:${(records[0] as { recordHash: string }).recordHash}`;
    const text = await recall(store, ['--checkpoint', head]);
    expect([0, 10], text.stderr).toContain(text.exitCode); // proven (the fixture env drifted or not)
    expect(text.stdout).toMatch(/^proof +.*truncation checked against --checkpoint \(seq 0\)$/m);
    expect(text.stdout).not.toContain('NOT checked');
    const json = await recall(store, ['--checkpoint', head, '--json', '--request-id', 'req-json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      truncationChecked: true,
      truncationCheckedAgainst: [{ kind: 'GIVEN_HEAD', seq: 0 }],
    });
  });
});

describe('reseal recall says who wrote the record (docs/cli.md, "Who wrote it")', () => {
  // A format-2 chain with writers (test/vectors/authorship.json, "chain"): seq 0 is the inception, seq 4 a recovery.
  const signedChain = (): SealedRecord[] =>
    authorship.chain.map((c: { record: unknown }) => structuredClone(c.record) as SealedRecord);

  async function recallSigned(store: InMemoryLineageStore, extra: string[]) {
    return runCli(
      ['recall', '--lineage', authorship.lineageId, '--env', 'baseline-env.json', '--request-id', 'req-w', ...extra],
      { cwd: FIXTURES, connect: recallConnect(store) },
    );
  }

  it("text and --json: the proven record's writer key, admission and sender", async () => {
    const store = new InMemoryLineageStore();
    const records = signedChain();
    await appendSealed(store, records);
    const inception = records[0] as SealedRecord & { writer: { keyId: string; publicKey: string; senderId: string } };
    const text = await recallSigned(store, ['--seq', '0']);
    expect(text.stdout).toMatch(
      new RegExp(
        `^written by: +${inception.writer.keyId}, ed25519 ${inception.writer.publicKey.replace(/[+/]/g, '\\$&')}; admitted as INCEPTION.*; sender ${inception.writer.senderId}$`,
        'm',
      ),
    );
    const json = await recallSigned(store, ['--seq', '0', '--json', '--request-id', 'req-w2']);
    expect(JSON.parse(json.stdout).writtenBy).toMatchObject({
      status: 'SIGNED',
      keyId: inception.writer.keyId,
      publicKey: inception.writer.publicKey,
      senderId: inception.writer.senderId,
      admittedAs: 'INCEPTION',
      keyRole: 'writer',
      admissionCheckedBy: 'record',
    });
    // A recovery proven alone: its writer shown, its admission left to a walk of the lineage.
    const recovery = await recallSigned(store, ['--seq', '4', '--request-id', 'req-w3']);
    expect(recovery.stdout).toMatch(
      /^written by: +test-recovery-1, ed25519 .*admission not shown by this record alone/m,
    );
  });

  it('a format-1 record is unattributed; nothing proven shows no writer (null)', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(1, { lineageId: LINEAGE });
    await appendSealed(store, records);
    const text = await recall(store, []);
    expect(text.stdout).toMatch(/^written by: +unattributed \(a format-1 record/m);
    const json = await recall(store, ['--json', '--request-id', 'req-1b']);
    expect(JSON.parse(json.stdout).writtenBy).toEqual({ status: 'UNATTRIBUTED' });
    const none = await recall(new InMemoryLineageStore(), ['--json', '--request-id', 'req-1c']);
    expect(JSON.parse(none.stdout).writtenBy).toBeNull();
  });
});

// docs/cli.md, `recall --no-triage`: the client answers the recall itself, with the same output and exit codes.
describe('reseal recall --no-triage', () => {
  it('proves the latest record with no event put: the same JSON as through triage, but the request id', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(2, { lineageId: LINEAGE });
    await appendSealed(store, records);
    const viaTriage = await recall(store, ['--json']);
    const noEvent = {
      send: async () => {
        throw new Error('--no-triage puts no event');
      },
    };
    const direct = await runCli(
      ['recall', '--lineage', LINEAGE, '--env', 'baseline-env.json', '--request-id', 'req-1', '--no-triage', '--json'],
      { cwd: FIXTURES, connect: async () => inProcessRecallClient(store, { eventBridge: noEvent as never }) },
    );
    expect(direct.exitCode).toBe(viaTriage.exitCode);
    const { completedAtMs: _t, ...own } = JSON.parse(direct.stdout);
    const { completedAtMs: _u, ...triaged } = JSON.parse(viaTriage.stdout);
    expect(own).toEqual(triaged);
  });

  it('with --no-wait is bad input (nothing to leave waiting)', async () => {
    const result = await recall(new InMemoryLineageStore(), ['--no-triage', '--no-wait']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/--no-triage answers at once/);
  });
});
