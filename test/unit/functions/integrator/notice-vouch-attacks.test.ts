import { randomBytes } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it, vi } from 'vitest';
import { createIntegratorHandler } from '../../../../functions/integrator/create-handler';
import { withNoticeAuth } from '../../../../shared/integrator/notice-mac';
import { readHeldLineages } from '../../../../shared/integrator/read-held-lineages';
import type { SealedRunNotice } from '../../../../shared/integrator/sealed-run-notice';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../helpers/factories';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import { inProcessIntegration } from '../../../helpers/in-process-integration';
import { MemoryNoticeKey } from '../../../helpers/memory-notice-key';
import { testAnchor } from '../../../helpers/seal-factories';
import { shrinkHead } from '../../../helpers/small-head';
import { testLineageId } from '../../../helpers/writer-factories';

const [A, B] = [FACTORY_LINEAGE_ID, testLineageId('lin-b')];

/** The real sealer (heads MAC'd, no signed checkpoint) and integrator, in process, over one table. */
function stack() {
  const table = inProcessIntegration({ sealer: { signLineageCheckpoints: false } });
  const integrator = table.integrator();
  const integrate = (notices = table.notices.splice(0)) => integrator.integrate(notices);
  const held = async (lineageId: string) => {
    if (table.deployment.head === null) return null; // nothing integrated yet
    const root = Buffer.from(table.deployment.head?.indexRoot ?? '', 'hex');
    return (await readHeldLineages(table.index, root, [lineageId])).get(lineageId) ?? null;
  };
  return { ...table, integrate, held };
}

const kinds = (report: { evidence: readonly { kind: string; lineageId: string }[] }) =>
  report.evidence.map((e) => `${e.kind} ${e.lineageId}`);

describe('a table writer against the heads notices vouch for (docs/deployment-log.md, "Integration", step 2)', () => {
  it("another lineage's small head put in a lineage's head item, both named by notices of the batch: only its own lineage's notices vouch (the service and noticeVouchedHeads both filter), so the MAC refuses it", async () => {
    const s = stack();
    for (const residualId of ['r-0', 'r-1']) {
      await s.write(A, residualId);
      await s.write(B, residualId);
    }
    await shrinkHead(s.store, A, s.sealerDeps.anchor);
    const smallB = await shrinkHead(s.store, B, s.sealerDeps.anchor);
    // A small head carries no header naming its lineage: the item alone cannot tell B's state from A's.
    s.store.restoreHead(A, { ...smallB, head: { ...smallB.head, lineageId: A } });
    const report = await s.integrate();
    expect(kinds(report)).toEqual([`HEAD_UNAUTHENTICATED ${A}`]);
    expect(report.integrated).toEqual([B]);
    expect(await s.held(A)).toBeNull();
  });

  it("a small head stating a notice's size, root and head record with another generation epoch: no notice names it, the MAC refuses it", async () => {
    const s = stack();
    for (const residualId of ['r-0', 'r-1']) await s.write(A, residualId);
    await shrinkHead(s.store, A, s.sealerDeps.anchor);
    const head = s.store.heads.get(A);
    if (!head) throw new Error('no head');
    expect(s.notices.at(-1)?.head.generationEpoch).toBe(head.generationEpoch);
    s.store.setHead({ ...head, generationEpoch: head.generationEpoch + 7 });
    const report = await s.integrate();
    expect(kinds(report)).toEqual([`HEAD_UNAUTHENTICATED ${A}`]);
    expect(await s.held(A)).toBeNull();
  });

  it('an old notice redelivered after the index moved past it, with the head put back to the state it names: LINEAGE_ROLLBACK, the index keeps the newer head', async () => {
    const s = stack();
    await s.write(A, 'r-0');
    const older = s.store.headSnapshot(A);
    const first = s.notices.at(-1);
    await s.write(A, 'r-1');
    await s.integrate();
    expect((await s.held(A))?.treeSize).toBe(2);
    if (older === null || first === undefined) throw new Error('no first head');
    s.store.restoreHead(A, older);
    const report = await s.integrate([first]);
    expect(kinds(report)).toEqual([`LINEAGE_ROLLBACK ${A}`]);
    expect((await s.held(A))?.treeSize).toBe(2);
  });

  it('the older of two runs noticed twice and the newer once, the head put back to the older: NOTICE_MISMATCH, nothing integrated', async () => {
    const s = stack();
    await s.write(A, 'r-0');
    const older = s.store.headSnapshot(A);
    await s.write(A, 'r-1');
    const [first, second] = s.notices.splice(0);
    if (older === null || first === undefined || second === undefined) throw new Error('no notices');
    s.store.restoreHead(A, older);
    const report = await s.integrate([first, second, first]);
    expect(kinds(report)).toEqual([`NOTICE_MISMATCH ${A}`]);
    expect(await s.held(A)).toBeNull();
  });
});

