import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineageKeys } from '../../adapters/lineage-keys';
import { FileCheckpointStore } from '../../client/file-checkpoint-store';
import type { RecallTarget } from '../../shared/pipeline/recall-target';
import { cliRecall } from '../helpers/cli-recall';
import { acceptedWrite, coldSealer, sealGroup } from '../helpers/emulator-lineages';
import { expectGuarantees } from '../helpers/guarantees';
import { SealedRunNotices } from '../helpers/sealed-run-notices';
import { stackIntegrator } from '../helpers/stack-integrator';
import { clientOf, type ReadTarget, runPythonReader } from '../helpers/tamper-readers';
import { partitionsOf, type Snapshot } from '../helpers/tamper-table';
import { testLineageId } from '../helpers/writer-factories';
import { runCli } from '../unit/cli/run-cli';
import { emulatorSetup, MANIFEST } from './tamper/fixture';

// A checkpoint store keeps the newest deployment checkpoint the client authenticated
// (docs/verifiable-log.md, "Checkpoints the client keeps"), so a table writer who puts the whole
// table back to an earlier state is caught once the sealer no longer signs lineage checkpoints
// (heads MAC'd: no signed lineage note to keep). The sealer (signLineageCheckpoints: false) and the
// integrator run in process on the deployed stack's table and keys; the readers are the real CLI.
const setup = emulatorSetup();
const notices = new SealedRunNotices();
const sealer = coldSealer(setup, { notifier: notices, signLineageCheckpoints: false });
const TIMEOUT_MS = 300_000;

async function integrate(): Promise<void> {
  const report = await notices.integrateRetrying(() => stackIntegrator(setup));
  expect(report.evidence).toEqual([]);
}

