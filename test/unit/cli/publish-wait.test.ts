import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ResealClient } from '../../../client/reseal-client';
import { WriteOutcomeShape } from '../../../client/shapes/write-outcome-shape';
import type { ConflictRecord, RejectionRecord } from '../../../shared/ports/lineage-store';
import { lineageHeadOf } from '../../../shared/seal/lineage-head';
import { sealRecord } from '../../../shared/seal/seal-record';
import { requestDigest } from '../../../shared/write/request-digest';
import { type ResidualWriteRequest, ResidualWriteRequestSchema } from '../../../shared/write/write-request';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { signedConflict, signedRejection, staleEpochConflict, staleRejection } from '../../helpers/outcome-factories';
import { appendSealed, TEST_CLIENT_KEYS, TEST_LOG_NAME } from '../../helpers/pipeline-keys';
import { buildChain, sealInput, TEST_LINEAGE_ID, TEST_NOW_MS, testAnchor } from '../../helpers/seal-factories';
import { signWriteSync, TEST_WRITER, testLineageId } from '../../helpers/writer-factories';
import { runCli } from './run-cli';

const FIXTURES = join(import.meta.dirname, 'fixtures');
// The write in fixtures/request-safe.json: the first of its self-certifying lineage, signed by the
// test writer at TEST_NOW_MS - 10 s (the fake clock below).
const LINEAGE = testLineageId('agent-42');
const RESIDUAL = 'residual-0001';
const OUTPUTS = TEST_CLIENT_OUTPUTS;

/**
 * A client over an in-memory store whose queue "runs the pipeline": each SendMessage calls
 * `pipeline(store)` (seal, reject, record a conflict, or nothing). Sleeps advance a fake clock.
 */
function fakeConnect(store: InMemoryLineageStore, pipeline: (store: InMemoryLineageStore) => Promise<void>) {
  let now = TEST_NOW_MS;
  const sqs = {
    send: async () => {
      await pipeline(store);
      return { MessageId: 'msg-1' };
    },
  };
  const client = new ResealClient(OUTPUTS, {
    ...TEST_CLIENT_KEYS,
    store,
    anchor: testAnchor(),
    sqs: sqs as never,
    nowMs: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  });
  return async () => client;
}

const REQUEST = JSON.parse(readFileSync(join(FIXTURES, 'request-safe.json'), 'utf8')) as ResidualWriteRequest;
/** What signed refusals of this write name it by (the digest of the request as the guard parses it). */
const REQUEST_DIGEST = requestDigest(ResidualWriteRequestSchema.parse(REQUEST));

/**
 * Seals the fixture request as the sealer does (format 2, its writer and policy), or, with
 * `payload`, another write under the same id signed by the same writer.
 */
const seal = async (store: InMemoryLineageStore, payload: ResidualWriteRequest['payload'] = REQUEST.payload) => {
  const write =
    payload === REQUEST.payload
      ? REQUEST
      : signWriteSync({ ...REQUEST, payload }, TEST_WRITER, REQUEST.writer.signedAtMs);
  const { sessionId, generationEpoch, authority, manifest, variablesUsed, boundary, declaredImmutableConstants } =
    write;
  const content = { sessionId, generationEpoch, authority, manifest, variablesUsed, payload, boundary };
  const bound = {
    declaredImmutableConstants,
    writer: { ...write.writer, senderId: null },
    policy: write.policy ?? null,
  };
  const input = sealInput(0, { lineageId: LINEAGE, residualId: RESIDUAL, ...content, ...bound });
  const record = await sealRecord(input, null, testAnchor(), 1);
  await appendSealed(store, [record]);
  return record;
};

async function publishWait(pipeline: (store: InMemoryLineageStore) => Promise<void>, extra: string[] = []) {
  const store = new InMemoryLineageStore();
  const result = await runCli(['publish', '--request', 'request-safe.json', '--wait', ...extra], {
    cwd: FIXTURES,
    connect: fakeConnect(store, pipeline),
  });
  return { store, result };
}

