import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { LineageKeys } from '../../adapters/lineage-keys';
import type { RecallTarget } from '../../shared/pipeline/recall-target';
import { cliRecall } from '../helpers/cli-recall';
import { acceptedWrite, coldSealer, sealGroup } from '../helpers/emulator-lineages';
import { expectGuarantees, type Guarantee } from '../helpers/guarantees';
import { SealedRunNotices } from '../helpers/sealed-run-notices';
import { stackIntegrator } from '../helpers/stack-integrator';
import { clientOf, type ReadTarget, runPythonReader } from '../helpers/tamper-readers';
import { partitionsOf } from '../helpers/tamper-table';
import { testLineageId } from '../helpers/writer-factories';
import { runCli } from '../unit/cli/run-cli';
import { emulatorSetup, MANIFEST } from './tamper/fixture';

// Clients that take freshness from the deployment log (docs/deployment-log.md, "Clients"), on the
// deployed stack with NO kept checkpoint: the sealer and the integrator run in process on the
// stack's table and keys (the integrator driven directly, as docs allow), the readers are the real
// CLI and client over the same table, and the Python client's recall through the deployed triage
// function, with the stack's default policy (the log alone, UNWITNESSED).
const setup = emulatorSetup();
const notices = new SealedRunNotices();
const sealer = coldSealer(setup, { notifier: notices });

/** Integrates the collected notices; a head moved by another integrator (a lost condition) is retried, a bounded number of times. */
async function integrate(): Promise<void> {
  const report = await notices.integrateRetrying(() => stackIntegrator(setup));
  expect(report.evidence).toEqual([]);
}

async function seal(lineageId: string, residualIds: readonly string[]): Promise<void> {
  const nowMs = Date.now();
  const writes = residualIds.map((r) => acceptedWrite(lineageId, r, MANIFEST, nowMs));
  expect(await sealGroup(sealer, writes, nowMs)).toEqual(writes.map(() => 'SEALED'));
}

function targetOf(lineageId: string, recall: RecallTarget): ReadTarget {
  return {
    lineageId,
    trusted: { note: '', seq: 0, recordHash: '' },
    recall,
    receiptSeq: 0,
    write: acceptedWrite(lineageId, 'r-0', MANIFEST, Date.now()),
  };
}

/** `reseal recall --json` with no checkpoint store: `exit <code> <verdict or refusal code> <freshness state>`. */
async function recallCli(lineageId: string, recall: RecallTarget): Promise<string> {
  const { line, freshness } = await cliRecall(setup, targetOf(lineageId, recall));
  expect(freshness?.witnessing).toBe('UNWITNESSED');
  return line;
}

/** `reseal verify|inspect --lineage --json` with no checkpoint store: `exit <code> <verdict> <freshness state>`. */
async function walkCli(command: 'verify' | 'inspect', lineageId: string): Promise<string> {
  const run = await runCli([command, '--lineage', lineageId, '--json'], {
    cwd: mkdtempSync(join(tmpdir(), 'reseal-fresh-walk-')),
    env: { AWS_ENDPOINT_URL: setup.endpoint, AWS_REGION: setup.region },
    connect: async () => clientOf(setup, targetOf(lineageId, { latest: true }), null),
  });
  const json = JSON.parse(run.stdout) as { verdict: string; freshness: { state: string } | null };
  return `exit ${run.exitCode} ${json.verdict} ${json.freshness?.state ?? 'no freshness'}`;
}

/** `ResealClient.recall` with no checkpoint store: `<verdict or refusal> <freshness state>`. */
async function clientRecall(lineageId: string, recall: RecallTarget): Promise<string> {
  const client = clientOf(setup, targetOf(lineageId, recall), null);
  const got = await client.recall({ lineageId, target: recall, currentEnv: setup.currentEnv }, { timeoutMs: 5000 });
  return `${got.verdict ?? `refused ${got.refusal?.code}`} ${got.freshness?.state ?? 'no freshness'}`;
}

/**
 * The Python client's recall (docs/python.md, "Freshness from the deployment log") in a subprocess,
 * through EventBridge and the deployed triage function, with no kept checkpoint:
 * `<end> <verdict or -> <freshness state>`.
 */
async function pythonRecall(lineageId: string, recall: RecallTarget): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'reseal-fresh-py-'));
  return runPythonReader(setup, dir, [lineageId, 'recall', JSON.stringify(recall), JSON.stringify(setup.currentEnv)]);
}

/** One row per reader, all without a kept checkpoint. */
async function rowsOf(
  context: TestContext,
  row: Omit<Guarantee, 'reader' | 'expected' | 'checkpoint'>,
  lineageId: string,
  recall: RecallTarget,
  expected: { readonly cli: string; readonly client: string; readonly python: string },
): Promise<void> {
  expectGuarantees(context, [
    {
      guarantee: { ...row, reader: 'recall', checkpoint: false, expected: expected.cli },
      observed: await recallCli(lineageId, recall),
    },
    {
      guarantee: { ...row, reader: 'client.recall', checkpoint: false, expected: expected.client },
      observed: await clientRecall(lineageId, recall),
    },
    {
      guarantee: { ...row, reader: 'python: recall', checkpoint: false, expected: expected.python },
      observed: await pythonRecall(lineageId, recall),
    },
  ]);
}