async function seal(lineageId: string, residualId: string): Promise<void> {
  const nowMs = Date.now();
  expect(await sealGroup(sealer, [acceptedWrite(lineageId, residualId, MANIFEST, nowMs)], nowMs)).toEqual(['SEALED']);
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

const cliEnv = { AWS_ENDPOINT_URL: setup.endpoint, AWS_REGION: setup.region };
const connectOf =
  (lineageId: string) =>
  async (_stack: string, store: string | null): Promise<ReturnType<typeof clientOf>> =>
    clientOf(setup, targetOf(lineageId, { latest: true }), store ? new FileCheckpointStore(store) : null);

/** `reseal recall --json` (latest), with `store` as `--checkpoint-store` when given: `exit <code> <verdict or refusal> <freshness state>`. */
async function recallCli(dir: string, lineageId: string, store: string | null): Promise<string> {
  const { line, freshness } = await cliRecall(setup, targetOf(lineageId, { latest: true }), { dir, store });
  if (freshness?.state === 'REFUSED') expect(freshness.reason).toMatch(/DEPLOYMENT_ROLLBACK/);
  return line;
}

/** `reseal verify --lineage --json` with `store`: `exit <code> <verdict> <freshness state>`. */
async function verifyCli(dir: string, lineageId: string, store: string | null): Promise<string> {
  const run = await runCli(
    ['verify', '--lineage', lineageId, '--json', ...(store ? ['--checkpoint-store', store] : [])],
    { cwd: dir, env: cliEnv, connect: connectOf(lineageId) },
  );
  const json = JSON.parse(run.stdout) as { verdict: string; freshness: { state: string } | null };
  return `exit ${run.exitCode} ${json.verdict} ${json.freshness?.state ?? 'no freshness'}`;
}

/**
 * The Python client (python/tests/online/tamper_reader.py, docs/python.md, "Kept checkpoints"):
 * `proven_records` of the lineage and its receipt of seq 0, with `store` as its
 * `FileCheckpointStore` when given: `records <outcome>; receipt <outcome>`.
 */
function pythonRead(lineageId: string, store: string | null): Promise<string> {
  const cwd = mkdtempSync(join(tmpdir(), 'reseal-kept-python-'));
  return runPythonReader(setup, cwd, [lineageId, 'records', '0', ...(store ? [store] : [])]);
}

function row(context: TestContext, reader: string, expected: string, observed: string) {
  expectGuarantees(context, [
    {
      guarantee: {
        section: 'tampering',
        target: 'deployment log, index and lineage (heads MAC’d)',
        attack: 'whole table put back to a snapshot after the client kept a newer deployment checkpoint',
        reader,
        checkpoint: true,
        expected,
      },
      observed,
    },
  ]);
}

describe('a checkpoint store keeps deployment checkpoints: a whole-table rollback is caught (heads MAC’d)', () => {
  const lineageId = testLineageId(`kept-deploy-${randomUUID()}`);
  const dir = mkdtempSync(join(tmpdir(), 'reseal-kept-deploy-'));
  const store = join(dir, 'checkpoints.json');
  // The Python client's own store: it keeps the deployment checkpoint itself, before the rollback.
  const pythonStore = join(dir, 'python-checkpoints.json');
  const partitions = [LineageKeys.deploymentLog, ...partitionsOf(lineageId)];
  let newest: Snapshot | null = null;

  beforeAll(async () => {
    await seal(lineageId, 'r-0');
    await integrate();
    const before = await setup.table.snapshot(partitions);
    await seal(lineageId, 'r-1');
    await integrate();
    // The client sees the newer state PROVEN and keeps its deployment checkpoint.
    expect(await recallCli(dir, lineageId, store)).toBe('exit 0 VERIFIED_INTACT PROVEN');
    expect(existsSync(store)).toBe(true);
    expect(JSON.parse(readFileSync(store, 'utf8')).checkpoints).toHaveProperty(setup.stack.LogName);
    expect(await pythonRead(lineageId, pythonStore)).toBe('records VERIFIED_INTACT 2; receipt VERIFIED_INTACT seq 0');
    expect(JSON.parse(readFileSync(pythonStore, 'utf8')).checkpoints).toHaveProperty(setup.stack.LogName);
    newest = await setup.table.snapshot(partitions);
    // The table writer puts the deployment log and the lineage back as they were after r-0.
    await setup.table.restore(before);
  }, TIMEOUT_MS);

  afterAll(async () => {
    // Later files integrate on this table: the newest state is put back.
    if (newest) await setup.table.restore(newest);
  }, TIMEOUT_MS);

  it(
    'reseal recall with the store exits 20 (DEPLOYMENT_ROLLBACK); without it, the rolled-back record reads PROVEN',
    async (context) => {
      expect(await recallCli(mkdtempSync(join(tmpdir(), 'reseal-kept-none-')), lineageId, null)).toBe(
        'exit 0 VERIFIED_INTACT PROVEN',
      );
      row(context, 'recall', 'exit 20 UNVERIFIED_TAMPER_RISK REFUSED', await recallCli(dir, lineageId, store));
    },
    TIMEOUT_MS,
  );

  it(
    'reseal verify --lineage with the store exits 20',
    async (context) => {
      expect(await verifyCli(mkdtempSync(join(tmpdir(), 'reseal-kept-none-')), lineageId, null)).toBe(
        'exit 0 VERIFIED_INTACT PROVEN',
      );
      row(
        context,
        'verify --lineage',
        'exit 20 UNVERIFIED_TAMPER_RISK REFUSED',
        await verifyCli(dir, lineageId, store),
      );
    },
    TIMEOUT_MS,
  );

  it(
    'the Python client with its store refuses the rolled-back table (DEPLOYMENT_ROLLBACK); without it, the rolled-back record reads intact',
    async (context) => {
      expect(await pythonRead(lineageId, null)).toBe('records VERIFIED_INTACT 1; receipt VERIFIED_INTACT seq 0');
      const refused =
        'records LogVerificationError UNVERIFIED_TAMPER_RISK; receipt LogVerificationError UNVERIFIED_TAMPER_RISK';
      // The store the TypeScript CLI kept is the same file format: the Python client refuses by it too.
      expect(await pythonRead(lineageId, store)).toBe(refused);
      row(context, 'python: proven_records + receipt', refused, await pythonRead(lineageId, pythonStore));
    },
    TIMEOUT_MS,
  );
});
