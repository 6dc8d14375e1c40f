import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recallJson } from '../../../cli/format/recall';
import { DeltaShape } from '../../../client/shapes/delta-shape';
import { FreshnessShape } from '../../../client/shapes/freshness-shape';
import { RecallShape } from '../../../client/shapes/recall-shape';
import { TimelineShape } from '../../../client/shapes/timeline-shape';
import { VerificationShape } from '../../../client/shapes/verification-shape';
import { WriteOutcomeShape, writeOutcomeShape } from '../../../client/shapes/write-outcome-shape';
import { InspectOutput } from '../../../mcp/outputs/inspect-output';
import { VerifyOutput } from '../../../mcp/outputs/verify-output';
import { recallResult } from '../../../mcp/recall-result';
import { inspectLineage } from '../../../mcp/tools/inspect';
import { verifyLineage } from '../../../mcp/tools/verify';
import { writeOutcomeResult } from '../../../mcp/write-outcome-result';
import type { EnvSnapshot } from '../../../shared/schemas/env-snapshot';
import { inProcessRecallClient } from '../../helpers/factories';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { integratedStack } from '../../helpers/integrated-stack';
import { staleEpochConflict, staleRejection } from '../../helpers/outcome-factories';
import { appendSealed } from '../../helpers/pipeline-keys';
import { buildChain } from '../../helpers/seal-factories';
import { testLineageId } from '../../helpers/writer-factories';
import { runCli } from '../cli/run-cli';

const FIXTURES = join(import.meta.dirname, '..', 'cli', 'fixtures');
const structured = (result: { structuredContent?: unknown }) => result.structuredContent;