describe('freshness from the deployment log, cold readers (docs/deployment-log.md, "Clients")', () => {
  let rolled: string;
  let marked: string;

  beforeAll(async () => {
    rolled = testLineageId(`fresh-rollback-${randomUUID()}`);
    marked = testLineageId(`fresh-marker-${randomUUID()}`);
    await seal(rolled, ['r-0', 'r-1', 'r-2', 'r-3']);
    await seal(marked, ['r-0', 'r-1']);
    await integrate();
  });

  it('an integrated record is PROVEN; one sealed after the last integration is SEALED_AWAITING_INTEGRATION', async () => {
    expect(await clientRecall(marked, { latest: true })).toBe('VERIFIED_INTACT PROVEN');
    const awaiting = testLineageId(`fresh-awaiting-${randomUUID()}`);
    await seal(awaiting, ['r-0']);
    if (process.env.RESEAL_TEST_SIGN_LINEAGE_CHECKPOINTS === 'true') {
      // A head signed as before step 3 (docs/deployment-log.md, "What changes for the sealer").
      expect(await clientRecall(awaiting, { latest: true })).toBe('VERIFIED_INTACT SEALED_AWAITING_INTEGRATION');
      expect(await recallCli(awaiting, { latest: true })).toBe('exit 0 VERIFIED_INTACT SEALED_AWAITING_INTEGRATION');
    } else {
      // A head the sealer MAC'd, past the index: the sealer's word, no verdict, exit 3, not
      // tampering (docs/verifiable-log.md, "Recall", step 6).
      expect(await clientRecall(awaiting, { latest: true })).toBe('refused undefined SEALED_AWAITING_INTEGRATION');
      expect(await recallCli(awaiting, { latest: true })).toBe('exit 3 null SEALED_AWAITING_INTEGRATION');
    }
    notices.take();
  });

  it('an older signed answer replayed as latest (the lineage rolled back after the index took a larger head) is refused: not the newest', async (context) => {
    const at4 = await setup.table.snapshot(partitionsOf(rolled));
    await seal(rolled, ['r-4', 'r-5']);
    await integrate();
    expect(await clientRecall(rolled, { latest: true })).toBe('VERIFIED_INTACT PROVEN');
    // Head item, records, markers and checkpoint put back as signed at 4 records: triage now answers
    // seq 3 in the genuine signed checkpoint of 4 as the latest record, and the head item agrees.
    await setup.table.restore(at4);
    await rowsOf(
      context,
      {
        section: 'tampering',
        target: 'lineage (whole)',
        attack:
          'restore head, records and markers to the signed state of 4 records after 6 were integrated; recall latest (an older signed answer as the latest)',
      },
      rolled,
      { latest: true },
      {
        cli: 'exit 20 UNVERIFIED_TAMPER_RISK NOT_NEWEST',
        client: 'UNVERIFIED_TAMPER_RISK NOT_NEWEST',
        python: 'NOT_INTACT UNVERIFIED_TAMPER_RISK NOT_NEWEST',
      },
    );
    // The whole-lineage walks place the verified head against the index as recall does
    // (docs/deployment-log.md, "Clients", whole-lineage walks).
    const walk = {
      section: 'tampering',
      target: 'lineage (whole)',
      attack:
        'restore head, records and markers to the signed state of 4 records after 6 were integrated; verify the whole lineage',
      checkpoint: false,
    } as const;
    const stored = await clientOf(setup, targetOf(rolled, { latest: true }), null).verifyStoredLineage(rolled);
    expectGuarantees(context, [
      {
        guarantee: { ...walk, reader: 'verify --lineage', expected: 'exit 20 UNVERIFIED_TAMPER_RISK NOT_NEWEST' },
        observed: await walkCli('verify', rolled),
      },
      {
        guarantee: { ...walk, reader: 'inspect --lineage', expected: 'exit 20 UNVERIFIED_TAMPER_RISK NOT_NEWEST' },
        observed: await walkCli('inspect', rolled),
      },
      {
        guarantee: { ...walk, reader: 'client.verifyStoredLineage', expected: 'UNVERIFIED_TAMPER_RISK NOT_NEWEST' },
        observed: `${stored.verification.verdict} ${stored.freshness?.state ?? 'no freshness'}`,
      },
    ]);
  });

  it('a deleted residual-id marker: recall by residual id is tamper (the index maps it), not "no such record"', async (context) => {
    await setup.table.delete(LineageKeys.lineage(marked), LineageKeys.residualSk('r-1'));
    await rowsOf(
      context,
      { section: 'tampering', target: 'residual marker', attack: 'delete the marker of an integrated residual id' },
      marked,
      { residualId: 'r-1' },
      {
        cli: 'exit 20 UNVERIFIED_TAMPER_RISK INCONSISTENT',
        client: 'UNVERIFIED_TAMPER_RISK INCONSISTENT',
        python: 'NOT_INTACT UNVERIFIED_TAMPER_RISK INCONSISTENT',
      },
    );
  });

  it('a residual id never written is ABSENT, proven by the index as of the deployment checkpoint', async (context) => {
    await rowsOf(
      context,
      { section: 'tampering', target: 'residual marker', attack: 'none: recall a residual id never written' },
      marked,
      { residualId: 'r-never-written' },
      { cli: 'exit 2 NOT_FOUND ABSENT', client: 'refused NOT_FOUND ABSENT', python: 'NOT_FOUND - ABSENT' },
    );
  });
});
