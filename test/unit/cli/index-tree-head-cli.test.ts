import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../cli/exit-codes';
import { integratedStack } from '../../helpers/integrated-stack';
import { testLineageId } from '../../helpers/writer-factories';
import { runCli } from './run-cli';

const LINEAGE = testLineageId('lin-index-cli');

/** A stack whose sealer signs no lineage checkpoint, `sealed` writes of which the first `integrated` are integrated. */
async function unsigned(sealed: number, integrated: number) {
  const s = integratedStack({ signLineageCheckpoints: false });
  for (let i = 0; i < sealed; i++) {
    await s.send({ lineageId: LINEAGE, residualId: `r-${i}` });
    if (i === integrated - 1) await s.integrate();
  }
  return { cwd: tmpdir(), connect: async () => s.client() };
}

// docs/cli.md, "Exit codes" and `verify --lineage`: a head item without a signed lineage
// checkpoint is verified against the tree head the index holds; records past it await integration.
describe('verify, inspect, report and export --lineage on heads without a signed lineage checkpoint', () => {
  it('verify --lineage, every record integrated: exit 0, the tree head named as the index entry', async () => {
    const io = await unsigned(3, 3);
    const text = await runCli(['verify', '--lineage', LINEAGE], io);
    expect(text.exitCode).toBe(ExitCode.OK);
    expect(text.stdout).toMatch(/tree head: +3 records, the index entry under the authenticated deployment checkpoint/);
    expect(text.stdout).toContain("the walk is the index's tree head of 3 records");
    const json = JSON.parse((await runCli(['verify', '--lineage', LINEAGE, '--json', '--audit-macs'], io)).stdout);
    expect(json).toMatchObject({
      verdict: 'VERIFIED_INTACT',
      treeHead: { size: 3, vouchedBy: 'index' },
      awaitingIntegrationFromSeq: null,
      freshness: { state: 'PROVEN' },
    });
  });

  it('verify and inspect --lineage with records past the indexed tree head: exit 3 (awaiting integration), not 20', async () => {
    const io = await unsigned(3, 2);
    const text = await runCli(['verify', '--lineage', LINEAGE], io);
    expect(text.exitCode).toBe(ExitCode.AWAITING_INTEGRATION);
    expect(text.stdout).toMatch(/awaiting: +seq 2 on: sealed, awaiting integration/);
    const json = JSON.parse((await runCli(['verify', '--lineage', LINEAGE, '--json'], io)).stdout);
    expect(json).toMatchObject({
      awaitingIntegrationFromSeq: 2,
      treeHead: { size: 2, vouchedBy: 'index' },
      verifiedHead: { seq: 1 },
      freshness: { state: 'SEALED_AWAITING_INTEGRATION' },
    });
    const inspect = await runCli(['inspect', '--lineage', LINEAGE, '--json'], io);
    expect(inspect.exitCode).toBe(ExitCode.AWAITING_INTEGRATION);
    expect(JSON.parse(inspect.stdout)).toMatchObject({ awaitingIntegrationFromSeq: 2 });
    const report = await runCli(['report', '--lineage', LINEAGE, '--json'], io);
    expect(report.exitCode).toBe(ExitCode.AWAITING_INTEGRATION);
    expect(JSON.parse(report.stdout).lineages[0].checkpoints[0]).toMatchObject({
      label: 'tree head the index holds',
      size: 2,
      state: 'SEALED_AWAITING_INTEGRATION',
    });
  });

  it('verify, inspect and report --lineage text name records past the indexed tree head AWAITING_INTEGRATION, never a tamper verdict', async () => {
    const io = await unsigned(3, 2);
    const inspect = await runCli(['inspect', '--lineage', LINEAGE], io);
    expect(inspect.exitCode).toBe(ExitCode.AWAITING_INTEGRATION);
    expect(inspect.stdout).toMatch(/^chain: +AWAITING_INTEGRATION$/m);
    expect(inspect.stdout).toMatch(
      /first failure: +\(none: seq 0 to 1 VERIFIED_INTACT against the tree head the index holds; seq 2 on sealed, awaiting integration \(not tampering\)\)/,
    );
    expect(inspect.stdout).toMatch(/^2 .* AWAITING_INTEGRATION$/m);
    expect(inspect.stdout).toContain(
      '(1 record(s) sealed, awaiting integration: their writer is shown once integrated)',
    );
    expect(inspect.stdout).toMatch(
      /record seq 2: AWAITING_INTEGRATION: .*\(sealed, awaiting integration: not proven yet, not tampering/,
    );
    expect(inspect.stdout).not.toContain('UNVERIFIED_TAMPER_RISK');
    expect(inspect.stdout).not.toContain('does not verify');
    const verify = await runCli(['verify', '--lineage', LINEAGE], io);
    expect(verify.exitCode).toBe(ExitCode.AWAITING_INTEGRATION);
    expect(verify.stdout).toMatch(/^verdict: +AWAITING_INTEGRATION$/m);
    expect(verify.stdout).toMatch(/verified head: +seq 1 [0-9a-f]{64} \(the last integrated record\)/);
    expect(verify.stdout).not.toContain('UNVERIFIED_TAMPER_RISK');
    // docs/cli.md, "reseal report": the page says the same (its chart keeps the walk's verdicts).
    const page = await runCli(['report', '--lineage', LINEAGE], io);
    expect(page.exitCode).toBe(ExitCode.AWAITING_INTEGRATION);
    expect(page.stdout).toContain('Chain: <span class="awaiting">AWAITING_INTEGRATION: seq 0 to 1 VERIFIED_INTACT');
    expect(page.stdout).toContain('<td><span class="awaiting">AWAITING_INTEGRATION</span></td>');
    expect(page.stdout).toContain('<span class="awaiting">SEALED_AWAITING_INTEGRATION</span>');
    expect(page.stdout).not.toContain('<span class="bad">');
    const out = join(await mkdtemp(join(tmpdir(), 'reseal-report-')), 'report.html');
    const written = await runCli(['report', '--lineage', LINEAGE, '--out', out], io);
    expect(written.exitCode).toBe(ExitCode.AWAITING_INTEGRATION);
    expect(written.stderr).toBe(`report: wrote ${out} (chain AWAITING_INTEGRATION)\n`);
    await rm(dirname(out), { recursive: true });
    // Nothing integrated yet: every record awaits integration, and the text says so.
    const none = await runCli(['verify', '--lineage', LINEAGE], await unsigned(2, 0));
    expect(none.exitCode).toBe(ExitCode.AWAITING_INTEGRATION);
    expect(none.stdout).toMatch(/first failure: +\(none: no record integrated yet; seq 0 on sealed/);
  });

  it('export --receipt --receipt-format 1 is no longer produced (exit 2, naming format 2); format 2 works', async () => {
    const io = await unsigned(2, 2);
    const one = await runCli(['export', '--lineage', LINEAGE, '--receipt', '--seq', '1', '--receipt-format', '1'], io);
    expect(one.exitCode).toBe(ExitCode.BAD_INPUT);
    expect(one.stderr).toContain('export format 2, the deployment chain (--receipt-format 2, the default)');
    expect(one.stdout).toBe('');
    const two = await runCli(['export', '--lineage', LINEAGE, '--receipt', '--seq', '1'], io);
    expect(two.exitCode).toBe(ExitCode.OK);
    expect(JSON.parse(two.stdout)).toMatchObject({ formatVersion: 2, inclusion: { leafIndex: 1, treeSize: 2 } });
  });
});