// docs/cli.md and docs/mcp.md, "One shape per concept": `reseal … --json` and the MCP tools print
// the same concept in one shape, tagged with its `format`. For one answer, the CLI's output and
// the tool's parse with the same schema to the same value (each may add fields of its own).
describe('one shape per concept: the CLI --json and the MCP tools agree', () => {
  it('a sealed write (reseal.write-outcome/1, freshness reseal.freshness/1): publish --wait --json and reseal_write', async () => {
    const s = integratedStack();
    const lineageId = testLineageId('lin-shapes');
    const fields = { lineageId, residualId: 'r-1' };
    const request = s.request(fields);
    const dir = mkdtempSync(join(tmpdir(), 'reseal-shapes-'));
    writeFileSync(join(dir, 'request.json'), JSON.stringify(request));
    let sleeps = 0;
    const client = s.client({
      deps: {
        sqs: {
          send: async () => {
            await s.send(fields);
            return { MessageId: 'msg-1' };
          },
        } as never,
      },
      onSleep: async () => {
        if (++sleeps === 1) await s.integrate();
      },
    });
    const run = await runCli(['publish', '--request', 'request.json', '--wait', '--json'], {
      cwd: dir,
      connect: async () => client,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const cli = JSON.parse(run.stdout);

    const outcome = await s.client().waitForOutcome(lineageId, 'r-1', { request, timeoutMs: 1000 });
    const mcp = structured(writeOutcomeResult(request, outcome, { source: 'caller', env: {}, notes: [] }));

    const fromCli = WriteOutcomeShape.parse(cli);
    expect(fromCli).toEqual(WriteOutcomeShape.parse(mcp));
    expect(fromCli).toMatchObject({ format: 'reseal.write-outcome/1', outcome: 'SEALED', seq: 0 });
    expect(cli.freshness).toEqual((mcp as { freshness: unknown }).freshness);
    expect(FreshnessShape.parse(cli.freshness)).toMatchObject({ format: 'reseal.freshness/1', state: 'PROVEN' });
  });

  it('a triaged recall (reseal.recall/1): recall --json and reseal_recall', async () => {
    const lineageId = 'lineage-shapes-recall';
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(1, { lineageId });
    await appendSealed(store, records);
    const currentEnv = JSON.parse(readFileSync(join(FIXTURES, 'baseline-env.json'), 'utf8')) as EnvSnapshot;
    const recall = await inProcessRecallClient(store).recall({
      requestId: 'req-shapes',
      lineageId,
      target: { latest: true },
      currentEnv,
    });
    const cli = JSON.parse(JSON.stringify(recallJson(recall)));
    const mcp = structured(recallResult({ recall, snapshot: { source: 'caller', env: currentEnv, notes: [] } }));

    const fromCli = RecallShape.parse(cli);
    expect(fromCli).toEqual(RecallShape.parse(mcp));
    expect(fromCli).toMatchObject({ format: 'reseal.recall/1', end: 'TRIAGED', seq: 0, refusalCode: null });
  });

  it("a delta (reseal.delta/1): triage --json of the record's manifest, the delta of recall --json and of reseal_recall are one value", async () => {
    const lineageId = 'lineage-shapes-delta';
    const store = new InMemoryLineageStore();
    const { records } = await buildChain(1, { lineageId });
    await appendSealed(store, records);
    const partialEnv = JSON.parse(readFileSync(join(FIXTURES, 'env-partial.json'), 'utf8')) as EnvSnapshot;
    const recall = await inProcessRecallClient(store).recall({
      requestId: 'req-shapes-delta',
      lineageId,
      target: { latest: true },
      currentEnv: partialEnv,
    });
    const dir = mkdtempSync(join(tmpdir(), 'reseal-shapes-delta-'));
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(recall.record?.manifest));
    writeFileSync(join(dir, 'env.json'), JSON.stringify(partialEnv));
    const triage = await runCli(['triage', '--manifest', 'manifest.json', '--env', 'env.json', '--json'], { cwd: dir });
    expect(triage.exitCode, triage.stderr).toBe(10);

    const fromTriage = DeltaShape.parse(JSON.parse(triage.stdout));
    const fromRecall = DeltaShape.parse((JSON.parse(JSON.stringify(recallJson(recall))) as { delta: unknown }).delta);
    const mcp = structured(recallResult({ recall, snapshot: { source: 'caller', env: partialEnv, notes: [] } }));
    const fromTool = DeltaShape.parse((mcp as { delta: unknown }).delta);
    expect(fromTriage).toEqual(fromRecall);
    expect(fromTriage).toEqual(fromTool);
    expect(fromTriage).toMatchObject({ format: 'reseal.delta/1', verdict: 'FULL_RECONSTRUCTION_REQUIRED' });
  });

  it("a refused write (REJECTED, CONFLICT): what publish --wait --json prints and reseal_write's tool error details parse the same", async () => {
    const s = integratedStack();
    const request = s.request({ lineageId: testLineageId('lin-shapes-refused'), residualId: 'r-1' });
    const refused = [
      { kind: 'REJECTED', rejection: staleRejection('r-1', { lineageId: request.lineageId }), statement: {} as never },
      {
        kind: 'CONFLICT',
        conflict: staleEpochConflict('r-1', { lineageId: request.lineageId, observedHead: null }),
        statement: {} as never,
      },
    ] as const;
    for (const outcome of refused) {
      const cli = JSON.parse(JSON.stringify(writeOutcomeShape(request.lineageId, 'r-1', outcome)));
      const mcp = structured(writeOutcomeResult(request, outcome, { source: 'caller', env: {}, notes: [] }));
      expect(WriteOutcomeShape.parse(cli), outcome.kind).toEqual(WriteOutcomeShape.parse(mcp));
      expect(mcp).toMatchObject({ format: 'reseal.write-outcome/1', outcome: outcome.kind });
    }
  });

  it('a schema refuses an output of another format (the tag is checked, not decorative)', () => {
    expect(FreshnessShape.safeParse({ format: 'reseal.freshness/2' }).success).toBe(false);
    expect(WriteOutcomeShape.safeParse({ format: 'reseal.recall/1', outcome: 'TIMEOUT' }).success).toBe(false);
    expect(DeltaShape.safeParse({ format: 'reseal.freshness/1' }).success).toBe(false);
  });

  it('a lineage walked (reseal.timeline/1, reseal.verification/1): inspect and verify --lineage --json, reseal_inspect and reseal_verify', async () => {
    const s = integratedStack();
    const lineageId = testLineageId('lin-shapes-walk');
    for (const r of ['r-0', 'r-1', 'r-2']) await s.send({ lineageId, residualId: r });
    await s.integrate();
    const io = { cwd: tmpdir(), connect: async () => s.client() };
    const deps = { client: s.client() } as never;

    const inspected = await runCli(['inspect', '--lineage', lineageId, '--json'], io);
    expect(inspected.exitCode, inspected.stderr).toBe(0);
    const cliTimeline = TimelineShape.parse(JSON.parse(inspected.stdout));
    const mcpTimeline = InspectOutput.parse(structured(await inspectLineage(deps, { lineageId })));
    // The timeline records and the first failure are the same shapes, so the same values.
    expect(cliTimeline.records).toEqual(mcpTimeline.records);
    expect(cliTimeline.records.map((r) => r.seq)).toEqual([0, 1, 2]);
    expect({ ...cliTimeline, format: undefined }).toMatchObject({
      lineageId: mcpTimeline.lineageId,
      verdict: mcpTimeline.verdict,
      firstFailure: mcpTimeline.firstFailure,
      freshness: mcpTimeline.freshness,
      awaitingIntegrationFromSeq: mcpTimeline.awaitingIntegrationFromSeq,
    });

    const verified = await runCli(['verify', '--lineage', lineageId, '--json', '--audit-macs'], io);
    expect(verified.exitCode, verified.stderr).toBe(0);
    const cliWalk = VerificationShape.parse(JSON.parse(verified.stdout));
    const mcpWalk = VerifyOutput.parse(structured(await verifyLineage(deps, { lineageId })));
    expect(cliWalk).toMatchObject({
      lineageId: mcpWalk.lineageId,
      verdict: mcpWalk.verdict,
      recordsChecked: mcpWalk.records,
      verifiedHead: mcpWalk.head,
      freshness: mcpWalk.freshness,
      awaitingIntegrationFromSeq: mcpWalk.awaitingIntegrationFromSeq,
      treeHead: { size: mcpWalk.treeHead?.size, vouchedBy: mcpWalk.treeHead?.vouchedBy },
    });
    // Who wrote each record: the same WrittenByOutput on both surfaces.
    expect(cliWalk.records.map((r) => ({ seq: r.seq, writtenBy: r.writtenBy }))).toEqual(mcpWalk.writtenBy);
  });
});