/**
 * A table writer (or anyone who can invoke the integrator or edit its queue's policy) with no KMS
 * right: his head items carry a head-state MAC under a secret of his own (the in-process sealer
 * writes them with it, as he could by hand), and the event he hands the integrator's handler names
 * them in a notice. The integrator verifies heads under the genuine MAC key and opens data keys of
 * the genuine notice key only.
 */
function forgedTable() {
  const genuineKey = new MemoryNoticeKey();
  const table = inProcessIntegration({
    sealer: { signLineageCheckpoints: false, anchor: testAnchor({ key: new Uint8Array(32).fill(9) }), noticeKey: null },
  });
  const anchor = testAnchor();
  const verifyMac = vi.spyOn(anchor, 'verifyMac');
  const integrator = table.integrator({ anchor, noticeKey: genuineKey });
  const logger = new Logger({ serviceName: 'reseal-integrator-test', logLevel: 'SILENT' });
  const metrics = new Metrics({ namespace: 'Reseal', serviceName: 'reseal-integrator-test' });
  vi.spyOn(metrics, 'publishStoredMetrics').mockReturnValue(metrics);
  const handler = createIntegratorHandler(integrator, logger, metrics);
  const invoke = (notices: readonly SealedRunNotice[]) =>
    handler(
      sqsEvent(notices.map((n, i) => sqsRecord(JSON.stringify(n), undefined, { messageId: `forged-${i}` }))),
      lambdaContext('reseal-integrator'),
    );
  const held = async (lineageId: string) => {
    if (table.deployment.head === null) return null;
    const root = Buffer.from(table.deployment.head.indexRoot, 'hex');
    return (await readHeldLineages(table.index, root, [lineageId])).get(lineageId) ?? null;
  };
  const headChecks = () => verifyMac.mock.calls.filter(([message]) => message.byteLength === 32).length;
  return { ...table, genuineKey, invoke, held, headChecks };
}

describe('a forged event handed to the integrator: only a notice MAC under the notice key vouches (docs/deployment-log.md, "Integration", step 2)', () => {
  const forgeries: [string, (notice: SealedRunNotice, key: MemoryNoticeKey) => Promise<SealedRunNotice>][] = [
    ['without auth', async (notice) => notice],
    [
      'with the auth of a genuine notice copied onto it',
      async (notice, key) => {
        const { plaintext, blob } = await key.dataKey();
        const genuine = withNoticeAuth({ ...notice, sealedAtMs: notice.sealedAtMs + 1 }, plaintext, blob);
        return { ...notice, auth: genuine.auth };
      },
    ],
    [
      'MAC under a data key of his own, its blob made up',
      async (notice) => withNoticeAuth(notice, new Uint8Array(randomBytes(32)), randomBytes(180).toString('base64')),
    ],
  ];

  for (const [name, forge] of forgeries) {
    it(`a notice ${name} naming the forged head: HEAD_UNAUTHENTICATED, nothing indexed, the batch not failed`, async () => {
      const s = forgedTable();
      await s.write(A, 'r-0');
      await s.write(A, 'r-1');
      const notices = await Promise.all(s.notices.splice(0).map((n) => forge(n, s.genuineKey)));
      expect(await s.invoke(notices)).toEqual({ batchItemFailures: [] });
      expect(s.deployment.evidence.map((e) => `${e.evidence.kind} ${e.evidence.lineageId}`)).toEqual([
        `HEAD_UNAUTHENTICATED ${A}`,
      ]);
      expect(s.headChecks()).toBe(1);
      expect(await s.held(A)).toBeNull();
    });
  }
});
