import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointOrigin } from '../../shared/log/log-names';
import { cliRecall } from '../helpers/cli-recall';
import { acceptedWrite, coldSealer, sealGroup } from '../helpers/emulator-lineages';
import { expectGuarantees } from '../helpers/guarantees';
import { SealedRunNotices } from '../helpers/sealed-run-notices';
import { stackIntegrator } from '../helpers/stack-integrator';
import type { ReadTarget } from '../helpers/tamper-readers';
import { partitionsOf, type Snapshot } from '../helpers/tamper-table';
import { testLineageId } from '../helpers/writer-factories';
import { emulatorSetup, MANIFEST } from './tamper/fixture';

// A client keeps the seals it saw awaiting integration in its checkpoint store
// (docs/verifiable-log.md, "Seals seen awaiting integration"), so a table writer who rewinds a
// lineage's head over records not yet integrated, and deletes them and their markers, is caught
// by the client that saw them. The sealer (signLineageCheckpoints: false) and the integrator run in
// process on the deployed stack's table and keys (the integrator is held back by not running it);
// the reader is the real CLI.
const setup = emulatorSetup();
const notices = new SealedRunNotices();
const sealer = coldSealer(setup, { notifier: notices, signLineageCheckpoints: false });
const TIMEOUT_MS = 300_000;

async function seal(lineageId: string, residualId: string): Promise<void> {
  const nowMs = Date.now();
  expect(await sealGroup(sealer, [acceptedWrite(lineageId, residualId, MANIFEST, nowMs)], nowMs)).toEqual(['SEALED']);
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
          'head rewound over a record the client saw sealed, awaiting integration; the record and its marker deleted',
        reader: 'recall --residual-id',
        checkpoint,
        expected,
      },
      observed,
    },
  ]);
}

describe('a checkpoint store keeps the seals it saw awaiting integration: a tail rewind over one is caught', () => {
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
    // r-1 is sealed and not integrated (the integrator is held back): the store's client sees it awaiting.
    await seal(lineageId, 'r-1');
    const seen = await recallCli(lineageId, 'r-1', store);
    expect(seen.line, seen.reason).toBe('exit 3 null SEALED_AWAITING_INTEGRATION');
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
