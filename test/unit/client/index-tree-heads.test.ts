import { describe, expect, it } from 'vitest';
import { recallProofLine } from '../../../cli/format/recall';
import { InvalidInputError } from '../../../shared/errors';
import type { RecallTarget } from '../../../shared/pipeline/recall-target';
import { inProcessTriageBus } from '../../helpers/factories';
import { integratedStack } from '../../helpers/integrated-stack';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-index-heads');
const ENV = { ARCH: 'arm64', HOSTNAME: 'runner-17', REGION: 'eu-west-1', TOOL_VERSION: '1.2.3' };

/**
 * The real sealer run as it runs once it stops signing lineage checkpoints (heads carry its
 * head-state MAC alone), the real integrator, triage in process, and a client reading the
 * deployment log (docs/deployment-log.md, "Clients"; docs/verifiable-log.md, "Recall").
 */
async function unsignedStack(writes = 3, options: { readonly freshness?: boolean } = {}) {
  const s = integratedStack({ signLineageCheckpoints: false });
  for (let i = 0; i < writes; i++) await s.send({ lineageId: LINEAGE, residualId: `r-${i}` });
  const eventBridge = inProcessTriageBus(s.store, () => s.clock.now);
  const client = s.client({
    deps: {
      eventBridge,
      ...(options.freshness === false ? { deploymentLog: undefined, indexNodes: undefined } : {}),
    },
  });
  const recall = (target: RecallTarget, requestId?: string) =>
    client.recall({ lineageId: LINEAGE, target, currentEnv: ENV, ...(requestId ? { requestId } : {}) });
  return { ...s, client, clientWith: s.client, recall };
}