/** A refusal of the published request, signed as the deciding function signs it. */
const rejection = (overrides: Partial<RejectionRecord> = {}) =>
  signedRejection(RESIDUAL, { lineageId: LINEAGE, requestDigest: REQUEST_DIGEST, ...overrides });
const conflict = (overrides: Partial<ConflictRecord> = {}) =>
  signedConflict(RESIDUAL, { lineageId: LINEAGE, requestDigest: REQUEST_DIGEST, ...overrides });

describe('reseal publish --wait', () => {
  it('SEALED: prints seq and the record hash to keep as --checkpoint SEQ:HASH, exit 0', async () => {
    let sealedHead = '';
    const { result } = await publishWait(async (store) => {
      const head = lineageHeadOf(await seal(store));
      sealedHead = `${head.seq}:${head.recordHash}`;
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^published: +residual-0001$/m);
    expect(result.stdout).toMatch(/^outcome: +SEALED$/m);
    expect(result.stdout).toMatch(/^seq: +0$/m);
    expect(result.stdout).toContain(`--checkpoint ${sealedHead}`);
  });

  it('SEALED --json: the reseal.write-outcome/1 shape (docs/cli.md), with the message id', async () => {
    const { store, result } = await publishWait(async (s) => void (await seal(s)), ['--json']);
    const head = await store.head(LINEAGE);
    expect(result.exitCode).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json).toEqual({
      format: 'reseal.write-outcome/1',
      messageId: 'msg-1',
      residualId: RESIDUAL,
      lineageId: LINEAGE,
      outcome: 'SEALED',
      seq: 0,
      recordHash: head?.recordHash,
      generationEpoch: head?.generationEpoch,
      checkpoint: {
        note: expect.stringContaining(`${TEST_LOG_NAME}/${LINEAGE}\n1\n`),
        origin: `${TEST_LOG_NAME}/${LINEAGE}`,
        size: 1,
        rootHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      proof: { leafIndex: 0, treeSize: 1, inclusionProof: [] },
      freshness: null,
    });
    expect(WriteOutcomeShape.parse(json)).toMatchObject({ outcome: 'SEALED' });
  });

  it('docs/guard.md refusal REJECTED by the guard: reason, each rejected variable and the re-probe hint, exit 10', async () => {
    const { result } = await publishWait(async (store) => store.recordRejection(await rejection()));
    expect(result.exitCode).toBe(10);
    expect(result.stdout).toMatch(/^outcome: +REJECTED by the guard \(signature verified\)$/m);
    expect(result.stdout).toMatch(/^reason: +STALE_STATE$/m);
    expect(result.stdout).toContain('variable "targetResourceId": UNVERIFIED_INHERITED: inherited from session-a');
    expect(result.stdout).toContain('re-probe the rejected variables');
  });

  it('REJECTED --json: the rejection in the reseal.write-outcome/1 shape', async () => {
    const { result } = await publishWait(async (store) => store.recordRejection(await rejection()), ['--json']);
    expect(result.exitCode).toBe(10);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({
      format: 'reseal.write-outcome/1',
      outcome: 'REJECTED',
      stage: 'GUARD',
      reason: 'STALE_STATE',
      residualId: RESIDUAL,
      rejectedVariables: [{ name: 'targetResourceId', reason: 'UNVERIFIED_INHERITED' }],
      requestViolations: [],
      rejectedAt: new Date(TEST_NOW_MS).toISOString(),
    });
    expect(WriteOutcomeShape.parse(json).outcome).toBe('REJECTED');
  });

  it('docs/pipeline.md fencing CONFLICT: reason and detail, exit 10; --json gives the conflict', async () => {
    const text = await publishWait(async (store) => store.recordConflict(await conflict()));
    expect(text.result.exitCode).toBe(10);
    expect(text.result.stdout).toMatch(/^outcome: +CONFLICT: not appended \(signed by the sealer\)$/m);
    expect(text.result.stdout).toMatch(/^reason: +STALE_EPOCH$/m);
    const json = await publishWait(async (store) => store.recordConflict(await conflict()), ['--json']);
    expect(WriteOutcomeShape.parse(JSON.parse(json.result.stdout))).toMatchObject({
      outcome: 'CONFLICT',
      reason: 'STALE_EPOCH',
      residualId: RESIDUAL,
      observedHead: null,
    });
  });

  it.each([
    ['LOST_RACE', 'publish the write again'],
    ['LINEAGE_INCONSISTENT', 'run reseal verify --lineage'],
  ])('CONFLICT %s: the hint says what to do', async (reason, hint) => {
    const { result } = await publishWait(async (store) =>
      store.recordConflict(await conflict({ reason: reason as ConflictRecord['reason'] })),
    );
    expect(result.exitCode).toBe(10);
    expect(result.stdout).toContain(hint);
  });

  it('timeout: no outcome within --timeout seconds is exit 1 naming the write; --json still prints the message id', async () => {
    const { result } = await publishWait(async () => {}, ['--timeout-seconds', '3']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(/^message id: +msg-1$/m);
    expect(result.stderr).toContain('no outcome for residual-0001 after 3 s');
    // A deleted outcome looks like a slow pipeline: the message says both, and where else it is.
    expect(result.stderr).toContain('may have been deleted from the table');
    expect(result.stderr).toContain('ResidualSealed');
    const json = await publishWait(async () => {}, ['--timeout-seconds', '3', '--json']);
    expect(json.result.exitCode).toBe(1);
    expect(JSON.parse(json.result.stdout)).toMatchObject({ messageId: 'msg-1', outcome: 'TIMEOUT', waitedSeconds: 3 });
    expect(WriteOutcomeShape.parse(JSON.parse(json.result.stdout)).outcome).toBe('TIMEOUT');
  });

  it('a marked record that does not verify is tamper risk, exit 20, with no checkpoint printed', async () => {
    const { result } = await publishWait(async (store) => {
      await seal(store);
      store.tamperRecord(LINEAGE, 0, (record) => {
        record.payload = { edited: true };
      });
    });
    expect(result.exitCode).toBe(20);
    expect(result.stderr).toContain('tamper risk');
    expect(result.stdout).not.toContain('--checkpoint');
  });

  it("reviewer P1: a record sealed under the id with other content is not this write's seal: its RESIDUAL_ID_REUSED rejection is, exit 10", async () => {
    let polls = 0;
    const store = new InMemoryLineageStore();
    await seal(store, { other: 'content' });
    const connect = fakeConnect(store, async () => {});
    const client = await connect();
    const realList = store.listRejections.bind(store);
    store.listRejections = async (...args: Parameters<typeof realList>) => {
      if (++polls === 3)
        await store.recordRejection(
          await rejection({ stage: 'SEALER', reason: 'RESIDUAL_ID_REUSED', rejectedVariables: [] }),
        );
      return realList(...args);
    };
    const result = await runCli(['publish', '--request', 'request-safe.json', '--wait'], {
      cwd: FIXTURES,
      connect: async () => client,
    });
    expect(result.exitCode).toBe(10);
    expect(result.stdout).toMatch(/^reason: +RESIDUAL_ID_REUSED$/m);
    expect(result.stdout).not.toMatch(/SEALED/);
  });

  it("reviewer P1: a refusal recorded before the publish (less the 5 s skew) is an earlier attempt's: the seal is returned, exit 0", async () => {
    const { result } = await publishWait(async (store) => {
      await store.recordRejection(await rejection({ atMs: TEST_NOW_MS - 3_600_000 }));
      await store.recordConflict(await conflict({ reason: 'LINEAGE_INCONSISTENT', atMs: TEST_NOW_MS - 3_600_000 }));
      await seal(store);
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^outcome: +SEALED$/m);
  });

  it('without --wait: prints the message id and returns, exit 0, as before', async () => {
    const store = new InMemoryLineageStore();
    const result = await runCli(['publish', '--request', 'request-safe.json', '--json'], {
      cwd: FIXTURES,
      connect: fakeConnect(store, async () => {}),
    });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ messageId: 'msg-1', residualId: RESIDUAL, lineageId: LINEAGE });
  });
});

describe('reseal inspect --lineage: rejections and conflicts after the timeline', () => {
  async function inspect(json: boolean) {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(2);
    await appendSealed(store, records);
    await store.recordRejection(staleRejection('r-stale'));
    await store.recordRejection(
      staleRejection('r-schema', {
        reason: 'SCHEMA_VIOLATION',
        rejectedVariables: [],
        issues: [{ path: 'priority', message: 'unknown field' }],
        atMs: TEST_NOW_MS + 1,
      }),
    );
    await store.recordConflict(staleEpochConflict('r-fenced'));
    await store.recordRejection(staleRejection('r-elsewhere', { lineageId: 'another-lineage' }));
    return runCli(['inspect', '--lineage', TEST_LINEAGE_ID, ...(json ? ['--json'] : [])], {
      cwd: FIXTURES,
      connect: fakeConnect(store, async () => {}),
    });
  }

  it('text: the timeline, the signed sections, then the unsigned items only in the untrusted section, oldest first; exit by the chain', async () => {
    const result = await inspect(false);
    expect(result.exitCode).toBe(0);
    const timeline = result.stdout.indexOf('residual-1');
    const rejections = result.stdout.indexOf('\nrejections (0): none signed\n');
    const conflicts = result.stdout.indexOf('\nconflicts (0): none signed\n');
    const untrusted = result.stdout.indexOf('\nuntrusted (3): data from storage that a table writer may have written');
    expect(timeline).toBeGreaterThan(0);
    expect(rejections).toBeGreaterThan(timeline);
    expect(conflicts).toBeGreaterThan(rejections);
    expect(untrusted).toBeGreaterThan(conflicts);
    const section = result.stdout.slice(untrusted);
    expect(section).toMatch(
      // The fixtures are unsigned (as a table writer could plant them): shown only as untrusted.
      /rejection \S+ {2}GUARD {2}STALE_STATE {2}residual r-stale {2}message m-r-stale {2}\(NOT signed by the deciding function: do not trust\)\n {4}variable "targetResourceId"/,
    );
    expect(result.stdout.slice(0, untrusted)).not.toContain('r-stale');
    expect(section.indexOf('r-stale')).toBeLessThan(section.indexOf('r-schema'));
    expect(section).toContain('    at priority: unknown field');
    expect(section).toContain('STALE_EPOCH  residual r-fenced: write epoch 2 is older than the head epoch 3');
    expect(result.stdout).not.toContain('(signature verified)');
    expect(result.stdout).not.toContain('r-elsewhere');
  });

  it('review: inspect marks which refusals are signed by the deciding function (a copy or an unsigned item is not)', async () => {
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(1);
    await appendSealed(store, records);
    const genuine = await signedRejection('r-genuine');
    await store.recordRejection(genuine);
    // A genuine statement copied onto another residual id: the fields no longer match it.
    await store.recordRejection({ ...genuine, residualId: 'r-copied', messageId: 'm-copy' });
    const result = await runCli(['inspect', '--lineage', TEST_LINEAGE_ID, '--json'], {
      cwd: FIXTURES,
      connect: fakeConnect(store, async () => {}),
    });
    const out = JSON.parse(result.stdout);
    const status = Object.fromEntries(
      [...out.rejections, ...out.untrusted.rejections].map((r: { residualId: string; signatureVerified: boolean }) => [
        r.residualId,
        r.signatureVerified,
      ]),
    );
    expect(status).toEqual({ 'r-genuine': true, 'r-copied': false });
    expect(out.rejections.map((r: { residualId: string }) => r.residualId)).toEqual(['r-genuine']);
  });

  it('--json: unsigned rejections and conflicts only under untrusted, next to the records (reseal.timeline/1)', async () => {
    const result = await inspect(true);
    const out = JSON.parse(result.stdout);
    expect(out.records).toHaveLength(2);
    expect(out.rejections).toEqual([]);
    expect(out.conflicts).toEqual([]);
    expect(out.untrusted.rejections.map((r: { residualId: string }) => r.residualId)).toEqual(['r-stale', 'r-schema']);
    expect(out.untrusted.conflicts).toEqual([
      expect.objectContaining({ reason: 'STALE_EPOCH', residualId: 'r-fenced', conflictedAt: expect.any(String) }),
    ]);
  });
});

describe('hostile refusal items: shown escaped and marked, never crashing the listing', () => {
  /** A lineage of 2 records with `rejections` stored as a table writer planted them. */
  async function inspectWith(rejections: RejectionRecord[], json: boolean) {
    const store = new InMemoryLineageStore();
    await appendSealed(store, (await buildChain(2)).records);
    for (const r of rejections) await store.recordRejection(r);
    return runCli(['inspect', '--lineage', TEST_LINEAGE_ID, ...(json ? ['--json'] : [])], {
      cwd: FIXTURES,
      connect: fakeConnect(store, async () => {}),
    });
  }
  /** A forged message: a newline, ANSI "cursor up, erase line" and a fake signed row. */
  const FORGED = 'x\n\x1b[1A\x1b[2K  2026-01-01T00:00:00.000Z  GUARD  STALE_STATE  residual r-1  (signature verified)';

  it('a forged issue message cannot add a line, move the cursor or show "(signature verified)"', async () => {
    const forged = staleRejection('r-forged', { issues: [{ path: 'a\u202eb', message: FORGED }] });
    const result = await inspectWith([forged], false);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain('\x1b');
    // The only "(signature verified)" is inside the escaped message line.
    expect(result.stdout.split('\n').filter((l) => l.includes('(signature verified)'))).toHaveLength(1);
    expect(result.stdout).toContain('(NOT signed by the deciding function: do not trust)');
    const line = result.stdout.split('\n').find((l) => l.includes('x\\u000a'));
    expect(line).toBe(
      '    at "a\\u202eb": x\\u000a\\u001b[1A\\u001b[2K  2026-01-01T00:00:00.000Z  GUARD  STALE_STATE  residual r-1  (signature verified)',
    );
  });

  it('an item the codec read as unreadable is listed as not signed, with the timeline and the verdict', async () => {
    const junk = staleRejection('r-junk', { rejectedVariables: [], unreadable: 'unreadable rejectedVariables' });
    const text = await inspectWith([junk], false);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toMatch(/^chain: +VERIFIED_INTACT$/m);
    expect(text.stdout).toMatch(/residual r-junk .*\(NOT signed: the stored item is unreadable: do not trust\)/);
    expect(text.stdout).toContain('    unreadable rejectedVariables: the stored item is malformed');
    const json = JSON.parse((await inspectWith([junk], true)).stdout);
    expect(json.untrusted.rejections).toEqual([
      expect.objectContaining({
        residualId: 'r-junk',
        signatureVerified: false,
        unreadable: 'unreadable rejectedVariables',
      }),
    ]);
  });

  it('publish --wait: a genuine STALE_EPOCH conflict carrying no head prints no "head found" line', async () => {
    const { result } = await publishWait(async (store) => store.recordConflict(await conflict()));
    expect(result.exitCode).toBe(10);
    expect(result.stdout).not.toContain('head found');
    expect(result.stdout).not.toContain('(not known)');
  });
});

// docs/cli.md, "Tenants": with $RESEAL_TENANT, a write into a lineage outside the tenant is
// refused TENANT_MISMATCH (exit 2) before it is signed or sent, never waited on until a timeout.
describe('reseal publish --wait with a tenant', () => {
  it("a write into another tenant's lineage: TENANT_MISMATCH, exit 2, nothing sent", async () => {
    let sent = 0;
    const client = new ResealClient(OUTPUTS, {
      ...TEST_CLIENT_KEYS,
      store: new InMemoryLineageStore(),
      anchor: testAnchor(),
      sqs: { send: async () => ({ MessageId: `msg-${++sent}` }) } as never,
      nowMs: () => TEST_NOW_MS,
      tenantId: 'beta',
    });
    const result = await runCli(['publish', '--request', 'request-safe.json', '--wait'], {
      cwd: FIXTURES,
      connect: async () => client,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`error: TENANT_MISMATCH: lineage ${LINEAGE} is not of tenant beta`);
    expect(sent).toBe(0);
  });
});
