import { describe, expect, it } from 'vitest';
import type { WriteOutcome } from '../../../client/write-outcomes';
import { RecallOutput } from '../../../mcp/outputs/recall-output';
import { ToolErrorSchema } from '../../../mcp/outputs/tool-error-schema';
import { recallResult } from '../../../mcp/recall-result';
import type { SnapshotUse } from '../../../mcp/snapshot-use';
import { writeOutcomeResult } from '../../../mcp/write-outcome-result';
import { rejectionStatement } from '../../../shared/log/outcome-statement';
import { buildManifest } from '../../../shared/triage/build-manifest';
import { validWriteRequest } from '../../helpers/guard-factories';
import { signedRejection } from '../../helpers/outcome-factories';
import { appendSealed, TEST_LOG_NAME } from '../../helpers/pipeline-keys';
import { buildChain, TEST_LINEAGE_ID } from '../../helpers/seal-factories';
import { pipeline } from './pipeline';

// docs/mcp.md, "Times": a time no Date holds is answered as `(invalid time <ms>)` in a
// schema-valid answer, never thrown out of a tool. 8.64e15 + 1 ms is an integer below 2^53, so
// every schema and signed statement admits it, and one past the largest time a Date holds.
const FORGED_MS = 8.64e15 + 1;
const INVALID = '(invalid time 8640000000000001)';
const SNAPSHOT: SnapshotUse = { source: 'providers', env: { 'tool:node': 'v20.0.0' }, notes: [] };

describe('MCP tool answers with a time no Date holds', () => {
  it('reseal_write: a rejection at an out-of-range time is the WRITE_REJECTED tool error, rejectedAt marked invalid', async () => {
    const rejection = await signedRejection('r-1', { atMs: FORGED_MS });
    const outcome: WriteOutcome = {
      kind: 'REJECTED',
      rejection,
      statement: rejectionStatement(TEST_LOG_NAME, rejection),
    };
    const result = writeOutcomeResult(validWriteRequest(), outcome, SNAPSHOT);
    expect(result.isError).toBe(true);
    const structured = ToolErrorSchema.parse(result.structuredContent);
    expect(structured).toMatchObject({ error: 'WRITE_REJECTED', reason: 'STALE_STATE', rejectedAt: INVALID });
  });

  it('reseal_recall: a proven record whose sealedAtMs is out of range answers TRIAGED, sealedAt marked invalid, valid against the output schema', async () => {
    const env = { 'tool:node': 'v20.0.0' };
    const manifest = buildManifest({ env, structuralKeys: [], claimDependencyMap: { 'node-builds': ['tool:node'] } });
    const p = pipeline();
    const { records } = await buildChain(1, { inputs: () => ({ payload: { claims: {} } as never, manifest }) });
    await appendSealed(p.store, records);
    const recall = await p.client.recall({ lineageId: TEST_LINEAGE_ID, target: { latest: true }, currentEnv: env });
    expect(recall.record).not.toBeNull();
    // Formatting only: the record as verified, its time out of any Date's range.
    const forged = { ...recall, record: recall.record && { ...recall.record, sealedAtMs: FORGED_MS } };
    const result = recallResult({ recall: forged, snapshot: SNAPSHOT });
    expect(result.isError).toBeUndefined();
    const out = RecallOutput.parse(result.structuredContent);
    expect(out.sealedAt).toBe(INVALID);
    expect(out.delta.verdict).toBe('NO_DRIFT');
  });
});