describe('recall of a lineage whose heads carry no signed checkpoint: the tree head comes from the index', () => {
  it('heads carry no signed checkpoint when the sealer stops signing (the setting under test)', async () => {
    const s = await unsignedStack(2);
    const head = await s.store.logHead(LINEAGE);
    expect(head?.checkpoint).toBeNull();
    // Vouched for by the sealer's head MAC: under its notice data key, else with the MAC key.
    expect(head?.headKeyMac ?? head?.headMac).toBeTruthy();
  });

  it('a record the index holds is TRIAGED, VERIFIED_INTACT and PROVEN, proven in the tree the index vouches for', async () => {
    const s = await unsignedStack(3);
    await s.integrate();
    for (const target of [{ latest: true } as const, { seq: 1 }, { residualId: 'r-0' }]) {
      const recall = await s.recall(target);
      expect(recall.end, recall.reason).toBe('TRIAGED');
      expect(recall.verdict).toBe('VERIFIED_INTACT');
      expect(recall.freshness?.state).toBe('PROVEN');
      expect(recall.checkpoint).toMatchObject({ size: 3, note: null });
      expect(recall.report.proof?.treeHead?.treeSize).toBe(3);
    }
  });

  it('a record past the integrated size is sealed, awaiting integration: no verdict, no record, exit-3 end, never tampering', async () => {
    const s = await unsignedStack(3);
    await s.integrate();
    await s.send({ lineageId: LINEAGE, residualId: 'r-3' });
    const latest = await s.recall({ latest: true });
    expect(latest.end, latest.reason).toBe('AWAITING_INTEGRATION');
    expect(latest.verdict).toBeNull();
    expect(latest.record).toBeNull();
    expect(latest.delta).toBeNull();
    expect(latest.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
    expect(latest.reason).toMatch(/sealed, awaiting integration/);
    // A record below the integrated size is proven in the answer's tree, a consistent extension of the indexed one.
    const older = await s.recall({ seq: 1 });
    expect(older.end, older.reason).toBe('TRIAGED');
    expect(older.freshness?.state).toBe('PROVEN');
    // Once integrated, the same record is proven memory.
    await s.integrate();
    const after = await s.recall({ latest: true });
    expect(after.end, after.reason).toBe('TRIAGED');
    expect(after.freshness?.state).toBe('PROVEN');
  });

  it('a lineage not integrated at all is awaiting integration, and so is every record for a client that reads no deployment log', async () => {
    const s = await unsignedStack(2);
    const recall = await s.recall({ seq: 0 });
    expect(recall.end, recall.reason).toBe('AWAITING_INTEGRATION');
    expect(recall.verdict).toBeNull();
    const blind = await unsignedStack(2, { freshness: false });
    await blind.integrate();
    const unread = await blind.recall({ latest: true });
    expect(unread.end, unread.reason).toBe('AWAITING_INTEGRATION');
    expect(unread.freshness).toBeNull();
  });

  it('a record past the indexed head is the sealer’s word (a table writer could have put it there): never VERIFIED_INTACT', async () => {
    const s = await unsignedStack(3);
    await s.integrate();
    // Past the index, the tree is vouched for by the sealer's head-state MAC alone, which a client
    // cannot check: whatever the table shows there is at most "awaiting integration".
    await s.send({ lineageId: LINEAGE, residualId: 'r-3' });
    const recall = await s.recall({ seq: 3 });
    expect(recall.verdict).not.toBe('VERIFIED_INTACT');
    expect(recall.end).toBe('AWAITING_INTEGRATION');
  });

  it('an answer whose tree head was edited to another root does not prove the record', async () => {
    const s = await unsignedStack(3);
    await s.integrate();
    const honest = await s.recall({ seq: 1 }, 'req-honest');
    const proof = honest.report.proof;
    if (!proof?.treeHead) throw new Error('no tree head');
    await s.store.putTriageReport({
      ...honest.report,
      requestId: 'req-edited',
      proof: { ...proof, treeHead: { ...proof.treeHead, rootHash: 'ab'.repeat(32) } },
    });
    const edited = await s.recall({ seq: 1 }, 'req-edited');
    expect(edited.end).toBe('NOT_INTACT');
    expect(edited.verdict).toBe('HASH_MISMATCH');
  });

  it('an older genuine answer replayed as the latest after an integration is refused, not served', async () => {
    const s = await unsignedStack(2);
    await s.integrate();
    const old = await s.recall({ latest: true }, 'req-old');
    expect(old.end, old.reason).toBe('TRIAGED');
    await s.send({ lineageId: LINEAGE, residualId: 'r-2' });
    await s.integrate();
    await s.store.putTriageReport({ ...old.report, requestId: 'req-replayed' });
    const replayed = await s.recall({ latest: true }, 'req-replayed');
    expect(replayed.end).toBe('NOT_INTACT');
    expect(replayed.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    // What vouches for the newest tree, in words (docs/verifiable-log.md, "Recall", step 6): the
    // index entry, never a "signed checkpoint" the head does not carry.
    expect(replayed.reason).toMatch(
      /older than the newest tree the client read before asking: .* the lineage's tree of 3 records, its index entry under deployment checkpoint \d+ \(a replayed answer\)/,
    );
    expect(replayed.reason).not.toMatch(/signed checkpoint/);
    // Past the index: the sealer's head MAC alone vouches for the newest tree.
    await s.send({ lineageId: LINEAGE, residualId: 'r-3' });
    await s.store.putTriageReport({ ...old.report, requestId: 'req-replayed-past' });
    const past = await s.recall({ latest: true }, 'req-replayed-past');
    expect(past.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    expect(past.reason).toMatch(
      /the client read the head item's tree of 4 records, which only the sealer's head MAC vouches for \(awaiting integration; not signed\)/,
    );
  });

  it("the proof line says what vouches for a MAC'd head's tree: its index entry under deployment checkpoint N", async () => {
    const s = await unsignedStack(3);
    await s.integrate();
    const recall = await s.recall({ seq: 1 });
    expect(recallProofLine(recall)).toMatch(
      /^proven in the head item's tree of 3 records \(the sealer's head MAC, not signed; its index entry under deployment checkpoint \d+\); newest tree head read from the head item: 3 records/,
    );
  });
});

describe('the lineage tree head, read by the client (ResealClient.lineageTreeHead)', () => {
  it('is the index entry for a MAC-only head; the head item past it is the sealer’s word alone', async () => {
    const s = await unsignedStack(3);
    expect(await s.client.lineageTreeHead(LINEAGE)).toMatchObject({ kind: 'UNVOUCHED' });
    await s.integrate();
    await s.send({ lineageId: LINEAGE, residualId: 'r-3' });
    const head = await s.client.lineageTreeHead(LINEAGE);
    expect(head).toMatchObject({
      kind: 'VOUCHED',
      head: { vouchedBy: 'INDEX', size: 3, integratedSize: 3, note: null },
    });
    expect((await s.client.latestCheckpoint(LINEAGE))?.checkpoint).toMatchObject({ size: 4, note: null });
  });

  it('a signing sealer’s head past the index is vouched by its signed checkpoint, integrated up to the index', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.integrate();
    await s.send({ lineageId: LINEAGE, residualId: 'r-1' });
    const head = await s.client().lineageTreeHead(LINEAGE);
    expect(head).toMatchObject({
      kind: 'VOUCHED',
      head: { vouchedBy: 'SIGNED_CHECKPOINT', size: 2, integratedSize: 1 },
    });
  });
});

describe('receipts: format 1 is no longer produced', () => {
  it('ResealClient.receipt refuses, naming format 2; format 2 is built from the index', async () => {
    const s = await unsignedStack(2);
    await s.integrate();
    const error = await s.client.receipt(LINEAGE, 0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(String((error as Error).message)).toMatch(/format 2/);
    const receipt = await s.client.chainReceipt(LINEAGE, 0);
    expect(receipt.formatVersion).toBe(2);
  });
});

describe('write outcomes of a sealer that no longer signs lineage checkpoints', () => {
  it('a seal is the sealer’s word awaiting integration until PROVEN; untilProven waits for the integration', async () => {
    const s = await unsignedStack(0);
    const request = s.request({ lineageId: LINEAGE, residualId: 'r-w' });
    await s.send(request);
    const sealed = await s.client.waitForOutcome(LINEAGE, 'r-w', { request, timeoutMs: 1000 });
    expect(sealed).toMatchObject({ kind: 'SEALED', checkpoint: null, treeHead: { size: 1 } });
    if (sealed.kind === 'SEALED') expect(sealed.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
    let integrated = false;
    const proven = await s
      .clientWith({
        onSleep: async () => {
          if (!integrated) await s.integrate();
          integrated = true;
        },
      })
      .waitForOutcome(LINEAGE, 'r-w', { request, timeoutMs: 10_000, untilProven: true });
    expect(proven.kind).toBe('SEALED');
    if (proven.kind === 'SEALED') expect(proven.freshness?.state).toBe('PROVEN');
  });
});
