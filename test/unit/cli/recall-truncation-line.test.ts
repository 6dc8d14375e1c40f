import { describe, expect, it } from 'vitest';
import { recallJson, recallProofLine } from '../../../cli/format/recall';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import type { ResealClientDeps } from '../../../client/reseal-client';
import { RecallShape } from '../../../client/shapes/recall-shape';
import { decideRecall, type VerifiedRecall } from '../../../client/verified-recall';
import { RecallOutput } from '../../../mcp/outputs/recall-output';
import { recallResult } from '../../../mcp/recall-result';
import type { RecallCheck } from '../../../shared/log/recall-check';
import { inProcessTriageBus } from '../../helpers/factories';
import { integratedStack } from '../../helpers/integrated-stack';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-truncation-line');
const ENV = { ARCH: 'arm64', HOSTNAME: 'runner-17', REGION: 'eu-west-1', TOOL_VERSION: '1.2.3' };
const SNAPSHOT = { source: 'providers', env: ENV, notes: [] } as const;

/**
 * A proven recall of the latest record on a default stack (lineage checkpoints unsigned: heads the
 * sealer MAC'd, vouched for by the deployment index), read by a client with `deps`.
 */
async function defaultStackRecall(deps: ResealClientDeps = {}): Promise<VerifiedRecall> {
  const s = integratedStack({ signLineageCheckpoints: false });
  for (let i = 0; i < 2; i++) await s.send({ lineageId: LINEAGE, residualId: `r-${i}` });
  await s.integrate();
  const client = s.client({ deps: { eventBridge: inProcessTriageBus(s.store, () => s.clock.now), ...deps } });
  const recall = await client.recall({ lineageId: LINEAGE, target: { latest: true }, currentEnv: ENV });
  expect(recall.end, recall.reason).toBe('TRIAGED');
  expect(recall.checkpoint?.note).toBeNull();
  return recall;
}

/** `recall` with its checks as another client would have decided them. */
function redecided(recall: VerifiedRecall, overrides: Partial<Parameters<typeof decideRecall>[0]>): VerifiedRecall {
  const check: RecallCheck = {
    verdict: recall.verdict,
    reason: recall.reason,
    record: recall.record,
    inclusion: recall.inclusion,
    delta: recall.delta,
    checkpoint: recall.checkpoint,
    truncationChecked: recall.truncationChecked,
    refusal: recall.refusal,
  };
  return decideRecall({
    requestId: recall.requestId,
    lineageId: recall.lineageId,
    target: recall.target,
    report: recall.report,
    check,
    newestSize: recall.checks.newestSize,
    truncationCheckedAgainst: recall.checks.truncationCheckedAgainst,
    freshness: recall.freshness,
    deployment: recall.checks.deployment,
    keepsCheckpoints: recall.checks.keepsCheckpoints,
    readsDeploymentLog: recall.checks.readsDeploymentLog,
    ...overrides,
  });
}

const mcpText = (recall: VerifiedRecall) =>
  (recallResult({ recall, snapshot: SNAPSHOT }).content[0] as { text: string }).text;

