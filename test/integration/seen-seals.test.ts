import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCheckpointStore } from '../../client/file-checkpoint-store';
import { checkpointOrigin } from '../../shared/log/checkpoint-origin';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { cliRecall } from '../helpers/cli-recall';
import { acceptedWrite, coldSealer, sealGroup } from '../helpers/emulator-lineages';
import { expectGuarantees } from '../helpers/guarantees';
import { SealedRunNotices } from '../helpers/sealed-run-notices';
import { stackIntegrator } from '../helpers/stack-integrator';
import { clientOf, type ReadTarget } from '../helpers/tamper-readers';
import { partitionsOf, type Snapshot } from '../helpers/tamper-table';
import { testLineageId } from '../helpers/writer-factories';
import { emulatorSetup, MANIFEST } from './tamper/fixture';

// A client keeps the seals of its own writes it saw awaiting integration in its checkpoint store
// (docs/verifiable-log.md, "Seals seen awaiting integration"), so a table writer who rewinds a
// lineage's head over records not yet integrated, and deletes them and their markers, is caught
// by the client that waited for them. The sealer (signLineageCheckpoints: false) and the integrator run in
// process on the deployed stack's table and keys (the integrator is held back by not running it);
// the reader is the real CLI.
const setup = emulatorSetup();
const notices = new SealedRunNotices();
const sealer = coldSealer(setup, { notifier: notices, signLineageCheckpoints: false });
const TIMEOUT_MS = 300_000;

/** Seals the write `residualId` on `lineageId`; returns its request, as its writer published it. */
async function seal(lineageId: string, residualId: string): Promise<ResidualWriteRequest> {
  const nowMs = Date.now();
  const request = acceptedWrite(lineageId, residualId, MANIFEST, nowMs);
  expect(await sealGroup(sealer, [request], nowMs)).toEqual(['SEALED']);
  return request;
}

/** What the CLI's client reads for `lineageId` (no trusted checkpoint: the store is the client's own). */
function targetOf(lineageId: string, recall: ReadTarget['recall']): ReadTarget {
  return {
    lineageId,
    trusted: { note: '', seq: 0, recordHash: '' },
    recall,
    receiptSeq: 0,
    write: acceptedWrite(lineageId, 'r-0', MANIFEST, Date.now()),
  };
}

/** The client the CLI connects with (the CLI's own store, when given, as its checkpoint store). */
const connectOf =
  (lineageId: string) =>
  async (_stack: string, store: string | null): Promise<ReturnType<typeof clientOf>> =>
    clientOf(setup, targetOf(lineageId, { latest: true }), store ? new FileCheckpointStore(store) : null);

/** `reseal recall --residual-id R --json`, with `store` as `--checkpoint-store` when given: `exit <code> <verdict or refusal> <freshness state>`, and the freshness reason. */
async function recallCli(
  lineageId: string,
  residualId: string,
  store: string | null,
): Promise<{ readonly line: string; readonly reason: string }> {
  const { line, freshness } = await cliRecall(setup, targetOf(lineageId, { residualId }), {
    store,
    timeoutSeconds: 30,
  });
  return { line, reason: freshness?.reason ?? '' };
}

function row(context: TestContext, checkpoint: boolean, expected: string, observed: string) {
  expectGuarantees(context, [
    {
      guarantee: {
        section: 'tampering',
        target: 'lineage records past the index (heads MAC’d)',
        attack:
          'head rewound over a write the client waited for and saw sealed, awaiting integration; the record and its marker deleted',
        reader: 'recall --residual-id',
        checkpoint,
        expected,
      },
      observed,
    },
  ]);
}

describe('a checkpoint store keeps the seals of its own writes it saw awaiting integration: a tail rewind over one is caught', () => {
  const lineageId = testLineageId(`seen-seal-${randomUUID()}`);
  const dir = mkdtempSync(join(tmpdir(), 'reseal-seen-'));
  const store = join(dir, 'checkpoints.json');
  const partitions = partitionsOf(lineageId);
  let sealed: Snapshot | null = null;

  beforeAll(async () => {
    await seal(lineageId, 'r-0');
    const report = await notices.integrateRetrying(() => stackIntegrator(setup));
    expect(report.evidence).toEqual([]);
    const integrated = await setup.table.snapshot(partitions);
    // r-1 is sealed and not integrated (the integrator is held back). A recall reads it awaiting
    // and keeps nothing of it (the head item's tree is the table's word); the writer's client,
    // waiting for the request it published, sees it awaiting and keeps its seal.
    const request = await seal(lineageId, 'r-1');
    const seen = await recallCli(lineageId, 'r-1', store);
    expect(seen.line, seen.reason).toBe('exit 3 null SEALED_AWAITING_INTEGRATION');
    expect(existsSync(store) ? JSON.parse(readFileSync(store, 'utf8')).seenSeals : undefined).toBeUndefined();
    const writer = await connectOf(lineageId)('', store);
    const outcome = await writer.waitForOutcome(lineageId, 'r-1', { request, timeoutMs: 30_000 });
    expect(outcome.kind === 'SEALED' && outcome.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
    const file = JSON.parse(readFileSync(store, 'utf8'));
    expect(file.formatVersion).toBe(3);
    expect(file.seenSeals[checkpointOrigin(setup.stack.LogName, lineageId)]).toMatchObject([
      { residualId: 'r-1', seq: 1 },
    ]);
    sealed = await setup.table.snapshot(partitions);
    // The table writer rewinds the head to the integrated state: record 1 and its marker are deleted.
    await setup.table.restore(integrated);
  }, TIMEOUT_MS);

  afterAll(async () => {
    if (sealed) await setup.table.restore(sealed);
  }, TIMEOUT_MS);

  it(
    'reseal recall of the rewound residual id exits 20 with the store; without it, ABSENT as of the last integration (exit 2)',
    async (context) => {
      const cold = await recallCli(lineageId, 'r-1', null);
      expect(cold.reason).toMatch(/^absent: .* as of deployment checkpoint \d+, the last integration; /);
      row(context, false, 'exit 2 NOT_FOUND ABSENT', cold.line);
      const kept = await recallCli(lineageId, 'r-1', store);
      expect(kept.reason).toMatch(
        /^rollback: residual r-1 reads absent, but this client saw residual r-1 sealed at seq 1 \(record [0-9a-f]{16}…, in the head item's tree of 2 records\) at \d{4}-\d\d-\d\dT[\d:.]+Z, awaiting integration/,
      );
      row(context, true, 'exit 20 UNVERIFIED_TAMPER_RISK NOT_NEWEST', kept.line);
    },
    TIMEOUT_MS,
  );
});
