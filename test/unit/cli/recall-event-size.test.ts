import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { integratedStack } from '../../helpers/integrated-stack';
import { testLineageId } from '../../helpers/writer-factories';
import { runCli } from './run-cli';

const LINEAGE = testLineageId('lin-cli-recall-size');

// docs/cli.md, "Input limits": a recall whose RecallRequested entry would pass EventBridge's
// PutEvents limit (256 KiB) is refused as bad input before anything is put on the bus.
describe('reseal recall --env: the PutEvents entry limit', () => {
  it('an environment of 300,000 bytes is exit 2, naming the limit, the size and what to do; nothing is sent', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.integrate();
    const dir = mkdtempSync(join(tmpdir(), 'reseal-recall-size-'));
    const env = Object.fromEntries(['A', 'B', 'C', 'D', 'E'].map((key) => [key, 'x'.repeat(60_000)]));
    writeFileSync(join(dir, 'env.json'), JSON.stringify(env));
    let puts = 0;
    const eventBridge = { send: async () => void puts++ } as never;
    const run = await runCli(['recall', '--lineage', LINEAGE, '--residual-id', 'r-0', '--env', 'env.json'], {
      cwd: dir,
      connect: async () => s.client({ deps: { eventBridge } }),
    });
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toMatch(
      /the RecallRequested event would be 300,\d{3} bytes \(a current environment of 5 keys\), more than EventBridge's PutEvents entry limit of 262,144 bytes \(MAX_EVENT_ENTRY_BYTES, docs\/cli.md "Input limits"\)/,
    );
    expect(run.stderr).toMatch(/triage this one offline/);
    expect(puts).toBe(0);
  }, 120_000);
});