describe('what a recall says a rollback was checked against, on a stack that signs no lineage checkpoints', () => {
  it('with a checkpoint store: the deployment checkpoint kept in it (CLI proof line and reseal_recall alike)', async () => {
    const recall = await defaultStackRecall({ checkpointStore: new MemoryCheckpointStore() });
    expect(recall.checks.deployment).toMatchObject({ kept: true, witnessed: false });
    const size = recall.checks.deployment?.size;
    const words = `truncation checked against the deployment checkpoint kept in the checkpoint store (no lineage checkpoint kept; this one, of ${size} leaves, is no older)`;
    expect(recallProofLine(recall)).toContain(words);
    expect(recallProofLine(recall)).not.toContain('NOT checked');
    expect(mcpText(recall)).toContain(`(${words})`);
  });

  it('without one: NOT checked, and a checkpoint store suggested for the deployment checkpoint it would keep', async () => {
    const recall = await defaultStackRecall();
    expect(recallProofLine(recall)).toMatch(
      /truncation NOT checked: nothing kept \(the head item carries no signed lineage checkpoint; pass --checkpoint-store to keep the deployment checkpoint, which catches a rollback, or --checkpoint\)$/,
    );
    expect(mcpText(recall)).toContain('set RESEAL_CHECKPOINTS to keep the deployment checkpoint');
  });

  it('a witnessed deployment checkpoint not kept: checked within the freshness window', async () => {
    const recall = await defaultStackRecall();
    const size = recall.checks.deployment?.size ?? 0;
    const witnessed = redecided(recall, { deployment: { size, kept: false, witnessed: true, windowSeconds: 182 } });
    expect(recallProofLine(witnessed)).toContain(
      `truncation checked against the witnessed deployment checkpoint of ${size} leaves (it catches a rollback older than the 182 s freshness window; nothing kept)`,
    );
    const kept = redecided(recall, { deployment: { size, kept: true, witnessed: true, windowSeconds: 182 } });
    expect(recallProofLine(kept)).toContain(
      'checked against the witnessed deployment checkpoint kept in the checkpoint store',
    );
  });

  it("says an unsigned lineage checkpoint of the head item, a table writer's to strip, and never advises against a store", async () => {
    const recall = await defaultStackRecall();
    const noLog = redecided(recall, { deployment: null, readsDeploymentLog: false, keepsCheckpoints: false });
    expect(recallProofLine(noLog)).toMatch(
      /truncation NOT checked: the head item carries no signed lineage checkpoint and this client reads no deployment log \(pass --checkpoint-store to keep a signed lineage checkpoint a later read proves, or --checkpoint\)$/,
    );
    const noLogKeeping = redecided(recall, { deployment: null, readsDeploymentLog: false, keepsCheckpoints: true });
    expect(recallProofLine(noLogKeeping)).toMatch(
      /truncation NOT checked: nothing kept yet \(the head item carries no signed lineage checkpoint and this client reads no deployment log\); --checkpoint checks it$/,
    );
    const unpublished = redecided(recall, { deployment: null, keepsCheckpoints: true });
    expect(recallProofLine(unpublished)).toMatch(
      /truncation NOT checked: nothing kept \(the head item carries no signed lineage checkpoint and no deployment checkpoint was authenticated\); --checkpoint checks it$/,
    );
    for (const line of [noLog, noLogKeeping, unpublished].map(recallProofLine)) {
      expect(line).not.toContain('unsigned on this stack');
      expect(line).not.toContain('keeps nothing');
    }
  });

  it('a lineage checkpoint kept or given: as before, with the kept deployment checkpoint beside it', async () => {
    const recall = await defaultStackRecall({ checkpointStore: new MemoryCheckpointStore() });
    const size = recall.checks.deployment?.size;
    const lineage = redecided(recall, { truncationCheckedAgainst: [{ kind: 'KEPT_CHECKPOINT', size: 2 }] });
    expect(recallProofLine(lineage)).toContain(
      `truncation checked against the kept checkpoint (2 records) and the deployment checkpoint kept in the checkpoint store (this one, of ${size} leaves, is no older)`,
    );
    const given = redecided(recall, {
      deployment: null,
      truncationCheckedAgainst: [{ kind: 'GIVEN_HEAD', seq: 0, recordHash: '0'.repeat(64) }],
    });
    expect(recallProofLine(given)).toMatch(/truncation checked against --checkpoint \(seq 0\)$/);
    expect(mcpText(given)).toContain("(truncation checked against the tool's checkpoint argument (seq 0))");
  });
});

describe('what the JSON says a rollback was checked against agrees with the text', () => {
  const mcpOut = (recall: VerifiedRecall) =>
    RecallOutput.parse(recallResult({ recall, snapshot: SNAPSHOT }).structuredContent);

  it('the deployment checkpoint kept in the store: rollbackChecked, lineage fields unchanged (CLI and reseal_recall)', async () => {
    const recall = await defaultStackRecall({ checkpointStore: new MemoryCheckpointStore() });
    const size = recall.checks.deployment?.size ?? -1;
    const expected = {
      truncationChecked: false,
      truncationCheckedAgainst: [],
      rollbackChecked: true,
      rollbackCheckedAgainstDeployment: { size, kept: true, witnessed: false, windowSeconds: null },
    };
    expect(RecallShape.parse(recallJson(recall))).toMatchObject(expected);
    expect(mcpOut(recall)).toMatchObject({ ...expected, verification: { truncationChecked: false } });
  });

  it('nothing kept and unwitnessed: NOT checked in the text, rollbackChecked false in the JSON', async () => {
    const recall = await defaultStackRecall();
    expect(recallProofLine(recall)).toContain('truncation NOT checked');
    const expected = { truncationChecked: false, rollbackChecked: false, rollbackCheckedAgainstDeployment: null };
    expect(recallJson(recall)).toMatchObject(expected);
    expect(mcpOut(recall)).toMatchObject(expected);
  });

  it('a witnessed deployment checkpoint, or a lineage checkpoint alone, counts', async () => {
    const recall = await defaultStackRecall();
    const size = recall.checks.deployment?.size ?? 0;
    const witnessed = redecided(recall, { deployment: { size, kept: false, witnessed: true, windowSeconds: 182 } });
    expect(recallJson(witnessed)).toMatchObject({
      truncationChecked: false,
      rollbackChecked: true,
      rollbackCheckedAgainstDeployment: { size, kept: false, witnessed: true, windowSeconds: 182 },
    });
    const given = redecided(recall, {
      deployment: null,
      truncationCheckedAgainst: [{ kind: 'GIVEN_HEAD', seq: 0, recordHash: '0'.repeat(64) }],
    });
    expect(mcpOut(given)).toMatchObject({
      truncationChecked: true,
      rollbackChecked: true,
      rollbackCheckedAgainstDeployment: null,
    });
  });
});
